"""Chapter 1, Text as sequences: the graded questions of ``exercises/01-text.ipynb``.

Each reference is the package's own tested code, so a student's answer is graded against what the
chapter shows: ``coursekit.text`` (vocabulary, padding, masks), ``coursekit.metrics`` (BLEU,
perplexity) and ``coursekit.models.NGramLanguageModel``. Questions 3 and 4 transcribe equations
the chapter prints; questions 5 and 6 ask for what it does not print (a perplexity that leaves out
``<unk>`` as well as padding, the counting and evaluation of a smoothed bigram model).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import torch

from coursekit.grading.questions import Case, Mistake, Question, register
from coursekit.metrics import (
    bleu_from_statistics,
    brevity_penalty,
    closest_reference_length,
    modified_precision,
    ngram_counts,
    perplexity,
    smoothed_precisions,
)
from coursekit.models import NGramLanguageModel
from coursekit.text import build_vocab_from_iterator, pad_batch, padding_mask

WORDS = ["the", "a", "cat", "dog", "sat", "on", "mat", "and", "ran", "to", "The", "red", "big"]


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
    return build_vocab_from_iterator(sentences, min_freq=min_freq, specials=specials).get_itos()


#: (min_freq, specials, the special that also occurs in the text, how often it occurs)
VOCABULARY_SETTINGS: list[tuple[int, list[str], str | None, int]] = [
    (1, ["<unk>"], "<unk>", 3),
    (2, ["<unk>", "<pad>"], "<unk>", 2),
    (3, ["<pad>", "<unk>", "<sos>", "<eos>"], "<eos>", 4),
    (2, ["<pad>", "<unk>"], "<pad>", 5),
    (1, [], None, 0),
    (100, ["<pad>", "<unk>"], "<unk>", 120),
]


def _vocabulary_counts(rng: random.Random, min_freq: int) -> dict[str, int]:
    """Token counts with a tie of three, ``"The"`` tied with ``"a"`` (code point: ``"The" <
    "a"``), a token counted exactly ``min_freq`` times and one counted once less (once when
    ``min_freq`` is 1); small counts only when ``min_freq`` is beyond them all."""
    words = rng.sample([word for word in WORDS if word not in ("The", "a")], 8)
    if min_freq > 10:
        return {word: rng.randint(1, 4) for word in words} | {"The": 3, "a": 3}
    counts = {word: rng.choice([min_freq, min_freq + 1, min_freq + 2]) for word in words}
    counts[words[0]] = counts[words[1]] = counts[words[2]] = min_freq + 1
    counts[words[3]] = min_freq
    counts[words[4]] = max(min_freq - 1, 1)
    return counts | {"The": min_freq + 3, "a": min_freq + 3}


def _vocabulary_cases(rng: random.Random) -> Iterator[Case]:
    """Every case has ties, and every token first occurs in reverse code-point order, so that
    first-seen order (``Counter.most_common``) is not code-point order; most cases hold one of
    their specials in the text too."""
    for min_freq, specials, special_in_text, special_count in VOCABULARY_SETTINGS:
        counts = _vocabulary_counts(rng, min_freq)
        about = "no specials"
        if special_in_text is not None:
            counts[special_in_text] = special_count
            about = f"'{special_in_text}' occurs {special_count} times in the text"
        repeats = [token for token in counts for _ in range(counts[token] - 1)]
        rng.shuffle(repeats)
        tokens = sorted(counts, reverse=True) + repeats
        cuts = sorted(rng.sample(range(1, len(tokens)), 3))
        sentences = [tokens[i:j] for i, j in zip([0, *cuts], [*cuts, len(tokens)], strict=True)]
        yield Case(
            (sentences, min_freq, list(specials)),
            description=f"min_freq={min_freq}, specials {specials}; tied counts, 'The' and 'a' "
            f"among them; {about}",
        )


def vocabulary_with_ties_by(tie_key: Callable[[str], Any]) -> Callable[..., list[str]]:
    """The mistake of ordering tied tokens by ``tie_key`` instead of by code point: a constant
    key keeps them in first-seen order, as ``Counter.most_common`` does."""

    def answer(sentences: list[list[str]], min_freq: int, specials: list[str]) -> list[str]:
        counts = Counter(token for sentence in sentences for token in sentence)
        ranked = sorted(counts, key=lambda token: (-counts[token], tie_key(token)))
        return specials + [t for t in ranked if counts[t] >= min_freq and t not in specials]

    return answer


register(
    Question(
        id="ch01.q1",
        title="Build a vocabulary",
        points=2,
        answer_name="build_vocab",
        reference=_vocabulary_reference,
        make_cases=_vocabulary_cases,
        forbidden=(build_vocab_from_iterator,),
        mistakes=(
            Mistake(
                "tied tokens keep the order they were first seen in; ties go in code-point "
                "order ('The' < 'a')",
                vocabulary_with_ties_by(lambda token: 0),
            ),
            Mistake(
                "ties are ordered ignoring case; code-point order puts 'The' before 'a'",
                vocabulary_with_ties_by(str.lower),
            ),
            Mistake(
                "a token counted exactly min_freq times is left out; it is kept (count >= "
                "min_freq)",
                lambda sentences, min_freq, specials: _vocabulary_reference(
                    sentences, min_freq + 1, specials
                ),
            ),
            Mistake(
                "a special that occurs in the text is listed again after the specials; every "
                "token is listed once",
                lambda sentences, min_freq, specials: (
                    specials + _vocabulary_reference(sentences, min_freq, [])
                ),
            ),
        ),
    )
)


# ch01.q2: pad a batch and mark the padding ----------------------------------------------------


def _padding_reference(
    sequences: list[list[int]], padding_value: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """``padded[b, t] = x_b[t]`` if ``t < n_b`` else the padding id; ``mask[b, t] = t >= n_b``."""
    padded, lengths = pad_batch(sequences, padding_value=padding_value, batch_first=True)
    return padded, padding_mask(lengths, max_len=padded.size(1))


#: (lengths, padding id): five padded batches, two without padding; torchtext's <pad> is often 1.
PADDING_SETTINGS = [
    ([3, 1, 2], 1),
    ([5, 2, 4, 1], 1),
    ([2, 6, 3], 0),
    ([4, 4, 1, 3, 2], 3),
    ([1, 7], 2),
    ([3, 3, 3], 0),
    ([6], 1),
]


def _padding_cases(rng: random.Random) -> Iterator[Case]:
    """Ids are drawn from 0..9, and the padding id is placed inside the longest sequence, so a
    mask read from the values (``padded == padding_value``) is wrong in every case."""
    for lengths, padding_value in PADDING_SETTINGS:
        sequences = [[rng.randint(0, 9) for _ in range(length)] for length in lengths]
        longest = max(range(len(lengths)), key=lambda row: lengths[row])
        sequences[longest][rng.randrange(lengths[longest])] = padding_value
        padded = "no padding" if len(set(lengths)) == 1 else "padded"
        yield Case(
            (sequences, padding_value),
            description=f"lengths {lengths} ({padded}), padding_value={padding_value}; the "
            "padding id also occurs inside a sequence",
        )


def _mask_from_values(
    sequences: list[list[int]], padding_value: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """The mistake of marking every position that holds the padding id."""
    padded, _ = _padding_reference(sequences, padding_value)
    return padded, padded == padding_value


def _mask_inverted(
    sequences: list[list[int]], padding_value: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """The mistake of marking the real tokens instead of the padding."""
    padded, mask = _padding_reference(sequences, padding_value)
    return padded, ~mask


register(
    Question(
        id="ch01.q2",
        title="Pad a batch and mark the padding",
        points=1,
        answer_name="pad_and_mask",
        reference=_padding_reference,
        make_cases=_padding_cases,
        forbidden=(pad_batch, padding_mask, torch.nn.utils.rnn.pad_sequence),
        output_names=("padded", "mask"),
        mistakes=(
            Mistake(
                "the mask is read from the values, so the padding id inside a sequence is "
                "marked too; mark the positions t >= n_b, from the lengths",
                _mask_from_values,
            ),
            Mistake(
                "the mask is inverted: it marks the real tokens; True must mark the padding (t >= n_b)",
                _mask_inverted,
            ),
            Mistake(
                "the padding is 0 whatever padding_value; pad with padding_value",
                lambda sequences, padding_value: _padding_reference(sequences, 0),
            ),
        ),
    )
)


# ch01.q3: BLEU's modified (clipped) n-gram precision ------------------------------------------


def _clipped_precision_reference(
    hypothesis: list[str], references: list[list[str]], n: int
) -> tuple[int, int]:
    """``(sum_g min(count_hyp(g), max_ref count_ref(g)), sum_g count_hyp(g))`` over n-grams g."""
    return modified_precision(hypothesis, references, n)


def _clipped_precision_cases(rng: random.Random) -> Iterator[Case]:
    """Each drawn case repeats one n-gram ``g`` of the first reference in the hypothesis as
    often as all references together hold it, and every reference holds ``g``: clipping by the
    largest count in one reference, not by the sum over the references, is what passes."""
    papineni = (
        ["the"] * 7,
        [["the", "cat", "is", "on", "the", "mat"], ["there", "is", "a", "cat", "on", "the", "mat"]],
    )
    yield Case((*papineni, 1), description="hypothesis 'the the the the the the the', n=1")
    pool = WORDS[:8]
    for n, reference_count in [(1, 2), (2, 2), (2, 3), (3, 2)]:
        references = [_zipf_sentence(rng, pool, rng.randint(5, 9)) for _ in range(reference_count)]
        repeated = references[0][:n]
        for reference in references[1:]:
            reference[1:1] = repeated
        in_all = sum(ngram_counts(reference, n)[tuple(repeated)] for reference in references)
        hypothesis = [word if rng.random() < 0.7 else rng.choice(pool) for word in references[0]]
        hypothesis += repeated * in_all
        yield Case(
            (hypothesis, references, n),
            description=f"n={n}, {reference_count} references; {repeated} repeated in the "
            "hypothesis, and held by every reference",
        )
    yield Case(
        (["a", "cat", "sat"], [["a", "cat", "sat", "down"]], 4),
        description="3 tokens and n=4: the hypothesis has no 4-grams",
    )


#: A token no hypothesis holds: references joined with it share no n-gram across the joins.
SEPARATOR = "\N{INFORMATION SEPARATOR ONE}"


def _joined(references: list[list[str]]) -> list[str]:
    """One reference holding the n-grams of all ``references``, each counted as often as the
    references hold it together."""
    return [token for reference in references for token in (*reference, SEPARATOR)]


def _clipped_by_the_sum(
    hypothesis: list[str], references: list[list[str]], n: int
) -> tuple[int, int]:
    """The mistake of clipping by the sum of an n-gram's counts over the references."""
    return _clipped_precision_reference(hypothesis, [_joined(references)], n)


def _unclipped(hypothesis: list[str], references: list[list[str]], n: int) -> tuple[int, int]:
    """The mistake of counting every hypothesis n-gram that some reference holds, however
    often: one reference repeated more often than the hypothesis is long never clips."""
    return _clipped_precision_reference(
        hypothesis, [_joined(references * (len(hypothesis) + 1))], n
    )


register(
    Question(
        id="ch01.q3",
        title="BLEU's clipped n-gram precision",
        points=1,
        answer_name="clipped_precision",
        reference=_clipped_precision_reference,
        make_cases=_clipped_precision_cases,
        forbidden=(modified_precision, ngram_counts),
        output_names=("matches", "total"),
        mistakes=(
            Mistake(
                "the matches are not clipped: an n-gram counts at most as often as one "
                "reference holds it",
                _unclipped,
            ),
            Mistake(
                "the counts are clipped by the sum over the references; clip by the most in "
                "one reference",
                _clipped_by_the_sum,
            ),
        ),
    )
)


# ch01.q4: corpus BLEU from its statistics -----------------------------------------------------


def _bleu_reference(
    matches: list[int], totals: list[int], hypothesis_length: int, reference_length: int
) -> float:
    """``BLEU = 100 * BP(c, r) * exp((1/4) sum_n log(m_n / t_n))``, 0 when some ``m_n`` is 0,
    by ``coursekit.metrics.bleu_from_statistics`` without smoothing.
    """
    score = bleu_from_statistics(
        matches, totals, hypothesis_length, reference_length, smooth_method="none"
    )
    return score.score


def _corpus_statistics(
    hypotheses: list[list[str]], references: list[list[str]]
) -> tuple[list[int], list[int], int, int]:
    """BLEU's sufficient statistics of a corpus with one reference per hypothesis:
    ``(m_1..m_4, t_1..t_4, c, r)``, summed over the sentences as the chapter's BLEU does."""
    matches, totals = [0] * 4, [0] * 4
    for hypothesis, reference in zip(hypotheses, references, strict=True):
        for n in range(1, 5):
            matched, total = modified_precision(hypothesis, [reference], n)
            matches[n - 1] += matched
            totals[n - 1] += total
    hypothesis_length = sum(len(hypothesis) for hypothesis in hypotheses)
    reference_length = sum(
        closest_reference_length(len(hypothesis), [len(reference)])
        for hypothesis, reference in zip(hypotheses, references, strict=True)
    )
    return matches, totals, hypothesis_length, reference_length


def _translate(rng: random.Random, reference: list[str], change: int, keep: float) -> list[str]:
    """A hypothesis for ``reference``: each word kept with probability ``keep`` (else replaced),
    then ``change`` words added (``change > 0``) or dropped from the end (``change < 0``)."""
    hypothesis = [word if rng.random() < keep else rng.choice(WORDS) for word in reference]
    if change >= 0:
        return hypothesis + _zipf_sentence(rng, WORDS, change)
    return hypothesis[:change]


def _without_4gram_matches(reference: list[str]) -> list[str]:
    """``reference`` with every fourth word replaced by one it lacks: unigrams, bigrams and
    trigrams still match, but no 4-gram does."""
    return ["zebra" if position % 4 == 3 else word for position, word in enumerate(reference)]


#: (length change per sentence, probability of keeping a word, longest reference, what)
BLEU_SETTINGS = [
    (2, 0.8, 12, "c > r"),
    (0, 0.8, 12, "c == r"),
    (-1, 0.85, 12, "c < r by one word a sentence"),
    (-3, 0.9, 12, "c < r by three words a sentence"),
    (-2, 0.75, 10, "c < r by two words a sentence"),
    (-1, 0.6, 9, "c < r, fewer matches"),
    (-4, 0.9, 14, "c < r by four words a sentence"),
    (-1, 1.0, 12, "m_4 = 0 (no 4-gram matches), m_1 > 0"),
    (0, 0.8, 3, "hypotheses of at most 3 words: t_4 = m_4 = 0"),
]


def _bleu_cases(rng: random.Random) -> Iterator[Case]:
    for change, keep, longest, about in BLEU_SETTINGS:
        references = [
            _zipf_sentence(rng, WORDS, rng.randint(max(3, longest - 2), longest)) for _ in range(4)
        ]
        hypotheses = [_translate(rng, reference, change, keep) for reference in references]
        if "m_4 = 0" in about:
            hypotheses = [_without_4gram_matches(hypothesis) for hypothesis in hypotheses]
        matches, totals, c, r = _corpus_statistics(hypotheses, references)
        yield Case((matches, totals, c, r), description=f"{about}; c={c}, r={r}")
    yield Case(([0] * 4, [0] * 4, 0, 14), description="empty hypotheses: c = 0")


def _brevity_penalty(c: int, r: int) -> float:
    """BP, read off the reference: BLEU / 100 when every precision is 1."""
    return _bleu_reference([1] * 4, [1] * 4, c, r) / 100


def _bleu_with_brevity(brevity: Callable[[int, int], float]) -> Callable[..., float]:
    """The mistake of a brevity penalty ``brevity(c, r)`` in place of BLEU's."""

    def answer(matches: list[int], totals: list[int], c: int, r: int) -> float:
        score = _bleu_reference(matches, totals, c, r)
        if score == 0:  # c = 0 among others, where BP is 0 too
            return 0.0
        return score * brevity(c, r) / _brevity_penalty(c, r)

    return answer


def _bleu_with_arithmetic_mean(matches: list[int], totals: list[int], c: int, r: int) -> float:
    """The mistake of averaging the precisions arithmetically instead of geometrically."""
    if min(matches) == 0:
        return 0.0
    precisions = [m / t for m, t in zip(matches, totals, strict=True)]
    return 100 * _brevity_penalty(c, r) * sum(precisions) / 4


register(
    Question(
        id="ch01.q4",
        title="Corpus BLEU from its statistics",
        points=1,
        answer_name="bleu_score",
        reference=_bleu_reference,
        make_cases=_bleu_cases,
        forbidden=(bleu_from_statistics, brevity_penalty, smoothed_precisions),
        mistakes=(
            Mistake(
                "the brevity penalty is left out: BP = exp(1 - r/c) when c < r",
                _bleu_with_brevity(lambda c, r: 1.0),
            ),
            Mistake(
                "the brevity penalty is exp(1 - c/r); it is exp(1 - r/c) when c < r",
                _bleu_with_brevity(lambda c, r: 1.0 if c >= r else math.exp(1 - c / r)),
            ),
            Mistake(
                "the brevity penalty exp(1 - r/c) is applied when c > r too; BP = 1 there",
                _bleu_with_brevity(lambda c, r: math.exp(1 - r / c)),
            ),
            Mistake(
                "the precisions are averaged arithmetically; BLEU takes their geometric mean, "
                "exp((1/4) sum_n log p_n)",
                _bleu_with_arithmetic_mean,
            ),
            Mistake(
                "the score is on the 0-1 scale; this question reports BLEU from 0 to 100",
                lambda matches, totals, c, r: _bleu_reference(matches, totals, c, r) / 100,
            ),
        ),
    )
)


# ch01.q5: perplexity of the real, known tokens of a padded batch ------------------------------


def _known_perplexity_reference(
    nll: torch.Tensor, tokens: torch.Tensor, padding_id: int, unk_id: int
) -> float:
    """``PPL = exp(sum_{t in S} nll_t / |S|)`` over the set ``S`` of positions whose token is
    neither padding nor ``<unk>``, by ``coursekit.metrics.perplexity``.
    """
    counted = (tokens != padding_id) & (tokens != unk_id)
    return perplexity(nll[counted].sum(), int(counted.sum()))


#: (batch size, T, padded, padding id, <unk> id)
KNOWN_PERPLEXITY_SETTINGS = [
    (2, 6, True, 0, 1),
    (3, 8, True, 1, 0),
    (4, 5, True, 0, 3),
    (3, 7, True, 2, 1),
    (5, 6, True, 0, 1),
    (3, 5, False, 0, 1),
]
PADDING_NLL = 50.0
UNK_NLL = 12.0


def _known_perplexity_cases(rng: random.Random) -> Iterator[Case]:
    """nll of known tokens in [0, 5), of ``<unk>`` in [12, 14), of padding 50: leaving either
    of the two in the mean shows."""
    generator = torch.Generator().manual_seed(rng.getrandbits(63))
    for batch_size, steps, padded, padding_id, unk_id in KNOWN_PERPLEXITY_SETTINGS:
        others = [rng.randint(2, steps - 1) if padded else steps for _ in range(batch_size - 1)]
        lengths = [steps, *others]
        tokens = torch.randint(4, 30, (batch_size, steps), generator=generator)
        unknown = torch.rand(batch_size, steps, generator=generator) < 0.25
        unknown[0, 1] = True  # at least one <unk>
        tokens = tokens.masked_fill(unknown, unk_id)
        is_padding = torch.arange(steps).unsqueeze(0) >= torch.tensor(lengths).unsqueeze(1)
        tokens = tokens.masked_fill(is_padding, padding_id)
        nll = torch.rand(batch_size, steps, generator=generator, dtype=torch.float64) * 5
        nll = torch.where(tokens == unk_id, UNK_NLL + 2 * nll / 5, nll)
        nll = nll.masked_fill(is_padding, PADDING_NLL)
        about = f"lengths {lengths}, padding nll {PADDING_NLL:g}" if padded else "no padding"
        yield Case(
            (nll, tokens, padding_id, unk_id),
            description=f"batch {batch_size}x{steps}, {about}; padding_id={padding_id}, "
            f"unk_id={unk_id}, {int((tokens == unk_id).sum())} <unk> tokens with nll >= 12",
            rtol=1e-9,
            atol=0.0,
        )


def _perplexity_counting(kept: str) -> Callable[..., float]:
    """The mistake of counting the positions ``kept`` names: ``"all"``, ``"unk"`` (padding left
    out, ``<unk>`` kept) or ``"padding"`` (``<unk>`` left out, padding kept)."""

    def answer(nll: torch.Tensor, tokens: torch.Tensor, padding_id: int, unk_id: int) -> float:
        left_out = {"all": -1, "unk": padding_id, "padding": unk_id}[kept]
        return _known_perplexity_reference(nll, tokens, left_out, left_out)

    return answer


def _perplexity_over_every_position(
    nll: torch.Tensor, tokens: torch.Tensor, padding_id: int, unk_id: int
) -> float:
    """The mistake of dividing the known tokens' nll by all ``B * T`` positions."""
    known = int(((tokens != padding_id) & (tokens != unk_id)).sum())
    log_perplexity = math.log(_known_perplexity_reference(nll, tokens, padding_id, unk_id))
    return math.exp(log_perplexity * known / tokens.numel())


register(
    Question(
        id="ch01.q5",
        title="Perplexity of the real, known tokens",
        points=1,
        answer_name="known_token_perplexity",
        reference=_known_perplexity_reference,
        make_cases=_known_perplexity_cases,
        mistakes=(
            Mistake(
                "padding and <unk> are counted; the mean runs over the known real tokens only",
                _perplexity_counting("all"),
            ),
            Mistake(
                "<unk> tokens are counted; leave them out as well as the padding",
                _perplexity_counting("unk"),
            ),
            Mistake(
                "the padding is counted; leave it out as well as <unk>",
                _perplexity_counting("padding"),
            ),
            Mistake(
                "the known tokens' nll is divided by all B * T positions; divide by the number "
                "of known tokens",
                _perplexity_over_every_position,
            ),
        ),
    )
)


# ch01.q6: the perplexity of an add-k smoothed bigram model ------------------------------------


def _bigram_perplexity_reference(
    train: list[list[int]],
    test: list[list[int]],
    vocab_size: int,
    sos_id: int,
    eos_id: int,
    k: float,
) -> float:
    """Fit ``P(w | c) = (count(c, w) + k) / (count(c) + k |V|)`` on ``train`` framed as
    ``<sos> x_1 .. x_n <eos>``, then ``PPL = exp(-(1/N) sum log P)`` over the ``N`` tokens and
    ``<eos>`` of ``test``, by ``coursekit.models.NGramLanguageModel`` and
    ``coursekit.metrics.perplexity``.
    """
    model = NGramLanguageModel(2, vocab_size, sos_index=sos_id, eos_index=eos_id, add_k=k)
    return perplexity(*model.fit(train).negative_log_likelihood(test))


#: (vocabulary size, <sos> id, <eos> id, k, training sentences, word ids left out of training,
#: what the case exercises)
BIGRAM_SETTINGS = [
    (10, 2, 3, 1.0, 6, 0, "k=1 (Laplace)"),
    (12, 0, 1, 0.5, 8, 0, "k=0.5, <sos> and <eos> are ids 0 and 1"),
    (9, 7, 8, 0.1, 5, 0, "k=0.1, <sos> and <eos> are the last ids"),
    (15, 3, 2, 0.01, 10, 0, "k=0.01"),
    (11, 2, 3, 2.0, 4, 2, "k=2, two word ids never seen in training"),
]


def _zipf_ids(rng: random.Random, pool: list[int], length: int) -> list[int]:
    """``length`` ids from ``pool``; id ``pool[k]`` has probability ~ 1/(k+1)."""
    return rng.choices(pool, weights=[1 / (rank + 1) for rank in range(len(pool))], k=length)


def _unseen_bigram(train: list[list[int]], words: list[int]) -> list[int]:
    """The first pair of word ids (in id order) that no training sentence holds side by side."""
    seen = {pair for sentence in train for pair in zip(sentence, sentence[1:], strict=False)}
    return next([a, b] for a in words for b in words if (a, b) not in seen)


def _bigram_cases(rng: random.Random) -> Iterator[Case]:
    """Word ids avoid <sos> and <eos>; every test set holds a bigram never seen in training, so
    an unsmoothed model would give it probability 0."""
    for vocab_size, sos_id, eos_id, k, count, unseen, about in BIGRAM_SETTINGS:
        words = [i for i in range(vocab_size) if i not in (sos_id, eos_id)]
        train = [
            _zipf_ids(rng, words[: len(words) - unseen], rng.randint(2, 7)) for _ in range(count)
        ]
        test = [_zipf_ids(rng, words, rng.randint(1, 6)) for _ in range(3)]
        test.append(_unseen_bigram(train, words))
        yield Case(
            (train, test, vocab_size, sos_id, eos_id, k),
            description=f"{about}; |V|={vocab_size}, {count} training sentences, 4 test "
            "sentences (float64: rtol 1e-9)",
            rtol=1e-9,
            atol=0.0,
        )
    yield Case(
        ([[4, 5], [5, 4, 4]], [[5, 5], [4, 5, 4]], 6, 0, 1, 1.0),
        description="a hand-sized corpus: 2 training and 2 test sentences, |V|=6, k=1",
        rtol=1e-9,
        atol=0.0,
    )
    yield Case(
        ([[4, 5], [5, 4, 4]], [[2]], 6, 0, 1, 1.0),
        description="one test sentence of one word never seen in training; |V|=6, k=1",
        rtol=1e-9,
        atol=0.0,
    )


def bigram_perplexity_with(framing: str = "both", vocabulary: str = "all") -> Callable[..., float]:
    """The add-k bigram perplexity with a classic mistake: the sentences framed without
    ``<eos>`` (``framing="no eos"``) or without ``<sos>`` (``"no sos"``), or ``|V|`` taken as
    the number of ids seen in training (``vocabulary="seen"``)."""

    def answer(train: list[list[int]], test: list[list[int]], *model: Any) -> float:
        vocab_size, sos_id, eos_id, k = model  # as the reference takes them

        def bigrams(sentence: list[int]) -> list[tuple[int, int]]:
            start = [] if framing == "no sos" else [sos_id]
            end = [] if framing == "no eos" else [eos_id]
            framed = [*start, *sentence, *end]
            return list(zip(framed, framed[1:], strict=False))

        together = Counter(pair for sentence in train for pair in bigrams(sentence))
        as_context = Counter(context for context, _ in together.elements())
        seen = {token for sentence in train for token in sentence} | {sos_id, eos_id}
        size = len(seen) if vocabulary == "seen" else vocab_size
        nll = [
            -math.log((together[pair] + k) / (as_context[pair[0]] + k * size))
            for sentence in test
            for pair in bigrams(sentence)
        ]
        return math.exp(math.fsum(nll) / len(nll))

    return answer


register(
    Question(
        id="ch01.q6",
        title="Perplexity of an add-k smoothed bigram model",
        points=2,
        answer_name="bigram_perplexity",
        reference=_bigram_perplexity_reference,
        make_cases=_bigram_cases,
        forbidden=(NGramLanguageModel,),
        mistakes=(
            Mistake(
                "the sentences are not closed by <eos>; frame each as <sos> x_1 .. x_n <eos> and "
                "predict <eos> too",
                bigram_perplexity_with(framing="no eos"),
            ),
            Mistake(
                "the sentences do not start with <sos>; frame each as <sos> x_1 .. x_n <eos>, so "
                "that x_1 is predicted from <sos>",
                bigram_perplexity_with(framing="no sos"),
            ),
            Mistake(
                "|V| counts only the ids seen in training; k |V| uses vocab_size, every id",
                bigram_perplexity_with(vocabulary="seen"),
            ),
        ),
    )
)
