"""``fit``: the one training loop of the course (Chapter 1, Text as sequences).

Every chapter trains its models with the same loop, so that what changes from chapter to chapter
is the model and its loss, never the plumbing. One optimizer step is

    loss = loss_fn(model, batch);  g = grad(loss);  g <- clip(g);  theta <- optimizer(theta, g),

and after each epoch the loop validates, tracks the best epoch, steps the scheduler, and saves a
checkpoint from which an interrupted run resumes exactly where it stopped.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

import torch
from torch import nn
from torch.optim.lr_scheduler import ReduceLROnPlateau
from tqdm.auto import tqdm

from coursekit.runtime import evaluating, get_device, modes_restored, move_to_device
from coursekit.train.checkpoint import load_checkpoint, save_checkpoint
from coursekit.train.clipping import clip_gradients
from coursekit.train.early_stopping import EarlyStopping, Mode
from coursekit.train.evaluation import mean_batch_loss
from coursekit.train.history import History
from coursekit.train.rng import capture_rng_state, data_generators, restore_rng_state

LossFunction = Callable[[nn.Module, Any], torch.Tensor]
MetricFunction = Callable[[nn.Module, Iterable[Any]], float]


def fit(
    model: nn.Module,
    train_batches: Iterable[Any],
    *,
    loss_fn: LossFunction,
    optimizer: torch.optim.Optimizer,
    epochs: int,
    valid_batches: Iterable[Any] | None = None,
    metrics: Mapping[str, MetricFunction] | None = None,
    clip_grad_norm: float | None = None,
    scheduler: Any | None = None,
    scheduler_interval: Literal["epoch", "step"] = "epoch",
    device: torch.device | str | None = None,
    early_stopping_patience: int | None = None,
    monitor: str = "valid_loss",
    mode: Mode = "min",
    checkpoint_path: str | os.PathLike[str] | None = None,
    resume: bool = False,
    progress: bool = True,
    log_every: int = 10,
) -> History:
    """Train ``model`` for ``epochs`` epochs and return its :class:`History` (Chapter 1).

    - ``loss_fn(model, batch)`` returns the scalar loss of a batch, so one loop serves
      classifiers, language models and seq2seq models alike. Batches are moved to ``device``
      (default :func:`coursekit.get_device`) with ``.to(device)``, also inside tuples and dicts.
    - ``clip_grad_norm=c`` rescales the gradients to global norm at most ``c``; the norm before
      clipping is recorded at every step in ``history.grad_norm``.
    - ``scheduler`` steps after every epoch (``scheduler_interval="step"``: after every optimizer
      step); a ``ReduceLROnPlateau`` is given the monitored value.
    - After each epoch: ``valid_loss`` (mean of ``loss_fn`` over ``valid_batches``) and each
      ``metrics[name](model, valid_batches)``, computed in eval mode without gradients.
    - ``monitor`` (``"valid_loss"``, ``"train_loss"`` or a metric's name) and ``mode``
      (``"min"``/``"max"``) define the best epoch; ``early_stopping_patience=p`` stops after p
      epochs without improvement and gives back the model with its best weights.
    - ``checkpoint_path``: after each epoch, model, optimizer, scheduler, history, best weights
      and every random generator state are saved atomically; ``resume=True`` continues from that
      checkpoint (if it exists) and ends with exactly the weights and history of an
      uninterrupted run. Shuffling DataLoaders must be rebuilt as in the interrupted run.
    - ``progress`` shows a tqdm bar (in a terminal or a notebook) whose loss is the mean of the
      last ``log_every`` steps.

    The model is given back in the train/eval mode it had, even when training fails.
    """
    metrics = dict(metrics or {})
    _check_arguments(
        epochs=epochs,
        valid_batches=valid_batches,
        metrics=metrics,
        clip_grad_norm=clip_grad_norm,
        scheduler=scheduler,
        scheduler_interval=scheduler_interval,
        early_stopping_patience=early_stopping_patience,
        monitor=monitor,
        checkpoint_path=checkpoint_path,
        resume=resume,
        log_every=log_every,
    )
    tracker = EarlyStopping(
        mode, early_stopping_patience, keep_best_weights=early_stopping_patience is not None
    )
    device = get_device() if device is None else torch.device(device)
    model.to(device)
    history = History(metrics={name: [] for name in metrics})
    monitor_available = monitor == "train_loss" or valid_batches is not None
    generators = data_generators(train_batches, valid_batches)
    completed_epochs = 0
    if resume and checkpoint_path is not None and Path(checkpoint_path).exists():
        state = load_checkpoint(checkpoint_path)
        history = _restore(state, model, optimizer, scheduler, tracker, generators, metrics)
        completed_epochs = state["epoch"]

    steps_per_epoch = len(train_batches) if hasattr(train_batches, "__len__") else None
    total_steps = None if steps_per_epoch is None else steps_per_epoch * epochs
    done_steps = 0 if steps_per_epoch is None else steps_per_epoch * completed_epochs
    bar = tqdm(
        total=total_steps, initial=done_steps, unit="step", disable=None if progress else True
    )
    with modes_restored(model), bar:
        for epoch in range(completed_epochs + 1, epochs + 1):
            if history.stopped_early:
                break
            bar.set_description(f"epoch {epoch}/{epochs}")
            model.train()
            step_losses = _train_one_epoch(
                model, train_batches, loss_fn, optimizer, scheduler, scheduler_interval,
                clip_grad_norm, device, history, bar, log_every,
            )  # fmt: skip
            if not step_losses:
                raise ValueError(
                    f"train_batches yielded no batch in epoch {epoch}: pass something that can be "
                    "iterated again every epoch (a list or a DataLoader), not a generator"
                )
            history.train_loss.append(sum(step_losses) / len(step_losses))
            if valid_batches is not None:
                _validate(model, valid_batches, loss_fn, metrics, device, history)
            if monitor_available:
                tracker.update(history.values(monitor)[-1], epoch, model)
                history.best_epoch = tracker.best_epoch
            if scheduler is not None and scheduler_interval == "epoch":
                if isinstance(scheduler, ReduceLROnPlateau):
                    scheduler.step(history.values(monitor)[-1])
                else:
                    scheduler.step()
            history.stopped_early = tracker.should_stop
            bar.set_postfix(_epoch_summary(history))
            if checkpoint_path is not None:
                state = _checkpoint_state(
                    epoch, model, optimizer, scheduler, history, tracker, generators
                )
                save_checkpoint(state, checkpoint_path)
    if early_stopping_patience is not None:
        tracker.restore_best(model)
    return history


def _train_one_epoch(
    model: nn.Module,
    train_batches: Iterable[Any],
    loss_fn: LossFunction,
    optimizer: torch.optim.Optimizer,
    scheduler: Any | None,
    scheduler_interval: str,
    clip_grad_norm: float | None,
    device: torch.device,
    history: History,
    bar: tqdm,
    log_every: int,
) -> list[float]:
    """One pass over the training batches; returns the loss of every step."""
    step_losses: list[float] = []
    for batch in train_batches:
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model, move_to_device(batch, device))
        if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
            raise TypeError(
                "loss_fn(model, batch) must return a scalar tensor (reduce the loss with a mean "
                f"or a sum), got {type(loss).__name__} of shape {getattr(loss, 'shape', None)}"
            )
        loss.backward()
        history.grad_norm.append(clip_gradients(model.parameters(), clip_grad_norm))
        optimizer.step()
        if scheduler is not None and scheduler_interval == "step":
            scheduler.step()
        step_losses.append(loss.item())
        history.step_loss.append(step_losses[-1])
        bar.update(1)
        if len(step_losses) % log_every == 0:
            bar.set_postfix(loss=f"{sum(step_losses[-log_every:]) / log_every:.4f}")
    return step_losses


def _validate(
    model: nn.Module,
    valid_batches: Iterable[Any],
    loss_fn: LossFunction,
    metrics: Mapping[str, MetricFunction],
    device: torch.device,
    history: History,
) -> None:
    """Append the epoch's validation loss and metrics to ``history`` (eval mode, no gradients)."""
    history.valid_loss.append(mean_batch_loss(model, valid_batches, loss_fn, device))
    with evaluating(model):
        for name, metric in metrics.items():
            history.metrics[name].append(float(metric(model, valid_batches)))


def _epoch_summary(history: History) -> dict[str, str]:
    """The last epoch's losses and metrics, formatted for the progress bar."""
    summary = {"train_loss": history.train_loss[-1]}
    if history.valid_loss:
        summary["valid_loss"] = history.valid_loss[-1]
    summary.update({name: values[-1] for name, values in history.metrics.items() if values})
    return {name: f"{value:.4f}" for name, value in summary.items()}


def _checkpoint_state(
    epoch: int,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    scheduler: Any | None,
    history: History,
    tracker: EarlyStopping,
    generators: list[torch.Generator],
) -> dict[str, Any]:
    """Everything a resumed run needs to continue exactly after ``epoch``."""
    return {
        "epoch": epoch,
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": None if scheduler is None else scheduler.state_dict(),
        "history": history.to_dict(),
        "early_stopping": tracker.state_dict(),
        "rng": capture_rng_state(generators),
    }


def _restore(
    state: dict[str, Any],
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    scheduler: Any | None,
    tracker: EarlyStopping,
    generators: list[torch.Generator],
    metrics: Mapping[str, MetricFunction],
) -> History:
    """Load a checkpoint of :func:`_checkpoint_state` into the run's objects; returns its history."""
    history = History.from_dict(state["history"])
    if set(history.metrics) != set(metrics):
        raise ValueError(
            f"the checkpoint was trained with metrics {sorted(history.metrics)} but this run has "
            f"{sorted(metrics)}: pass the same metrics to resume"
        )
    if (state["scheduler"] is None) != (scheduler is None):
        raise ValueError("resume with a scheduler exactly when the checkpointed run had one")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    if scheduler is not None:
        scheduler.load_state_dict(state["scheduler"])
    tracker.load_state_dict(state["early_stopping"])
    restore_rng_state(state["rng"], generators)
    return history


def _check_arguments(
    *,
    epochs: int,
    valid_batches: Iterable[Any] | None,
    metrics: Mapping[str, MetricFunction],
    clip_grad_norm: float | None,
    scheduler: Any | None,
    scheduler_interval: str,
    early_stopping_patience: int | None,
    monitor: str,
    checkpoint_path: str | os.PathLike[str] | None,
    resume: bool,
    log_every: int,
) -> None:
    """Reject inconsistent arguments before any training step, with a message that says why."""
    if isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 1:
        raise ValueError(f"epochs must be an integer >= 1, got {epochs!r}")
    if clip_grad_norm is not None and not clip_grad_norm > 0:
        raise ValueError(
            f"clip_grad_norm must be > 0 (or None for no clipping), got {clip_grad_norm}"
        )
    if not isinstance(log_every, int) or log_every < 1:
        raise ValueError(f"log_every must be an integer >= 1, got {log_every!r}")
    if scheduler_interval not in ("epoch", "step"):
        raise ValueError(
            f"scheduler_interval must be 'epoch' or 'step', got {scheduler_interval!r}"
        )
    known = ["train_loss", "valid_loss", *metrics]
    if monitor not in known:
        raise ValueError(f"unknown monitor {monitor!r}: choose one of {known}")
    if metrics and valid_batches is None:
        raise ValueError("metrics are computed on valid_batches: pass valid_batches too")
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
    if resume and checkpoint_path is None:
        raise ValueError("resume=True needs the checkpoint_path to resume from")
