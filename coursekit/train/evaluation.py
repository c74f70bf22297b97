"""Running a model for evaluation: batches on the right device, eval mode, no gradients.

Every chapter evaluates a model the same way (Chapter 1, Text as sequences): switch off dropout
with ``model.eval()``, stop recording the autograd graph with ``torch.no_grad()``, move each batch
to the model's device, and put the model back in the mode it was in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

import torch
from torch import nn

Batch = TypeVar("Batch")


def move_to_device(batch: Batch, device: torch.device | str) -> Batch:
    """Move a batch to ``device``: tensors and objects with ``.to(device)`` (a batch dataclass),
    also inside tuples, lists and mappings (returned as dicts); anything else (strings, lengths
    as ints) is returned unchanged.
    """
    if isinstance(batch, torch.Tensor) or callable(getattr(batch, "to", None)):
        return batch.to(device)  # type: ignore[attr-defined]
    if isinstance(batch, Mapping):
        return {key: move_to_device(value, device) for key, value in batch.items()}  # type: ignore[return-value]
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):  # a namedtuple
        return type(batch)(*(move_to_device(item, device) for item in batch))
    if isinstance(batch, (tuple, list)):
        return type(batch)(move_to_device(item, device) for item in batch)  # type: ignore[return-value]
    return batch


def model_device(model: nn.Module) -> torch.device:
    """The device of the model's first parameter or buffer (CPU for a model without any)."""
    for tensor in (*model.parameters(), *model.buffers()):
        return tensor.device
    return torch.device("cpu")


@contextmanager
def modes_restored(model: nn.Module) -> Iterator[nn.Module]:
    """``with modes_restored(model):`` gives back every submodule's train/eval flag as it was
    when the block started, even if the block raises.
    """
    previous_modes = [(module, module.training) for module in model.modules()]
    try:
        yield model
    finally:
        for module, was_training in previous_modes:
            module.training = was_training


@contextmanager
def evaluating(model: nn.Module) -> Iterator[nn.Module]:
    """``with evaluating(model):`` runs the block in eval mode without gradients, then restores
    the train/eval flag of every submodule as it was.
    """
    with modes_restored(model), torch.no_grad():
        model.eval()
        yield model


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
