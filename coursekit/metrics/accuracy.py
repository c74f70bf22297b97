"""Accuracy: the fraction of predictions equal to their targets (Chapter 1, Text as sequences)."""

from __future__ import annotations

import torch


def accuracy(
    logits_or_predictions: torch.Tensor, targets: torch.Tensor, ignore_index: int | None = None
) -> float:
    """``accuracy = (1/N) * sum_i [yhat_i == y_i]`` over the ``N`` targets not equal to
    ``ignore_index`` (Chapter 1, Text as sequences).

    Pass either scores of shape ``(..., C)`` (logits or probabilities; ``yhat = argmax`` over the
    last axis) or integer predictions with the shape of ``targets``. With ``ignore_index`` set,
    padding positions count neither as right nor as wrong.
    """
    if logits_or_predictions.shape == targets.shape:
        if logits_or_predictions.is_floating_point():
            raise TypeError(
                "floating-point input with the shape of targets is ambiguous: pass class scores "
                "of shape (..., C) or integer predictions"
            )
        predictions = logits_or_predictions
    elif logits_or_predictions.shape[:-1] == targets.shape:
        predictions = logits_or_predictions.argmax(dim=-1)
    else:
        raise ValueError(
            f"expected scores of shape {(*targets.shape, 'C')} or predictions of shape "
            f"{tuple(targets.shape)} for targets of shape {tuple(targets.shape)}, got "
            f"{tuple(logits_or_predictions.shape)}"
        )
    counted = torch.ones_like(targets, dtype=torch.bool)
    if ignore_index is not None:
        counted = targets != ignore_index
    num_counted = int(counted.sum())
    if num_counted == 0:
        raise ValueError("accuracy of zero targets is undefined: every target equals ignore_index")
    correct = (predictions == targets) & counted
    return int(correct.sum()) / num_counted
