"""accuracy from logits or predictions, with padding ignored."""

from __future__ import annotations

import pytest
import torch

from coursekit.metrics import accuracy


def count_correct(predictions: list[int], targets: list[int], ignore: int | None) -> float:
    kept = [(p, t) for p, t in zip(predictions, targets, strict=True) if t != ignore]
    return sum(p == t for p, t in kept) / len(kept)


def test_from_logits_takes_the_argmax() -> None:
    logits = torch.tensor([[2.0, 1.0, 0.0], [0.0, 0.5, 3.0], [1.0, 4.0, 0.0], [9.0, 0.0, 0.0]])
    targets = torch.tensor([0, 2, 0, 1])
    assert accuracy(logits, targets) == 0.5


def test_matches_a_plain_count_on_random_sequences() -> None:
    generator = torch.Generator().manual_seed(0)
    logits = torch.randn(8, 12, 5, generator=generator)
    targets = torch.randint(0, 5, (8, 12), generator=generator)
    predictions = logits.argmax(-1)
    for ignore in (None, 0):
        expected = count_correct(predictions.flatten().tolist(), targets.flatten().tolist(), ignore)
        assert accuracy(logits, targets, ignore_index=ignore) == pytest.approx(expected)
        assert accuracy(predictions, targets, ignore_index=ignore) == pytest.approx(expected)


def test_padding_counts_neither_right_nor_wrong() -> None:
    predictions = torch.tensor([[1, 2, 0, 0], [3, 3, 3, 0]])
    targets = torch.tensor([[1, 5, 0, 0], [3, 3, 4, -100]])
    assert accuracy(predictions, targets, ignore_index=-100) == pytest.approx(5 / 7)
    assert accuracy(predictions[:1], targets[:1], ignore_index=0) == 0.5


def test_bad_input() -> None:
    with pytest.raises(TypeError, match="ambiguous"):
        accuracy(torch.rand(4), torch.tensor([0, 1, 0, 1]))
    with pytest.raises(ValueError, match="expected scores of shape"):
        accuracy(torch.rand(3, 2), torch.tensor([0, 1]))
    with pytest.raises(ValueError, match="every target equals ignore_index"):
        accuracy(torch.tensor([1, 1]), torch.tensor([0, 0]), ignore_index=0)
