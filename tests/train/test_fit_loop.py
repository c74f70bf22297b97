"""fit trains, validates, computes metrics, steps schedulers and records a History."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import torch
from torch import nn
from toy_regression import Batch, fit_toy, make_batches, mse

from coursekit.train import History, PooledMetric, mean_batch_loss


def test_loss_decreases_on_a_tiny_problem(
    model: nn.Module, train_batches: list[Batch], valid_batches: list[Batch]
) -> None:
    initial_valid = mean_batch_loss(model, valid_batches, mse)
    history = fit_toy(model, train_batches, epochs=5, valid_batches=valid_batches)
    assert history.epochs == 5
    assert len(history.step_loss) == len(history.grad_norm) == 5 * len(train_batches)
    assert history.train_loss[-1] < history.train_loss[0] / 10
    assert history.val_loss[-1] < initial_valid / 10
    assert history.train_loss[0] == pytest.approx(sum(history.step_loss[:6]) / 6)
    assert history.best_epoch == 5 and not history.stopped_early
    assert history.val_loss[-1] == pytest.approx(mean_batch_loss(model, valid_batches, mse))


def test_model_mode_is_given_back(model: nn.Module, train_batches: list[Batch]) -> None:
    modes = []

    def loss_fn(model: nn.Module, batch: Batch) -> torch.Tensor:
        modes.append(model.training)
        return mse(model, batch)

    model.eval()
    fit_toy(model, train_batches, loss_fn=loss_fn)
    assert all(modes) and not model.training


def test_progress_bar_shows_the_loss(
    model: nn.Module, train_batches: list[Batch], capsys: pytest.CaptureFixture[str]
) -> None:
    fit_toy(model, train_batches, epochs=2, log_every=2, progress=True)
    assert capsys.readouterr().err == ""  # not a terminal: tqdm stays silent
    fit_toy(model, train_batches)
    assert capsys.readouterr().err == ""


class CountedBatches:
    """Validation batches that count how often they are read."""

    def __init__(self, batches: list[Batch]) -> None:
        self.batches = batches
        self.passes = 0

    def __iter__(self) -> Iterator[Batch]:
        self.passes += 1
        return iter(self.batches)


def test_the_loss_and_every_metric_come_from_one_pass_in_eval_mode(
    model: nn.Module, train_batches: list[Batch], valid_batches: list[Batch]
) -> None:
    seen: list[tuple[str, int, bool, bool]] = []

    def index_of(batch: Batch) -> int:
        return next(i for i, b in enumerate(valid_batches) if torch.equal(b[0], batch[0]))

    def loss_fn(model: nn.Module, batch: Batch) -> torch.Tensor:
        if not model.training:
            seen.append(("loss", index_of(batch), model.training, torch.is_grad_enabled()))
        return mse(model, batch)

    def absolute_errors(model: nn.Module, batch: Batch) -> tuple[torch.Tensor, int]:
        seen.append(("mae", index_of(batch), model.training, torch.is_grad_enabled()))
        x, y = batch
        return (model(x) - y).abs().sum(), y.numel()

    def largest_weight(model: nn.Module) -> float:
        seen.append(("largest", -1, model.training, torch.is_grad_enabled()))
        return float(model.weight.abs().max())

    counted = CountedBatches(valid_batches)
    history = fit_toy(
        model,
        train_batches,
        loss_fn=loss_fn,
        epochs=3,
        valid_batches=counted,
        metrics={"mae": PooledMetric(absolute_errors), "largest": largest_weight},
    )
    assert counted.passes == 3
    one_epoch = [("loss", 0, False, False), ("mae", 0, False, False)]
    one_epoch += [("loss", 1, False, False), ("mae", 1, False, False)]
    one_epoch += [("largest", -1, False, False)]
    assert seen == one_epoch * 3
    with torch.no_grad():
        errors = [(model(x) - y).abs() for x, y in valid_batches]
    pooled = float(sum(e.sum() for e in errors) / sum(e.numel() for e in errors))
    assert history.metrics["mae"][-1] == pytest.approx(pooled, rel=1e-6)
    assert history.metrics["largest"][-1] == float(model.weight.detach().abs().max())


def test_a_pooled_metric_weights_every_item_equally() -> None:
    metric = PooledMetric(lambda model, batch: (sum(batch), len(batch)))
    metric.reset()
    for batch in ([1.0, 2.0, 3.0], [10.0]):
        metric.update(nn.Identity(), batch)
    assert metric.compute() == 16.0 / 4  # not the mean of the batch means, (2 + 10) / 2
    metric.reset()
    with pytest.raises(ValueError, match="has seen no batch"):
        metric.compute()


def test_step_and_epoch_schedulers(model: nn.Module, train_batches: list[Batch]) -> None:
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    fit_toy(model, train_batches, optimizer=optimizer, epochs=3, scheduler=scheduler)
    assert optimizer.param_groups[0]["lr"] == pytest.approx(0.5**3)

    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.9)
    fit_toy(
        model,
        train_batches,
        optimizer=optimizer,
        epochs=2,
        scheduler=scheduler,
        scheduler_interval="step",
    )
    assert optimizer.param_groups[0]["lr"] == pytest.approx(0.9 ** (2 * len(train_batches)))


def test_reduce_on_plateau_receives_the_monitored_value(
    model: nn.Module, train_batches: list[Batch], valid_batches: list[Batch]
) -> None:
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(
        optimizer, mode="max", patience=0, factor=0.1
    )
    fit_toy(
        model,
        train_batches,
        lr=0.0,
        epochs=3,
        valid_batches=valid_batches,
        metrics={"constant": lambda model: 1.0},
        monitor="constant",
        scheduler=scheduler,
    )
    # no improvement after the first epoch, patience 0: reduced at epochs 2 and 3
    assert optimizer.param_groups[0]["lr"] == pytest.approx(0.01)


@dataclass
class PairBatch:
    """A batch type of its own, moved by its ``to`` method."""

    x: torch.Tensor
    y: torch.Tensor
    moved_to: list[str]

    def to(self, device: torch.device) -> PairBatch:
        self.moved_to.append(str(device))
        return PairBatch(self.x.to(device), self.y.to(device), self.moved_to)


def test_batches_with_a_to_method_and_explicit_device(model: nn.Module) -> None:
    moved: list[str] = []
    batches = [PairBatch(x, y, moved) for x, y in make_batches(seed=3, num_batches=2)]
    history = fit_toy(
        model,
        batches,
        loss_fn=lambda model, batch: mse(model, (batch.x, batch.y)),
        epochs=2,
        device="cpu",
    )
    assert moved == ["cpu"] * 4
    assert isinstance(history, History) and history.val_loss == [] and history.best_epoch is None


def test_works_with_a_shuffling_dataloader(model: nn.Module) -> None:
    x = torch.randn(40, 3, generator=torch.Generator().manual_seed(0))
    dataset = torch.utils.data.TensorDataset(x, x.sum(dim=1, keepdim=True))
    loader = torch.utils.data.DataLoader(dataset, batch_size=8, shuffle=True)
    history = fit_toy(model, loader, epochs=3)
    assert len(history.step_loss) == 15
    assert history.train_loss[-1] < history.train_loss[0]


def test_model_mode_is_given_back_when_training_fails(
    model: nn.Module, train_batches: list[Batch]
) -> None:
    def failing_loss(model: nn.Module, batch: Batch) -> torch.Tensor:
        raise RuntimeError("out of memory")

    model.eval()
    with pytest.raises(RuntimeError, match="out of memory"):
        fit_toy(model, train_batches, loss_fn=failing_loss)
    assert not model.training
