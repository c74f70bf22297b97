"""BLEU, step by step, with the same numbers as sacrebleu (Chapter 1, Text as sequences).

A hypothesis is compared with one or more references by counting the n-grams they share:

1. tokenize every segment (:func:`~coursekit.metrics.tokenize_13a.tokenize_13a` by default);
2. for each order n, count the hypothesis n-grams matched by a reference, each match *clipped*
   to the number of times the n-gram occurs in a single reference (:func:`modified_precision`);
3. pick for each segment the reference length closest to the hypothesis length
   (:func:`closest_reference_length`);
4. sum these statistics over the corpus and combine them
   (:func:`~coursekit.metrics.bleu_score.bleu_from_statistics`).

:func:`corpus_bleu` and :func:`sentence_bleu` take sacrebleu's arguments and defaults.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Literal

from coursekit.arguments import require_positive_int
from coursekit.metrics.bleu_score import BLEUScore, SmoothMethod, bleu_from_statistics
from coursekit.metrics.tokenize_13a import tokenize_13a

Ngram = tuple[str, ...]


def untokenized(line: str) -> str:
    """The ``"none"`` tokenizer: the text is already tokenized, tokens are separated by spaces."""
    return line


TOKENIZERS: dict[str, Callable[[str], str]] = {"13a": tokenize_13a, "none": untokenized}


def ngram_counts(tokens: Sequence[str], n: int) -> Counter[Ngram]:
    """How often each n-gram (n consecutive tokens) occurs in ``tokens`` (Chapter 1).

    ``ngram_counts(["the", "cat", "the", "cat"], 2) == Counter({("the", "cat"): 2,
    ("cat", "the"): 1})``. A sequence of L tokens has ``max(L - n + 1, 0)`` n-grams.
    """
    require_positive_int("the n-gram order n", n)
    return Counter(tuple(tokens[start : start + n]) for start in range(len(tokens) - n + 1))


def modified_precision(
    hypothesis: Sequence[str], references: Sequence[Sequence[str]], n: int
) -> tuple[int, int]:
    """BLEU's clipped n-gram matches ``m_n`` and the hypothesis n-gram total ``t_n`` (Chapter 1).

    ``m_n = sum_g min(count_hyp(g), max_ref count_ref(g))``: a hypothesis n-gram ``g`` scores at
    most as often as it occurs in one reference, so "the the the the" earns 2 unigram matches, not
    4, against "the cat on the mat". ``t_n = sum_g count_hyp(g)``; the precision is ``m_n / t_n``.
    """
    hypothesis_counts = ngram_counts(hypothesis, n)
    most_in_one_reference: Counter[Ngram] = Counter()
    for reference in references:
        most_in_one_reference |= ngram_counts(reference, n)  # `|` keeps the maximum count
    clipped = hypothesis_counts & most_in_one_reference  # `&` keeps the minimum count
    return sum(clipped.values()), sum(hypothesis_counts.values())


def closest_reference_length(hypothesis_length: int, reference_lengths: Sequence[int]) -> int:
    """The reference length ``r`` used for the brevity penalty of one segment (Chapter 1).

    Among several references, BLEU takes the length closest to the hypothesis length and, on a
    tie, the shorter one: a 5-token hypothesis with references of 3 and 7 tokens gets r = 3.
    """
    if not reference_lengths:
        raise ValueError("closest_reference_length needs at least one reference length")
    return min(reference_lengths, key=lambda length: (abs(length - hypothesis_length), length))


def corpus_bleu(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str | None]],
    *,
    lowercase: bool = False,
    tokenize: Literal["13a", "none"] = "13a",
    smooth_method: SmoothMethod = "exp",
    smooth_value: float | None = None,
    max_order: int = 4,
    effective_order: bool = False,
) -> BLEUScore:
    """Corpus BLEU, equal to ``sacrebleu.corpus_bleu`` (Chapter 1, Text as sequences).

    ``references`` is a list of reference *streams*, each as long as ``hypotheses``:
    ``corpus_bleu(hyps, [refs])`` for one reference per sentence, ``[refs_a, refs_b]`` for two.
    A ``None`` in a stream means "no such reference for this sentence" (variable numbers of
    references); an empty string is a reference of length 0. Segments are lowercased if asked,
    right-stripped and tokenized (``"13a"``, or ``"none"`` for text that is already tokenized).
    The counts of every segment are summed before any division, so BLEU is a corpus statistic,
    not an average of sentence scores.
    """
    segments = _segments(hypotheses, references)
    require_positive_int("max_order", max_order)
    if tokenize not in TOKENIZERS:
        raise ValueError(f"tokenize must be one of {list(TOKENIZERS)}, got {tokenize!r}")
    tokenizer = TOKENIZERS[tokenize]

    def tokens_of(segment: str) -> list[str]:
        return tokenizer((segment.lower() if lowercase else segment).rstrip()).split()

    counts, totals = [0] * max_order, [0] * max_order
    sys_len = ref_len = 0
    for hypothesis, segment_references in segments:
        hypothesis_tokens = tokens_of(hypothesis)
        reference_tokens = [tokens_of(reference) for reference in segment_references]
        sys_len += len(hypothesis_tokens)
        ref_len += closest_reference_length(
            len(hypothesis_tokens), [len(tokens) for tokens in reference_tokens]
        )
        for n in range(1, max_order + 1):
            matches, total = modified_precision(hypothesis_tokens, reference_tokens, n)
            counts[n - 1] += matches
            totals[n - 1] += total
    return bleu_from_statistics(
        counts,
        totals,
        sys_len,
        ref_len,
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        effective_order=effective_order,
    )


def sentence_bleu(
    hypothesis: str,
    references: Sequence[str | None],
    *,
    lowercase: bool = False,
    tokenize: Literal["13a", "none"] = "13a",
    smooth_method: SmoothMethod = "exp",
    smooth_value: float | None = None,
    max_order: int = 4,
    effective_order: bool = True,
) -> BLEUScore:
    """BLEU of one sentence, equal to ``sacrebleu.sentence_bleu`` (Chapter 1).

    The corpus BLEU of a one-sentence corpus, with sacrebleu's sentence defaults: effective order
    on (a short sentence is scored on the orders it has) and "exp" smoothing. Sentence BLEU is
    noisy; report :func:`corpus_bleu` for a system.
    """
    if not isinstance(hypothesis, str):
        raise TypeError(f"hypothesis must be a string, got {type(hypothesis).__name__}")
    if isinstance(references, str):
        raise TypeError("references must be a list of strings, e.g. sentence_bleu(hyp, [ref])")
    return corpus_bleu(
        [hypothesis],
        [[reference] for reference in references],
        lowercase=lowercase,
        tokenize=tokenize,
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        max_order=max_order,
        effective_order=effective_order,
    )


def _segments(
    hypotheses: Sequence[str], references: Sequence[Sequence[str | None]]
) -> list[tuple[str, list[str]]]:
    """Pair each hypothesis with its references, checking sacrebleu's stream convention."""
    if isinstance(hypotheses, str) or not isinstance(hypotheses, Sequence):
        raise TypeError("hypotheses must be a list of strings, e.g. corpus_bleu([hyp], [[ref]])")
    if isinstance(references, str) or not isinstance(references, Sequence):
        raise TypeError("references must be a list of reference streams, e.g. [[ref1, ref2, ...]]")
    if any(isinstance(stream, str) or not isinstance(stream, Sequence) for stream in references):
        raise TypeError(
            "references must be a list of reference streams (lists of strings), one string per "
            "hypothesis in each stream: write corpus_bleu(hyps, [refs]), not corpus_bleu(hyps, refs)"
        )
    if not hypotheses:
        raise ValueError("BLEU of an empty corpus is undefined: pass at least one hypothesis")
    if not references:
        raise ValueError("no reference stream given: pass [refs] with one reference per hypothesis")
    stream_lengths = [len(stream) for stream in references]
    if any(length != len(hypotheses) for length in stream_lengths):
        raise ValueError(
            f"every reference stream must hold one entry per hypothesis ({len(hypotheses)}), got "
            f"streams of lengths {stream_lengths}; use None where a sentence lacks a reference"
        )
    segments = []
    for index, (hypothesis, *candidates) in enumerate(zip(hypotheses, *references, strict=True)):
        if not isinstance(hypothesis, str):
            raise TypeError(f"hypothesis {index} must be a string, got {type(hypothesis).__name__}")
        if any(not isinstance(reference, (str, type(None))) for reference in candidates):
            raise TypeError(f"references of sentence {index} must be strings or None")
        segment_references = [reference for reference in candidates if reference is not None]
        if not segment_references:
            raise ValueError(f"sentence {index} has no reference: every stream holds None there")
        segments.append((hypothesis, segment_references))
    return segments
