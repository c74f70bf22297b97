"""The steps of BLEU, checked on examples worked out by hand."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from coursekit.metrics import (
    BLEUScore,
    bleu_from_statistics,
    brevity_penalty,
    closest_reference_length,
    modified_precision,
    ngram_counts,
    smoothed_precisions,
)


def test_ngram_counts() -> None:
    tokens = ["the", "cat", "the", "cat"]
    assert ngram_counts(tokens, 1) == Counter({("the",): 2, ("cat",): 2})
    assert ngram_counts(tokens, 2) == Counter({("the", "cat"): 2, ("cat", "the"): 1})
    assert ngram_counts(tokens, 4) == Counter({("the", "cat", "the", "cat"): 1})
    assert ngram_counts(tokens, 5) == Counter()
    assert ngram_counts([], 1) == Counter()


def test_ngram_order_must_be_positive() -> None:
    with pytest.raises(ValueError, match="order n must be a positive integer"):
        ngram_counts(["a"], 0)


def test_modified_precision_clips_to_the_most_in_one_reference() -> None:
    # Papineni et al. (2002): "the" x7 against two references with "the" twice and once.
    hypothesis = ["the"] * 7
    references = [
        ["the", "cat", "is", "on", "the", "mat"],
        ["there", "is", "a", "cat", "on", "the", "mat"],
    ]
    assert modified_precision(hypothesis, references, 1) == (2, 7)
    assert modified_precision(hypothesis, references, 2) == (0, 6)


def test_modified_precision_sums_over_distinct_ngrams() -> None:
    hypothesis = ["a", "b", "a", "b", "c"]
    references = [["a", "a", "b"], ["b", "b", "c"]]
    # unigrams: a: min(2, 2) + b: min(2, 2) + c: min(1, 1) = 5 of 5
    assert modified_precision(hypothesis, references, 1) == (5, 5)
    # bigrams: (a, b) x2 -> 1, (b, a) -> 0, (b, c) -> 1: 2 of 4
    assert modified_precision(hypothesis, references, 2) == (2, 4)
    assert modified_precision([], references, 1) == (0, 0)


def test_brevity_penalty() -> None:
    assert brevity_penalty(10, 10) == 1.0
    assert brevity_penalty(12, 10) == 1.0
    assert brevity_penalty(5, 10) == pytest.approx(math.exp(1 - 2))
    assert brevity_penalty(0, 10) == 0.0
    assert brevity_penalty(0, 0) == 1.0
    with pytest.raises(ValueError, match=">= 0"):
        brevity_penalty(-1, 3)


def test_closest_reference_length_prefers_the_shorter_on_a_tie() -> None:
    assert closest_reference_length(5, [3, 7]) == 3
    assert closest_reference_length(5, [7, 3]) == 3
    assert closest_reference_length(5, [9, 6, 2]) == 6
    assert closest_reference_length(0, [4, 0]) == 0
    with pytest.raises(ValueError, match="at least one reference"):
        closest_reference_length(5, [])


def test_smoothing_methods() -> None:
    counts, totals = [4, 0, 0, 1], [5, 4, 3, 2]
    exp, order = smoothed_precisions(counts, totals, "exp")
    assert order == 4
    assert exp == pytest.approx([80.0, 100 / (2 * 4), 100 / (4 * 3), 50.0])
    floor, _ = smoothed_precisions(counts, totals, "floor", 0.5)
    assert floor == pytest.approx([80.0, 100 * 0.5 / 4, 100 * 0.5 / 3, 50.0])
    add_k, _ = smoothed_precisions(counts, totals, "add-k", 1)
    assert add_k == pytest.approx([80.0, 100 * 1 / 5, 100 * 1 / 4, 100 * 2 / 3])
    none, _ = smoothed_precisions(counts, totals, "none")
    assert none == [80.0, 0.0, 0.0, 50.0]
    with pytest.raises(ValueError, match="smooth_method must be one of"):
        smoothed_precisions(counts, totals, "laplace")  # type: ignore[arg-type]


def test_effective_order_stops_at_the_first_order_without_ngrams() -> None:
    precisions, order = smoothed_precisions([2, 1, 0, 0], [2, 1, 0, 0], "exp")
    assert order == 2
    assert precisions == [100.0, 100.0, 0.0, 0.0]
    with_effective = bleu_from_statistics([2, 1, 0, 0], [2, 1, 0, 0], 2, 2, effective_order=True)
    assert with_effective.score == pytest.approx(100.0)
    without = bleu_from_statistics([2, 1, 0, 0], [2, 1, 0, 0], 2, 2)
    assert without.score == 0.0


def test_bleu_is_the_geometric_mean_times_the_brevity_penalty() -> None:
    score = bleu_from_statistics([8, 6, 4, 2], [10, 9, 8, 7], sys_len=10, ref_len=12)
    mean = (0.8 * (6 / 9) * 0.5 * (2 / 7)) ** 0.25
    assert score.score == pytest.approx(100 * math.exp(1 - 12 / 10) * mean, rel=1e-12)
    assert score.ratio == pytest.approx(10 / 12)


def test_bleu_score_prints_like_sacrebleu() -> None:
    score = BLEUScore(
        score=12.3456,
        counts=(5, 3, 1, 0),
        totals=(8, 7, 6, 5),
        precisions=(62.5, 42.857, 16.667, 10.0),
        bp=0.5,
        sys_len=8,
        ref_len=16,
    )
    assert str(score) == (
        "BLEU = 12.35 62.5/42.9/16.7/10.0 (BP = 0.500 ratio = 0.500 hyp_len = 8 ref_len = 16)"
    )


def test_statistics_must_cover_the_same_orders() -> None:
    with pytest.raises(ValueError, match="one entry per n-gram order"):
        bleu_from_statistics([1, 2], [3], 1, 1)
