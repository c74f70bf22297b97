"""The per-step record of a training run, kept on the device between reads (Chapter 1).

At every optimizer step :func:`coursekit.train.fit` records the loss and the gradient norm
before clipping. Reading either as a Python number would make the host wait for the device at
every step, so the :class:`StepLog` keeps them as 0-dimensional tensors and reads them in one
transfer every ``log_every`` steps and at the end of an epoch, when it appends them to the
:class:`~coursekit.train.history.History` and checks that every clipped norm was finite.
"""

from __future__ import annotations

from torch import Tensor

from coursekit.train.clipping import require_finite_norm
from coursekit.train.device_values import to_host
from coursekit.train.history import History


class StepLog:
    """Losses and gradient norms of the steps not yet read, flushed into ``history``.

    ``check_norms`` (the run clips its gradients) makes :meth:`flush` raise on a non-finite
    norm, naming the step (counted from 1 over the run); since the norms are read only every
    ``log_every`` steps, the steps up to that read have already updated the weights.
    """

    def __init__(self, history: History, check_norms: bool) -> None:
        self.history = history
        self.check_norms = check_norms
        self.losses: list[Tensor] = []
        self.norms: list[Tensor] = []

    def record(self, loss: Tensor, grad_norm: Tensor) -> None:
        """Keep one step's loss and norm on the device (no synchronisation)."""
        self.losses.append(loss.detach())
        self.norms.append(grad_norm.to(loss.device))

    def flush(self) -> list[float]:
        """Read the recorded steps in one transfer, append them to the history, and return
        their losses."""
        if not self.losses:
            return []
        values = to_host([*self.losses, *self.norms])
        losses, norms = values[: len(self.losses)], values[len(self.losses) :]
        first_step = len(self.history.grad_norm) + 1
        self.history.step_loss.extend(losses)
        self.history.grad_norm.extend(norms)
        self.losses, self.norms = [], []
        if self.check_norms:
            for step, norm in enumerate(norms, start=first_step):
                require_finite_norm(norm, step)
        return losses
