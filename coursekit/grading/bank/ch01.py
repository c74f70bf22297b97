"""Chapter 1, Text as sequences: the graded questions of ``exercises/01-text.ipynb``.

Each reference is the package's own tested function, so a student's answer is graded against the
code the chapter shows: ``coursekit.text`` (vocabulary, padding, masks) and ``coursekit.metrics``
(BLEU's parts, perplexity).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import torch

from coursekit.grading.questions import Case, Question, register

WORDS = ["the", "a", "cat", "dog", "sat", "on", "mat", "and", "ran", "to", "The", "red", "big"]
SPECIAL_SETS = [["<unk>"], ["<unk>", "<pad>"], ["<pad>", "<unk>", "<bos>", "<eos>"], []]


def _zipf_sentence(rng: random.Random, words: list[str], length: int) -> list[str]:
    """A sentence of ``length`` words; word ``k`` of ``words`` has probability ~ 1/(k+1)."""
    weights = [1 / (rank + 1) for rank in range(len(words))]
    return rng.choices(words, weights=weights, k=length)


# ch01.q1: build a vocabulary ------------------------------------------------------------------


def _vocabulary_reference(
    sentences: list[list[str]], min_freq: int, specials: list[str]
) -> list[str]:
    """itos = specials, then tokens counted >= min_freq by descending count, ties in code-point
    order, as ``coursekit.text.build_vocab_from_iterator`` (torchtext 0.18) builds it.
    """
    from coursekit.text import build_vocab_from_iterator

    vocab = build_vocab_from_iterator(sentences, min_freq=min_freq, specials=specials)
    return vocab.get_itos()


def _vocabulary_cases(rng: random.Random) -> Iterator[Case]:
    settings = [(1, SPECIAL_SETS[0]), (2, SPECIAL_SETS[1]), (3, SPECIAL_SETS[2]), (1, [])]
    for min_freq, specials in settings:
        sentences = [
            _zipf_sentence(rng, WORDS, rng.randint(3, 9)) for _ in range(rng.randint(3, 6))
        ]
        yield Case(
            (sentences, min_freq, list(specials)),
            description=f"{len(sentences)} sentences, min_freq={min_freq}, specials {specials}",
        )
    sentences = [_zipf_sentence(rng, [*WORDS[:6], "<unk>"], rng.randint(4, 8)) for _ in range(4)]
    yield Case(
        (sentences, 1, ["<unk>", "<pad>"]),
        description="the special '<unk>' also occurs in the text",
    )
    sentences = [_zipf_sentence(rng, WORDS, 5) for _ in range(3)]
    yield Case((sentences, 100, ["<pad>"]), description="min_freq=100: no word is frequent enough")


register(
    Question(
        id="ch01.q1",
        title="Build a vocabulary",
        points=2,
        answer_name="build_vocab",
        reference=_vocabulary_reference,
        make_cases=_vocabulary_cases,
    )
)


# ch01.q2: pad a batch and mark the padding ----------------------------------------------------


def _padding_reference(
    sequences: list[list[int]], padding_value: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """``padded[b, t] = x_b[t]`` if ``t < n_b`` else the padding id; ``mask[b, t] = t >= n_b``."""
    from coursekit.text import pad_batch, padding_mask

    padded, lengths = pad_batch(sequences, padding_value=padding_value, batch_first=True)
    return padded, padding_mask(lengths, max_len=padded.size(1))


def _padding_cases(rng: random.Random) -> Iterator[Case]:
    def batch(lengths: list[int], low: int = 1) -> list[list[int]]:
        return [[rng.randint(low, 50) for _ in range(length)] for length in lengths]

    for size, padding_value in [(3, 0), (4, 1), (5, 0)]:
        lengths = [rng.randint(1, 7) for _ in range(size)]
        yield Case(
            (batch(lengths), padding_value),
            description=f"lengths {lengths}, padding_value={padding_value}",
        )
    yield Case((batch([4, 4, 4]), 0), description="lengths [4, 4, 4]: nothing to pad")
    yield Case((batch([6]), 0), description="a batch of one sequence")
    sequences = batch([5, 2, 3], low=0)
    sequences[0][1] = 0
    yield Case(
        (sequences, 0),
        description="lengths [5, 2, 3]; the padding id 0 also occurs inside a sequence",
    )


register(
    Question(
        id="ch01.q2",
        title="Pad a batch",
        points=2,
        answer_name="pad_and_mask",
        reference=_padding_reference,
        make_cases=_padding_cases,
    )
)


# ch01.q3: BLEU's modified (clipped) n-gram precision ------------------------------------------


def _clipped_precision_reference(
    hypothesis: list[str], references: list[list[str]], n: int
) -> tuple[int, int]:
    """``(sum_g min(count_hyp(g), max_ref count_ref(g)), sum_g count_hyp(g))`` over n-grams g."""
    from coursekit.metrics import modified_precision

    return modified_precision(hypothesis, references, n)


def _clipped_precision_cases(rng: random.Random) -> Iterator[Case]:
    papineni = (
        ["the"] * 7,
        [["the", "cat", "is", "on", "the", "mat"], ["there", "is", "a", "cat", "on", "the", "mat"]],
    )
    yield Case((*papineni, 1), description="hypothesis 'the the the the the the the', n=1")
    pool = WORDS[:8]
    for n, reference_count in [(1, 2), (2, 2), (2, 3), (3, 1)]:
        references = [_zipf_sentence(rng, pool, rng.randint(5, 9)) for _ in range(reference_count)]
        hypothesis = [word if rng.random() < 0.7 else rng.choice(pool) for word in references[0]]
        hypothesis += hypothesis[:n]  # a repeated n-gram, so that clipping matters
        plural = "s" if reference_count > 1 else ""
        yield Case(
            (hypothesis, references, n),
            description=f"{len(hypothesis)} tokens, {reference_count} reference{plural}, n={n}",
        )
    yield Case(
        (["a", "cat", "sat"], [["a", "cat", "sat", "down"]], 4),
        description="3 tokens and n=4: the hypothesis has no 4-grams",
    )


register(
    Question(
        id="ch01.q3",
        title="BLEU's clipped n-gram precision",
        points=2,
        answer_name="clipped_precision",
        reference=_clipped_precision_reference,
        make_cases=_clipped_precision_cases,
    )
)


# ch01.q4: BLEU's brevity penalty --------------------------------------------------------------


def _brevity_penalty_reference(hypothesis_length: int, reference_length: int) -> float:
    """``BP = 1`` if ``c >= r``, else ``exp(1 - r / c)``, and 0 for an empty hypothesis."""
    from coursekit.metrics import brevity_penalty

    return brevity_penalty(hypothesis_length, reference_length)


def _brevity_penalty_cases(rng: random.Random) -> Iterator[Case]:
    reference_length = rng.randint(8, 30)
    pairs = [
        (reference_length + rng.randint(1, 5), reference_length),
        (reference_length, reference_length),
        (reference_length - rng.randint(1, 4), reference_length),
        (rng.randint(3, 6), rng.randint(10, 20)),
        (0, reference_length),
    ]
    for hypothesis_length, reference in pairs:
        yield Case(
            (hypothesis_length, reference),
            description=f"hypothesis_length={hypothesis_length}, reference_length={reference}",
            atol=0.0,
        )


register(
    Question(
        id="ch01.q4",
        title="BLEU's brevity penalty",
        points=1,
        answer_name="brevity_penalty",
        reference=_brevity_penalty_reference,
        make_cases=_brevity_penalty_cases,
    )
)


# ch01.q5: perplexity of a padded batch --------------------------------------------------------


def _perplexity_reference(nll: torch.Tensor, mask: torch.Tensor) -> float:
    """``PPL = exp(sum_{real tokens} nll / number of real tokens)``; True in ``mask`` is padding."""
    from coursekit.metrics import perplexity

    real = ~mask
    return perplexity(nll[real].double().sum(), int(real.sum()))


def _perplexity_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch.Generator().manual_seed(rng.getrandbits(63))
    for batch_size, length, padded in [(2, 5, True), (3, 8, True), (4, 6, True), (3, 4, False)]:
        lengths = [length if not padded else rng.randint(1, length) for _ in range(batch_size)]
        lengths[0] = length
        mask = torch.arange(length).unsqueeze(0) >= torch.tensor(lengths).unsqueeze(1)
        nll = torch.rand(batch_size, length, generator=generator) * 5
        nll = nll.masked_fill(mask, 100.0)
        about = f"lengths {lengths}; padding holds nll 100" if padded else "no padding"
        yield Case((nll, mask), description=f"batch {batch_size}x{length}, {about}", rtol=1e-5)


register(
    Question(
        id="ch01.q5",
        title="Perplexity of a padded batch",
        points=1,
        answer_name="batch_perplexity",
        reference=_perplexity_reference,
        make_cases=_perplexity_cases,
    )
)
