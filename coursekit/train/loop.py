"""``fit``: the one training loop of the course (Chapter 1, Text as sequences).

Every chapter trains its models with the same loop, so that what changes from chapter to chapter
is the model and its loss, never the plumbing. One optimizer step is

    loss = loss_fn(model, batch);  g = grad(loss);  g <- clip(g);  theta <- optimizer(theta, g),

and after each epoch the loop validates, tracks the best epoch, steps the scheduler, and saves a
checkpoint from which an interrupted run resumes exactly where it stopped.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sized
from typing import Any, Literal

import torch
from torch import nn
from torch.optim.lr_scheduler import ReduceLROnPlateau
from tqdm.auto import tqdm

from coursekit.runtime import get_device, modes_restored, move_to_device
from coursekit.train.batch_metrics import Metric
from coursekit.train.checkpoint import load_checkpoint, save_checkpoint
from coursekit.train.clipping import clip_gradients_on_device
from coursekit.train.early_stopping import EarlyStopping, Mode
from coursekit.train.evaluation import LossFunction, ModelMeasure, ModelT, evaluate
from coursekit.train.fit_arguments import Resume, require_fit_arguments, require_resume
from coursekit.train.history import History
from coursekit.train.rng import capture_rng_state, data_generators, restore_rng_state
from coursekit.train.step_log import StepLog


def fit(
    model: ModelT,
    train_batches: Iterable[Any],
    *,
    loss_fn: LossFunction[ModelT],
    optimizer: torch.optim.Optimizer,
    epochs: int,
    valid_batches: Iterable[Any] | None = None,
    metrics: Mapping[str, Metric | ModelMeasure[ModelT]] | None = None,
    max_grad_norm: float | None = None,
    scheduler: Any | None = None,
    scheduler_interval: Literal["epoch", "step"] = "epoch",
    device: torch.device | str | None = None,
    early_stopping_patience: int | None = None,
    monitor: str = "val_loss",
    mode: Mode = "min",
    checkpoint_path: str | os.PathLike[str] | None = None,
    resume: Resume = False,
    progress: bool = True,
    log_every: int = 10,
) -> History:
    """Train ``model`` for ``epochs`` epochs and return its :class:`History` (Chapter 1).

    - ``loss_fn(model, batch)`` returns the scalar loss of a batch, so one loop serves
      classifiers, language models and seq2seq models alike. Batches are moved to ``device``
      (default :func:`coursekit.get_device`) with ``.to(device)``, also inside tuples and dicts.
    - ``max_grad_norm=c`` rescales the gradients to global norm at most ``c``
      (``torch.nn.utils.clip_grad_norm_``'s ``max_norm``); the norm before clipping is recorded
      at every step in ``history.grad_norm``.
    - The step losses and norms stay on the device and are read every ``log_every`` steps and
      at the end of each epoch, so a GPU never waits for the host between steps; a non-finite
      norm under clipping raises at that read, naming its step.
    - ``scheduler`` steps after every epoch (``scheduler_interval="step"``: after every optimizer
      step); a ``ReduceLROnPlateau`` is given the monitored value.
    - After each epoch, in eval mode without gradients and in ONE pass over ``valid_batches``:
      ``val_loss`` (the mean of ``loss_fn`` over the batches) and every :class:`Metric` in
      ``metrics``, e.g. ``PooledMetric(lambda model, batch: (right, total))``, updated with each
      batch. A ``metrics`` entry may also be a function ``metric(model) -> float``, called once
      after the pass, for a measurement on other data.
    - ``monitor`` (``"val_loss"``, ``"train_loss"`` or a metric's name) and ``mode``
      (``"min"``/``"max"``) define the best epoch; ``early_stopping_patience=p`` stops after p
      epochs without improvement and gives back the model with its best weights.
    - ``checkpoint_path``: after each epoch, model, optimizer, scheduler, history, best weights
      and every random generator state are saved atomically. ``resume=True`` continues from that
      checkpoint (a missing one is an error) and ends with exactly the weights and history of an
      uninterrupted run; ``resume="if-exists"`` continues when the checkpoint exists and starts
      from scratch otherwise. Shuffling DataLoaders must be rebuilt as in the interrupted run.
    - ``progress`` shows a tqdm bar (in a terminal or a notebook) whose loss is the mean of the
      last ``log_every`` steps.

    The model is given back in the train/eval mode it had, even when training fails.
    """
    metrics = dict(metrics or {})
    require_fit_arguments(
        epochs=epochs,
        valid_batches=valid_batches,
        metrics=metrics,
        max_grad_norm=max_grad_norm,
        scheduler=scheduler,
        scheduler_interval=scheduler_interval,
        early_stopping_patience=early_stopping_patience,
        monitor=monitor,
        log_every=log_every,
    )
    resume_from = require_resume(resume, checkpoint_path)
    tracker = EarlyStopping(
        mode, early_stopping_patience, keep_best_weights=early_stopping_patience is not None
    )
    device = get_device() if device is None else torch.device(device)
    model.to(device)
    history = History(metrics={name: [] for name in metrics})
    monitor_available = monitor == "train_loss" or valid_batches is not None
    generators = data_generators(train_batches, valid_batches)
    completed_epochs = 0
    if resume_from is not None:
        state = load_checkpoint(resume_from)
        history = _restore(state, model, optimizer, scheduler, tracker, generators, metrics)
        completed_epochs = state["epoch"]

    steps_per_epoch = len(train_batches) if isinstance(train_batches, Sized) else None
    total_steps = None if steps_per_epoch is None else steps_per_epoch * epochs
    done_steps = 0 if steps_per_epoch is None else steps_per_epoch * completed_epochs
    bar = tqdm(
        total=total_steps, initial=done_steps, unit="step", disable=None if progress else True
    )
    step_log = StepLog(history, check_norms=max_grad_norm is not None)
    with modes_restored(model), bar:
        for epoch in range(completed_epochs + 1, epochs + 1):
            if history.stopped_early:
                break
            bar.set_description(f"epoch {epoch}/{epochs}")
            model.train()
            step_losses = _train_one_epoch(
                model, train_batches, loss_fn, optimizer, scheduler, scheduler_interval,
                max_grad_norm, device, step_log, bar, log_every,
            )  # fmt: skip
            if not step_losses:
                raise ValueError(
                    f"train_batches yielded no batch in epoch {epoch}: pass something that can be "
                    "iterated again every epoch (a list or a DataLoader), not a generator"
                )
            history.train_loss.append(sum(step_losses) / len(step_losses))
            if valid_batches is not None:
                val_loss, values = evaluate(model, valid_batches, loss_fn, metrics, device)
                history.val_loss.append(val_loss)
                for name, value in values.items():
                    history.metrics[name].append(value)
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
    model: ModelT,
    train_batches: Iterable[Any],
    loss_fn: LossFunction[ModelT],
    optimizer: torch.optim.Optimizer,
    scheduler: Any | None,
    scheduler_interval: str,
    max_grad_norm: float | None,
    device: torch.device,
    step_log: StepLog,
    bar: tqdm,
    log_every: int,
) -> list[float]:
    """One pass over the training batches; returns the loss of every step. Nothing is read
    from the device but every ``log_every`` steps and at the end."""
    step_losses: list[float] = []
    for step, batch in enumerate(train_batches, start=1):
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model, move_to_device(batch, device))
        _require_scalar_loss(loss)
        loss.backward()
        grad_norm = clip_gradients_on_device(model.parameters(), max_grad_norm)
        optimizer.step()
        if scheduler is not None and scheduler_interval == "step":
            scheduler.step()
        step_log.record(loss, grad_norm)
        bar.update(1)
        if step % log_every == 0:
            step_losses += step_log.flush()
            bar.set_postfix(loss=f"{sum(step_losses[-log_every:]) / log_every:.4f}")
    return step_losses + step_log.flush()


def _require_scalar_loss(loss: Any) -> None:
    """``loss_fn`` must give one number per batch, as a tensor that autograd can differentiate."""
    if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
        raise TypeError(
            "loss_fn(model, batch) must return a scalar tensor (reduce the loss with a mean "
            f"or a sum), got {type(loss).__name__} of shape {getattr(loss, 'shape', None)}"
        )


def _epoch_summary(history: History) -> dict[str, str]:
    """The last epoch's losses and metrics, formatted for the progress bar."""
    summary = {"train_loss": history.train_loss[-1]}
    if history.val_loss:
        summary["val_loss"] = history.val_loss[-1]
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
    metrics: Mapping[str, Metric | ModelMeasure],
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
