"""Running a model for evaluation: batches on the right device, eval mode, no gradients.

Every chapter evaluates a model the same way (Chapter 1, Text as sequences): switch off dropout
with ``model.eval()``, stop recording the autograd graph with ``torch.no_grad()``, move each batch
to the model's device, and put the model back in the mode it was in. The loss and the metrics
of :func:`coursekit.train.fit` come from one pass over the batches, and the host reads the
device's numbers once, at the end of the pass.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import torch
from torch import nn

from coursekit.runtime import evaluating, model_device, move_to_device
from coursekit.train.batch_metrics import Metric
from coursekit.train.device_values import to_host

ModelT = TypeVar("ModelT", bound=nn.Module)
LossFunction = Callable[[ModelT, Any], torch.Tensor]
"""``loss_fn(model, batch)``: the scalar loss of one batch."""
ModelMeasure = Callable[[ModelT], float]
"""A metric measured on the model alone, once per epoch (e.g. the accuracy on another split)."""


def evaluate(
    model: ModelT,
    batches: Iterable[Any],
    loss_fn: LossFunction[ModelT],
    metrics: Mapping[str, Metric | ModelMeasure[ModelT]] | None = None,
    device: torch.device | str | None = None,
) -> tuple[float, dict[str, float]]:
    """The mean batch loss ``(1/N) sum_b loss_fn(model, batch_b)`` and every metric, from one
    pass over ``batches`` in eval mode without gradients (Chapter 1).

    A :class:`Metric` is updated with each batch right after its loss; a function of the model
    alone is called once, after the pass. Batches go to ``device`` (default: the model's).
    """
    device = model_device(model) if device is None else torch.device(device)
    metrics = metrics or {}
    accumulators = [metric for metric in metrics.values() if isinstance(metric, Metric)]
    losses = []
    with evaluating(model):
        for metric in accumulators:
            metric.reset()
        for batch in batches:
            batch = move_to_device(batch, device)
            losses.append(loss_fn(model, batch))
            for metric in accumulators:
                metric.update(model, batch)
        if not losses:
            raise ValueError("the evaluation batches are empty: pass at least one batch")
        values = {
            name: metric.compute() if isinstance(metric, Metric) else float(metric(model))
            for name, metric in metrics.items()
        }
    return sum(to_host(losses)) / len(losses), values


def mean_batch_loss(
    model: ModelT,
    batches: Iterable[Any],
    loss_fn: LossFunction[ModelT],
    device: torch.device | str | None = None,
) -> float:
    """The mean of ``loss_fn(model, batch)`` over ``batches``, in eval mode without gradients.

    Each batch counts once, whatever its size: this is the validation loss that
    :func:`coursekit.train.fit` records (Chapter 1). For a loss per token over batches of
    different lengths use :func:`coursekit.metrics.evaluate_perplexity`.
    """
    return evaluate(model, batches, loss_fn, device=device)[0]
