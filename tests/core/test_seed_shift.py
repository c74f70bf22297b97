"""``COURSEKIT_SEED``: every seed a chapter draws moves with it, recorded commands do not."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

import coursekit
from coursekit import data
from coursekit.config import seed_shift, shifted
from coursekit.runtime import seed_generators_as_given, seeded_generator


def draws() -> tuple[float, float, list[float]]:
    return random.random(), float(np.random.rand()), torch.rand(3).tolist()


def test_without_the_variable_seeds_are_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COURSEKIT_SEED", "")
    assert seed_shift() == 0 and shifted(5) == 5


def test_the_shift_moves_seed_everything_generators_and_data(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COURSEKIT_SEED", "3")
    coursekit.seed_everything(4)
    moved = draws()
    seed_generators_as_given(7)
    assert draws() == moved
    assert torch.equal(
        torch.rand(4, generator=seeded_generator(1)),
        torch.rand(4, generator=torch.Generator().manual_seed(4)),
    )
    drawn_under_the_shift = data.load("sentiment", "train", n=20, seed=2)
    monkeypatch.delenv("COURSEKIT_SEED")
    assert data.load("sentiment", "train", n=20, seed=5) == drawn_under_the_shift


def test_a_shift_changes_the_data_a_chapter_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    book_seeds = data.load("sentiment", "train", n=20)
    monkeypatch.setenv("COURSEKIT_SEED", "1")
    shifted_draw = data.load("sentiment", "train", n=20)
    assert shifted_draw != book_seeds
    monkeypatch.delenv("COURSEKIT_SEED")
    assert data.load("sentiment", "train", n=20, seed=1) == shifted_draw


def test_recorded_commands_ignore_the_shift(monkeypatch: pytest.MonkeyPatch) -> None:
    seed_generators_as_given(0)
    expected = draws()
    monkeypatch.setenv("COURSEKIT_SEED", "2")
    seed_generators_as_given(0)
    assert draws() == expected


@pytest.mark.parametrize("value", ["-1", "two", "1.5"])
def test_a_shift_that_is_not_a_whole_number_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("COURSEKIT_SEED", value)
    with pytest.raises(ValueError, match="COURSEKIT_SEED=.*whole number >= 0"):
        coursekit.seed_everything()
