"""Early stopping: keep the best weights, stop when they stop improving (Chapter 3, LSTM and GRU).

A model trained long enough fits its training data ever better while its validation loss turns
back up. Early stopping watches a validation quantity after every epoch, remembers the weights of
the best epoch, and stops once ``patience`` epochs in a row brought no improvement.
"""

from __future__ import annotations

from typing import Any, Literal

import torch
from torch import nn

from coursekit.arguments import require_positive_int

Mode = Literal["min", "max"]


class EarlyStopping:
    """Track the best value of a monitored quantity and the weights that achieved it.

    ``mode="min"`` for a loss, ``"max"`` for an accuracy or BLEU. A value improves on the best
    only if strictly better. ``patience=None`` tracks the best epoch without ever stopping; with
    ``keep_best_weights=False`` the weights are not copied and :meth:`restore_best` does nothing.
    """

    def __init__(
        self, mode: Mode = "min", patience: int | None = None, keep_best_weights: bool = True
    ) -> None:
        if mode not in ("min", "max"):
            raise ValueError(f"mode must be 'min' or 'max', got {mode!r}")
        if patience is not None:
            require_positive_int("patience", patience)
        self.mode = mode
        self.patience = patience
        self.keep_best_weights = keep_best_weights
        self.best_value: float | None = None
        self.best_epoch: int | None = None
        self.best_state: dict[str, torch.Tensor] | None = None
        self.epochs_without_improvement = 0

    def is_improvement(self, value: float) -> bool:
        """Whether ``value`` is strictly better than the best so far (the first value always is)."""
        if self.best_value is None:
            return True
        return value < self.best_value if self.mode == "min" else value > self.best_value

    def update(self, value: float, epoch: int, model: nn.Module) -> bool:
        """Record the value of ``epoch``; on improvement copy the model's weights (if kept).
        Returns whether it improved.
        """
        if self.is_improvement(value):
            self.best_value, self.best_epoch = value, epoch
            if self.keep_best_weights:
                self.best_state = {
                    name: tensor.detach().clone() for name, tensor in model.state_dict().items()
                }
            self.epochs_without_improvement = 0
            return True
        self.epochs_without_improvement += 1
        return False

    @property
    def should_stop(self) -> bool:
        """True once ``patience`` epochs in a row have not improved."""
        return self.patience is not None and self.epochs_without_improvement >= self.patience

    def restore_best(self, model: nn.Module) -> None:
        """Load the best weights seen into ``model`` (nothing happens before the first update)."""
        if self.best_state is not None:
            model.load_state_dict(self.best_state)

    def state_dict(self) -> dict[str, Any]:
        """Everything needed to continue tracking after a restart (saved in checkpoints)."""
        return {
            "best_value": self.best_value,
            "best_epoch": self.best_epoch,
            "best_state": self.best_state,
            "epochs_without_improvement": self.epochs_without_improvement,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Continue from :meth:`state_dict`'s output."""
        self.best_value = state["best_value"]
        self.best_epoch = state["best_epoch"]
        self.best_state = state["best_state"]
        self.epochs_without_improvement = state["epochs_without_improvement"]
