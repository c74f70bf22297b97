"""Running a model for evaluation: batches on the right device, eval mode, no gradients.

Every chapter evaluates a model the same way (Chapter 1, Text as sequences): switch off dropout
with ``model.eval()``, stop recording the autograd graph with ``torch.no_grad()``, move each batch
to the model's device, and put the model back in the mode it was in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import torch
from torch import nn

from coursekit.runtime import evaluating, model_device, move_to_device


def mean_batch_loss(
    model: nn.Module,
    batches: Iterable[Any],
    loss_fn: Callable[[nn.Module, Any], torch.Tensor],
    device: torch.device | str | None = None,
) -> float:
    """The mean of ``loss_fn(model, batch)`` over ``batches``, in eval mode without gradients.

    Each batch counts once, whatever its size: this is the validation loss that
    :func:`coursekit.train.fit` records (Chapter 1). For a loss per token over batches of
    different lengths use :func:`coursekit.metrics.evaluate_perplexity`.
    """
    device = model_device(model) if device is None else torch.device(device)
    total, count = 0.0, 0
    with evaluating(model):
        for batch in batches:
            total += float(loss_fn(model, move_to_device(batch, device)))
            count += 1
    if count == 0:
        raise ValueError("the evaluation batches are empty: pass at least one batch")
    return total / count
