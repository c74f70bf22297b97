"""What a training run records, epoch by epoch and step by step (Chapter 1, Text as sequences)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from coursekit.page import TEXT_COLUMN_WIDTH

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass
class History:
    """The record of one :func:`coursekit.train.fit` run; epochs are numbered from 1.

    Per epoch: ``train_loss`` (mean of the step losses), ``val_loss`` (mean validation batch
    loss, empty without validation batches) and ``metrics[name]``. Per optimizer step:
    ``step_loss`` and ``grad_norm``, the global gradient norm ``||g|| = sqrt(sum_i ||g_i||^2)``
    *before* clipping (Chapter 2 plots it to show exploding gradients). ``best_epoch`` is the
    epoch with the best monitored value and ``stopped_early`` tells whether early stopping ended
    the run.
    """

    train_loss: list[float] = field(default_factory=list)
    val_loss: list[float] = field(default_factory=list)
    metrics: dict[str, list[float]] = field(default_factory=dict)
    step_loss: list[float] = field(default_factory=list)
    grad_norm: list[float] = field(default_factory=list)
    best_epoch: int | None = None
    stopped_early: bool = False

    @property
    def epochs(self) -> int:
        """The number of completed epochs."""
        return len(self.train_loss)

    def values(self, name: str) -> list[float]:
        """The per-epoch values of ``"train_loss"``, ``"val_loss"`` or a metric's name."""
        if name in ("train_loss", "val_loss"):
            return getattr(self, name)
        if name in self.metrics:
            return self.metrics[name]
        known = ["train_loss", "val_loss", *self.metrics]
        raise KeyError(f"no per-epoch values named {name!r}; known: {known}")

    def to_dict(self) -> dict[str, Any]:
        """A plain dict of lists and numbers (JSON-ready; what checkpoints store)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, record: dict[str, Any]) -> History:
        """Rebuild a History from :meth:`to_dict`'s output."""
        return cls(**record)

    def plot(self) -> Figure:
        """Loss curves per epoch (and one panel per metric), the best epoch marked; returns the
        matplotlib Figure, which a notebook displays. The figure fits the book's text column.
        """
        from matplotlib.figure import Figure

        panels = [
            ("loss", ["train_loss", "val_loss"]),
            *((name, [name]) for name in self.metrics),
        ]
        width = min(TEXT_COLUMN_WIDTH, TEXT_COLUMN_WIDTH / 2 * len(panels))
        figure = Figure(figsize=(width, 3.2), layout="constrained")
        for axes, (quantity, names) in zip(
            figure.subplots(1, len(panels), squeeze=False)[0], panels, strict=True
        ):
            for name in names:
                values = self.values(name)
                if values:
                    axes.plot(range(1, len(values) + 1), values, marker="o", label=name)
            if self.best_epoch is not None:
                axes.axvline(self.best_epoch, color="grey", linestyle=":", label="best epoch")
            axes.set(xlabel="epoch", ylabel=quantity)
            axes.legend(fontsize=8)
        return figure
