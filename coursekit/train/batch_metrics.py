"""Metrics that :func:`coursekit.train.fit` computes in the same pass as the validation loss.

Chapter 1, Text as sequences. Most metrics of the course pool a count over the validation
batches before dividing: accuracy is the number of right predictions over the number of
predictions, perplexity is ``exp`` of the summed negative log-likelihood over the number of
tokens. A :class:`Metric` is such an accumulator: ``fit`` resets it, updates it with every
validation batch right after that batch's loss, and reads it once at the end, so the validation
batches are read once per epoch whatever the number of metrics. :class:`PooledMetric` builds
one from a function of one batch:

    value = finish(sum_b a_b, sum_b n_b),    by default  sum_b a_b / sum_b n_b.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from torch import Tensor, nn

from coursekit.train.device_values import to_host

Number = Tensor | float
BatchCounts = Callable[[Any, Any], tuple[Number, Number]]
"""``counts(model, batch) -> (a_b, n_b)``; the model is any ``nn.Module`` of the run."""
Finish = Callable[[float, Any], float]
"""``finish(sum_b a_b, sum_b n_b)``: the sums as Python numbers (ints for integer counts)."""


@runtime_checkable
class Metric(Protocol):
    """An accumulator over the validation batches of one epoch (Chapter 1): ``reset()`` before
    the pass, ``update(model, batch)`` for every batch (in eval mode, without gradients, the
    batch already on the model's device), ``compute()`` for the epoch's value.
    """

    def reset(self) -> None: ...

    def update(self, model: nn.Module, batch: Any) -> None: ...

    def compute(self) -> float: ...


def ratio(total: float, count: float) -> float:
    """``total / count``: the pooled mean of :class:`PooledMetric`."""
    return total / count


class PooledMetric:
    """``value = finish(sum_b a_b, sum_b n_b)`` where ``counts(model, batch)`` returns the pair
    ``(a_b, n_b)`` of one validation batch (Chapter 1, Text as sequences).

    By default ``finish`` divides, giving a mean in which every item counts once however the
    batches are sized: ``counts`` returns (right predictions, predictions) for an accuracy.
    ``PooledMetric(next_token_nll, finish=coursekit.metrics.perplexity)`` is the perplexity
    ``exp(sum_b NLL_b / sum_b N_b)``. Tensors stay on the device until :meth:`compute`.
    """

    def __init__(self, counts: BatchCounts, finish: Finish = ratio) -> None:
        self.counts = counts
        self.finish = finish
        self.totals: list[Number] = []
        self.sizes: list[Number] = []

    def __repr__(self) -> str:
        name = getattr(self.counts, "__name__", repr(self.counts))
        return f"PooledMetric({name}, finish={getattr(self.finish, '__name__', self.finish)})"

    def reset(self) -> None:
        """Forget the batches of the previous epoch."""
        self.totals, self.sizes = [], []

    def update(self, model: nn.Module, batch: Any) -> None:
        """Record ``(a_b, n_b) = counts(model, batch)``."""
        total, size = self.counts(model, batch)
        self.totals.append(total)
        self.sizes.append(size)

    def compute(self) -> float:
        """``finish(sum_b a_b, sum_b n_b)`` over the batches since :meth:`reset`."""
        if not self.totals:
            raise ValueError(f"{self!r} has seen no batch: update it before compute()")
        return float(self.finish(sum(to_host(self.totals)), sum(to_host(self.sizes))))
