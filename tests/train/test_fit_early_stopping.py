"""Early stopping stops after `patience` epochs without improvement and restores the best weights."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from torch import nn
from toy_regression import Batch, fit_toy

from coursekit.train import EarlyStopping


def scripted_metric(values: list[float], snapshots: list[torch.Tensor]) -> Callable[..., float]:
    """A metric of the model that returns the next scripted value and keeps a copy of the weights
    it saw."""

    def metric(model: nn.Module) -> float:
        snapshots.append(model.weight.detach().clone())
        return values[len(snapshots) - 1]

    return metric


@pytest.mark.parametrize(
    ("mode", "values", "best_epoch", "stop_epoch"),
    [
        ("min", [3.0, 2.0, 1.0, 1.5, 1.0, 4.0, 0.5], 3, 5),  # a tie is not an improvement
        ("max", [0.1, 0.5, 0.4, 0.6, 0.6, 0.6, 0.9], 4, 6),
    ],
)
def test_stops_and_restores_the_best_weights(
    model: nn.Module,
    train_batches: list[Batch],
    valid_batches: list[Batch],
    mode: str,
    values: list[float],
    best_epoch: int,
    stop_epoch: int,
) -> None:
    snapshots: list[torch.Tensor] = []
    history = fit_toy(
        model,
        train_batches,
        lr=0.05,
        epochs=len(values),
        valid_batches=valid_batches,
        metrics={"score": scripted_metric(values, snapshots)},
        monitor="score",
        mode=mode,
        early_stopping_patience=2,
    )
    assert history.stopped_early
    assert history.epochs == stop_epoch == len(snapshots)
    assert history.best_epoch == best_epoch
    assert torch.equal(model.weight, snapshots[best_epoch - 1])
    assert not torch.equal(model.weight, snapshots[-1])


def test_val_loss_is_monitored_by_default(
    model: nn.Module, train_batches: list[Batch], valid_batches: list[Batch]
) -> None:
    # A learning rate this large makes SGD diverge, so the first epoch is the best one.
    history = fit_toy(
        model,
        train_batches,
        lr=1.5,
        epochs=10,
        valid_batches=valid_batches,
        early_stopping_patience=3,
    )
    assert history.val_loss[1] > history.val_loss[0]
    assert history.best_epoch == 1 and history.stopped_early and history.epochs == 4
    assert history.val_loss[0] == min(history.val_loss)


def test_without_patience_the_last_weights_are_kept(
    model: nn.Module, train_batches: list[Batch], valid_batches: list[Batch]
) -> None:
    snapshots: list[torch.Tensor] = []
    history = fit_toy(
        model,
        train_batches,
        lr=0.05,
        epochs=4,
        valid_batches=valid_batches,
        metrics={"score": scripted_metric([4.0, 1.0, 2.0, 3.0], snapshots)},
        monitor="score",
    )
    assert history.best_epoch == 2 and not history.stopped_early
    assert torch.equal(model.weight, snapshots[-1])


def test_early_stopping_tracker() -> None:
    model = nn.Linear(1, 1)
    tracker = EarlyStopping(mode="min", patience=2)
    assert tracker.update(1.0, 1, model) and not tracker.should_stop
    with torch.no_grad():
        model.weight.fill_(7.0)
    assert not tracker.update(1.0, 2, model)
    assert not tracker.update(2.0, 3, model) and tracker.should_stop
    tracker.restore_best(model)
    assert model.weight.item() != 7.0
    with pytest.raises(ValueError, match="mode must be 'min' or 'max'"):
        EarlyStopping(mode="lowest")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="patience must be"):
        EarlyStopping(patience=0)
