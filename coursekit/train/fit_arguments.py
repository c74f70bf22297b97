"""What :func:`coursekit.train.fit` requires of its arguments (Chapter 1, Text as sequences).

``fit`` rejects inconsistent arguments before its first training step, with a message that
names the argument, what it expected, what it got and what to change, so that a mistake costs
no training time and the loop itself reads like the algorithm.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from torch.optim.lr_scheduler import ReduceLROnPlateau

from coursekit.arguments import require_positive_int, require_positive_number
from coursekit.train.batch_metrics import Metric
from coursekit.train.evaluation import ModelMeasure

Resume = bool | Literal["if-exists"]
RESUME_CHOICES: tuple[Resume, ...] = (False, True, "if-exists")


def require_metric(name: str, metric: Metric | ModelMeasure) -> None:
    """A metric is a :class:`~coursekit.train.batch_metrics.Metric` (updated on every
    validation batch) or a function of the model alone, called once per epoch."""
    if isinstance(metric, Metric):
        return
    if not callable(metric):
        raise TypeError(
            f"metrics[{name!r}] must be a Metric or a function of the model, got "
            f"{type(metric).__name__}"
        )
    try:
        inspect.signature(metric).bind(None)
    except TypeError:
        raise TypeError(
            f"metrics[{name!r}] is a function that does not take the model as its only "
            "argument: a metric of the validation batches is a Metric, e.g. "
            "PooledMetric(lambda model, batch: (right, total)), updated in the same pass as the "
            "loss; a function metric(model) -> float is called once per epoch for a measurement "
            "on other data"
        ) from None
    except ValueError:  # a builtin without a signature: it will be called as metric(model)
        return


def require_resume(resume: Resume, checkpoint_path: str | os.PathLike[str] | None) -> Path | None:
    """The checkpoint to resume from, or None to start from scratch.

    ``resume=True`` needs an existing checkpoint; ``"if-exists"`` resumes when there is one.
    """
    if resume not in RESUME_CHOICES or not isinstance(resume, (bool, str)):
        raise ValueError(
            f"resume must be False, True or 'if-exists', got {resume!r}: True continues from "
            "checkpoint_path, 'if-exists' continues when it exists and starts afresh otherwise"
        )
    if not resume:
        return None
    if checkpoint_path is None:
        raise ValueError(f"resume={resume!r} needs the checkpoint_path to resume from")
    path = Path(checkpoint_path)
    if path.exists():
        return path
    if resume == "if-exists":
        return None
    raise FileNotFoundError(
        f"resume=True but there is no checkpoint at {path}: check checkpoint_path, or pass "
        "resume='if-exists' to start from scratch when no checkpoint exists yet"
    )


def require_fit_arguments(
    *,
    epochs: int,
    valid_batches: Iterable[Any] | None,
    metrics: Mapping[str, Metric | ModelMeasure],
    max_grad_norm: float | None,
    scheduler: Any | None,
    scheduler_interval: str,
    early_stopping_patience: int | None,
    monitor: str,
    log_every: int,
) -> None:
    """Reject inconsistent arguments before any training step, with a message that says why."""
    require_positive_int("epochs", epochs)
    if max_grad_norm is not None:
        require_positive_number("max_grad_norm", max_grad_norm)
    require_positive_int("log_every", log_every)
    if scheduler_interval not in ("epoch", "step"):
        raise ValueError(
            f"scheduler_interval must be 'epoch' or 'step', got {scheduler_interval!r}"
        )
    for name, metric in metrics.items():
        require_metric(name, metric)
    known = ["train_loss", "val_loss", *metrics]
    if monitor not in known:
        raise ValueError(f"unknown monitor {monitor!r}: choose one of {known}")
    if metrics and valid_batches is None:
        raise ValueError("metrics are computed after the validation pass: pass valid_batches too")
    needs_monitor = early_stopping_patience is not None or isinstance(scheduler, ReduceLROnPlateau)
    if needs_monitor and monitor != "train_loss" and valid_batches is None:
        raise ValueError(
            f"early stopping and ReduceLROnPlateau watch {monitor!r}, which needs valid_batches; "
            "pass valid_batches or monitor='train_loss'"
        )
    if isinstance(scheduler, ReduceLROnPlateau) and scheduler_interval == "step":
        raise ValueError(
            "ReduceLROnPlateau needs an epoch's monitored value: scheduler_interval='epoch'"
        )
