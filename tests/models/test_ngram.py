"""The count-based n-gram language model of Chapter 1."""

from __future__ import annotations

import math

import pytest
import torch

from coursekit.models import NGramLanguageModel

SOS, EOS = 0, 1
CORPUS = [[2, 3, 4], [2, 3, 3, 5], [4, 2]]


@pytest.mark.parametrize("order", [1, 2, 3])
def test_every_next_token_distribution_sums_to_one(order: int) -> None:
    model = NGramLanguageModel(order, vocab_size=6, sos_index=SOS, eos_index=EOS).fit(CORPUS)
    for context in ([], [2], [2, 3], [5, 5], [0, 4]):
        distribution = model.next_token_distribution(context)
        assert distribution.shape == (6,)
        assert math.isclose(float(distribution.sum()), 1.0, rel_tol=1e-12)


def test_bigram_probability_is_the_add_k_formula_counted_by_hand() -> None:
    model = NGramLanguageModel(2, vocab_size=6, sos_index=SOS, eos_index=EOS, add_k=0.5).fit(CORPUS)
    # token 2 is followed by 3 twice and by EOS once: count(2) = 3, count(2, 3) = 2
    assert model.probability([2], 3) == pytest.approx((2 + 0.5) / (3 + 0.5 * 6))
    assert model.probability([2], 5) == pytest.approx(0.5 / (3 + 0.5 * 6))
    # the start context [SOS] is followed by 2, 2, 4
    assert model.probability([SOS], 2) == pytest.approx((2 + 0.5) / (3 + 0.5 * 6))


def test_unigram_ignores_context_and_predicts_end_of_sequence() -> None:
    model = NGramLanguageModel(1, vocab_size=6, sos_index=SOS, eos_index=EOS).fit(CORPUS)
    tokens = 3 + 4 + 2 + len(CORPUS)  # every token plus one EOS per sequence
    assert (
        model.probability([4, 4], 3)
        == model.probability([], 3)
        == pytest.approx((3 + 1) / (tokens + 6))
    )
    assert model.probability([], EOS) == pytest.approx((3 + 1) / (tokens + 6))


def test_huge_smoothing_tends_to_the_uniform_model_whose_perplexity_is_the_vocabulary_size() -> (
    None
):
    model = NGramLanguageModel(2, vocab_size=6, sos_index=SOS, eos_index=EOS, add_k=1e12).fit(
        CORPUS
    )
    total, count = model.negative_log_likelihood(CORPUS)
    assert count == 9 + len(CORPUS)
    assert math.exp(total / count) == pytest.approx(6, rel=1e-6)


def test_more_context_fits_the_training_data_better() -> None:
    def perplexity(order: int) -> float:
        model = NGramLanguageModel(order, 6, SOS, EOS, add_k=1e-3).fit(CORPUS)
        total, count = model.negative_log_likelihood(CORPUS)
        return math.exp(total / count)

    assert perplexity(3) < perplexity(2) < perplexity(1) < 6


def test_sampling_is_reproducible_and_stops_at_end_of_sequence() -> None:
    model = NGramLanguageModel(2, 6, SOS, EOS, add_k=1e-6).fit(CORPUS)
    first = model.sample(20, generator=torch.Generator().manual_seed(3))
    assert first == model.sample(20, generator=torch.Generator().manual_seed(3))
    assert EOS not in first and SOS not in first and len(first) <= 20


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"order": 0}, "order must be a positive integer"),
        ({"add_k": 0.0}, "add_k must be a finite number > 0"),
        ({"sos_index": 9}, "below vocab_size"),
    ],
)
def test_bad_arguments_are_explained(kwargs: dict, message: str) -> None:
    arguments = {"order": 2, "vocab_size": 6, "sos_index": SOS, "eos_index": EOS, **kwargs}
    with pytest.raises(ValueError, match=message):
        NGramLanguageModel(**arguments)


def test_tokens_outside_the_vocabulary_are_rejected() -> None:
    with pytest.raises(ValueError, match="outside the vocabulary"):
        NGramLanguageModel(2, 6, SOS, EOS).fit([[2, 7]])
