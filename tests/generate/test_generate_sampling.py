"""Choosing the next token: greedy, temperature, top-k and top-p sampling (Chapter 2)."""

from __future__ import annotations

import math

import pytest
import torch

from coursekit.generate import (
    sample_next_token,
    sampling_distribution,
    top_k_filter,
    top_p_filter,
)

# probabilities 0.05, 0.3, 0.5, 0.15 at positions 0..3: sorted, the order is 2, 1, 3, 0
PROBABILITIES = torch.tensor([0.05, 0.3, 0.5, 0.15], dtype=torch.float64)
LOGITS = PROBABILITIES.log()
DRAWS = 4000


def seeded(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def random_logits(rows: int, vocab_size: int, seed: int = 0) -> torch.Tensor:
    return 3 * torch.randn(rows, vocab_size, generator=seeded(seed), dtype=torch.float64)


def draw_many(logits: torch.Tensor, seed: int = 0, **options: object) -> torch.Tensor:
    """``DRAWS`` independent tokens from the same logits ``[V]``, as one batch."""
    return sample_next_token(logits.expand(DRAWS, -1), generator=seeded(seed), **options)


def assert_frequencies_match(tokens: torch.Tensor, probabilities: torch.Tensor) -> None:
    """Each token's frequency is within 4 standard deviations of its probability."""
    frequencies = torch.bincount(tokens, minlength=len(probabilities)).double() / len(tokens)
    spread = (probabilities * (1 - probabilities) / len(tokens)).sqrt()
    assert torch.all((frequencies - probabilities).abs() <= 4 * spread + 1e-12), frequencies


def test_greedy_is_the_argmax_and_uses_no_randomness() -> None:
    logits = random_logits(50, 10)
    generator = seeded()
    state_before = generator.get_state()
    assert torch.equal(
        sample_next_token(logits, greedy=True, generator=generator), logits.argmax(1)
    )
    assert torch.equal(sample_next_token(logits, temperature=0.0), logits.argmax(1))
    assert torch.equal(generator.get_state(), state_before)


def test_shapes_and_dtype_follow_the_logits() -> None:
    assert sample_next_token(LOGITS, generator=seeded()).shape == ()
    tokens = sample_next_token(random_logits(3, 10), generator=seeded())
    assert tokens.shape == (3,) and tokens.dtype == torch.long


def test_temperature_one_samples_the_model_distribution() -> None:
    assert_frequencies_match(draw_many(LOGITS), PROBABILITIES)


def test_lower_temperature_concentrates_the_mass_on_the_argmax() -> None:
    temperatures = [4.0, 1.0, 0.5, 0.1, 0.01]
    top_mass = [float(sampling_distribution(LOGITS, t).max()) for t in temperatures]
    assert all(hotter < colder for hotter, colder in zip(top_mass, top_mass[1:], strict=False))
    assert top_mass[-1] > 1 - 1e-12
    assert torch.all(draw_many(LOGITS, temperature=0.01) == 2)
    torch.testing.assert_close(sampling_distribution(LOGITS, 0.0), torch.eye(4)[2].double())


def test_temperature_divides_the_logits_before_the_softmax() -> None:
    # P_tau(v) is proportional to p(v) ** (1 / tau)
    for temperature in (0.5, 2.0):
        powered = PROBABILITIES ** (1 / temperature)
        expected = powered / powered.sum()
        torch.testing.assert_close(sampling_distribution(LOGITS, temperature), expected)


def test_top_k_draws_only_among_the_k_most_probable_tokens() -> None:
    tokens = draw_many(LOGITS, top_k=2)
    assert set(tokens.tolist()) == {1, 2}
    kept = torch.tensor([0.0, 0.3, 0.5, 0.0], dtype=torch.float64)
    assert_frequencies_match(tokens, kept / kept.sum())


def test_top_k_larger_than_the_vocabulary_keeps_every_token() -> None:
    torch.testing.assert_close(sampling_distribution(LOGITS, top_k=100), PROBABILITIES)
    assert torch.equal(top_k_filter(LOGITS, 4), LOGITS)


@pytest.mark.parametrize(
    ("top_p", "kept_positions"),
    [(0.4, [2]), (0.75, [1, 2]), (0.85, [1, 2, 3]), (0.97, [0, 1, 2, 3]), (1.0, [0, 1, 2, 3])],
)
def test_top_p_keeps_the_smallest_most_probable_set_reaching_p(
    top_p: float, kept_positions: list[int]
) -> None:
    distribution = sampling_distribution(LOGITS, top_p=top_p)
    kept = torch.zeros(4, dtype=torch.float64)
    kept[kept_positions] = PROBABILITIES[kept_positions]
    torch.testing.assert_close(distribution, kept / kept.sum())
    assert set(draw_many(LOGITS, top_p=top_p).tolist()) == set(kept_positions)


def test_top_p_kept_set_is_minimal_on_random_distributions() -> None:
    logits = random_logits(200, 12, seed=5)
    thresholds = torch.rand(200, generator=seeded(6), dtype=torch.float64)
    for row, p in zip(logits, thresholds.tolist(), strict=True):
        probabilities = row.softmax(-1)
        kept = top_p_filter(row, p) > -math.inf
        kept_mass = float(probabilities[kept].sum())
        smallest_kept = float(probabilities[kept].min())
        assert kept_mass >= p - 1e-12
        assert kept_mass - smallest_kept < p
        if not kept.all():
            assert smallest_kept >= float(probabilities[~kept].max())


def test_top_k_is_applied_before_top_p() -> None:
    # top-k = 3 renormalises 0.5, 0.3, 0.15 to 0.526, 0.316, 0.158: reaching 0.82 needs only two
    # of them, whereas on the original distribution 0.5 + 0.3 = 0.8 < 0.82 needs three
    kept = sampling_distribution(LOGITS, top_k=3, top_p=0.82) > 0
    assert kept.tolist() == [False, True, True, False]
    assert (sampling_distribution(LOGITS, top_p=0.82) > 0).tolist() == [False, True, True, True]


def test_each_row_of_a_batch_is_filtered_on_its_own() -> None:
    logits = torch.stack([LOGITS, LOGITS.flip(0)])
    distribution = sampling_distribution(logits, top_k=1)
    torch.testing.assert_close(distribution, torch.eye(4)[[2, 1]].double())


def test_sampling_is_reproducible_with_a_seeded_generator() -> None:
    logits = random_logits(1, 30)[0]
    first = draw_many(logits, seed=3, temperature=1.5, top_p=0.9)
    assert torch.equal(first, draw_many(logits, seed=3, temperature=1.5, top_p=0.9))
    assert not torch.equal(first, draw_many(logits, seed=4, temperature=1.5, top_p=0.9))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"temperature": -0.5}, "temperature must be a finite number >= 0"),
        ({"temperature": math.nan}, "temperature must be a finite number >= 0"),
        ({"temperature": math.inf}, "temperature must be a finite number >= 0"),
        ({"top_k": 0}, "top_k must be a positive integer"),
        ({"top_k": 2.5}, "top_k must be a positive integer"),
        ({"top_p": 0.0}, r"top_p must be in \(0, 1\]"),
        ({"top_p": 1.5}, r"top_p must be in \(0, 1\]"),
    ],
)
def test_bad_sampling_options_are_explained(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        sample_next_token(LOGITS, **options)
    with pytest.raises(ValueError, match=message):
        sampling_distribution(LOGITS, **options)


@pytest.mark.parametrize(
    "logits", [torch.zeros(2, 3, 4), torch.tensor([1, 2, 3]), torch.tensor(1.0)]
)
def test_logits_must_be_floating_point_vectors_or_matrices(logits: torch.Tensor) -> None:
    with pytest.raises(ValueError, match=r"shape \[V\] or \[B, V\]"):
        sample_next_token(logits)
