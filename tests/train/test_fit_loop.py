"""fit trains, validates, computes metrics, steps schedulers and records a History."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import torch
from torch import nn
from toy_regression import Batch, make_batches, mse

from coursekit.train import History, fit, mean_batch_loss


def test_loss_decreases_on_a_tiny_problem(
    model: nn.Module, train_batches: list[Batch], valid_batches: list[Batch]
) -> None:
    initial_valid = mean_batch_loss(model, valid_batches, mse)
    history = fit(
        model,
        train_batches,
        loss_fn=mse,
        optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
        epochs=5,
        valid_batches=valid_batches,
        progress=False,
    )
    assert history.epochs == 5
    assert len(history.step_loss) == len(history.grad_norm) == 5 * len(train_batches)
    assert history.train_loss[-1] < history.train_loss[0] / 10
    assert history.valid_loss[-1] < initial_valid / 10
    assert history.train_loss[0] == pytest.approx(sum(history.step_loss[:6]) / 6)
    assert history.best_epoch == 5 and not history.stopped_early
    assert history.valid_loss[-1] == pytest.approx(mean_batch_loss(model, valid_batches, mse))


def test_model_mode_is_given_back(model: nn.Module, train_batches: list[Batch]) -> None:
    modes = []

    def loss_fn(model: nn.Module, batch: Batch) -> torch.Tensor:
        modes.append(model.training)
        return mse(model, batch)

    model.eval()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    fit(model, train_batches, loss_fn=loss_fn, optimizer=optimizer, epochs=1, progress=False)
    assert all(modes) and not model.training


def test_progress_bar_shows_the_loss(
    model: nn.Module, train_batches: list[Batch], capsys: pytest.CaptureFixture[str]
) -> None:
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    fit(model, train_batches, loss_fn=mse, optimizer=optimizer, epochs=2, log_every=2)
    quiet = capsys.readouterr().err
    assert quiet == ""  # not a terminal: tqdm stays silent
    fit(model, train_batches, loss_fn=mse, optimizer=optimizer, epochs=1, progress=False)
    assert capsys.readouterr().err == ""


def test_metrics_are_computed_on_the_validation_batches_in_eval_mode(
    model: nn.Module, train_batches: list[Batch], valid_batches: list[Batch]
) -> None:
    calls = []

    def batches_seen(model: nn.Module, batches: list[Batch]) -> float:
        calls.append((batches is valid_batches, model.training, torch.is_grad_enabled()))
        return float(len(calls))

    history = fit(
        model,
        train_batches,
        loss_fn=mse,
        optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
        epochs=3,
        valid_batches=valid_batches,
        metrics={"calls": batches_seen},
        monitor="calls",
        mode="max",
        progress=False,
    )
    assert calls == [(True, False, False)] * 3
    assert history.metrics == {"calls": [1.0, 2.0, 3.0]}
    assert history.best_epoch == 3


def test_step_and_epoch_schedulers(model: nn.Module, train_batches: list[Batch]) -> None:
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    fit(
        model,
        train_batches,
        loss_fn=mse,
        optimizer=optimizer,
        epochs=3,
        scheduler=scheduler,
        progress=False,
    )
    assert optimizer.param_groups[0]["lr"] == pytest.approx(0.5**3)

    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.9)
    fit(
        model,
        train_batches,
        loss_fn=mse,
        optimizer=optimizer,
        epochs=2,
        scheduler=scheduler,
        scheduler_interval="step",
        progress=False,
    )
    assert optimizer.param_groups[0]["lr"] == pytest.approx(0.9 ** (2 * len(train_batches)))


def test_reduce_on_plateau_receives_the_monitored_value(
    model: nn.Module, train_batches: list[Batch], valid_batches: list[Batch]
) -> None:
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(
        optimizer, mode="max", patience=0, factor=0.1
    )
    fit(
        model,
        train_batches,
        loss_fn=mse,
        optimizer=torch.optim.SGD(model.parameters(), lr=0.0),
        epochs=3,
        valid_batches=valid_batches,
        metrics={"constant": lambda model, batches: 1.0},
        monitor="constant",
        scheduler=scheduler,
        progress=False,
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
    history = fit(
        model,
        batches,
        loss_fn=lambda model, batch: mse(model, (batch.x, batch.y)),
        optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
        epochs=2,
        device="cpu",
        progress=False,
    )
    assert moved == ["cpu"] * 4
    assert isinstance(history, History) and history.valid_loss == [] and history.best_epoch is None


def test_works_with_a_shuffling_dataloader(model: nn.Module) -> None:
    x = torch.randn(40, 3, generator=torch.Generator().manual_seed(0))
    dataset = torch.utils.data.TensorDataset(x, x.sum(dim=1, keepdim=True))
    loader = torch.utils.data.DataLoader(dataset, batch_size=8, shuffle=True)
    history = fit(
        model,
        loader,
        loss_fn=mse,
        optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
        epochs=3,
        progress=False,
    )
    assert len(history.step_loss) == 15
    assert history.train_loss[-1] < history.train_loss[0]


def test_model_mode_is_given_back_when_training_fails(
    model: nn.Module, train_batches: list[Batch]
) -> None:
    def failing_loss(model: nn.Module, batch: Batch) -> torch.Tensor:
        raise RuntimeError("out of memory")

    model.eval()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(RuntimeError, match="out of memory"):
        fit(
            model,
            train_batches,
            loss_fn=failing_loss,
            optimizer=optimizer,
            epochs=1,
            progress=False,
        )
    assert not model.training
