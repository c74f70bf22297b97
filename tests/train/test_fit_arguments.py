"""fit rejects bad arguments before training, with a message that says what to change."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from torch import nn
from toy_regression import Batch, mse

from coursekit.train import fit


def call_fit(model: nn.Module, batches: Any, **options: Any) -> Any:
    arguments: dict[str, Any] = {
        "loss_fn": mse,
        "optimizer": torch.optim.SGD(model.parameters(), lr=0.1),
        "epochs": 1,
        "progress": False,
    }
    arguments.update(options)
    return fit(model, batches, **arguments)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"epochs": 0}, "epochs must be an integer >= 1, got 0"),
        ({"epochs": 2.5}, "epochs must be an integer >= 1"),
        ({"monitor": "val_loss"}, "unknown monitor 'val_loss': choose one of"),
        ({"mode": "minimum"}, "mode must be 'min' or 'max'"),
        ({"clip_grad_norm": 0.0}, "clip_grad_norm must be > 0"),
        ({"log_every": 0}, "log_every must be an integer >= 1"),
        ({"scheduler_interval": "batch"}, "scheduler_interval must be 'epoch' or 'step'"),
        ({"metrics": {"acc": lambda model, batches: 1.0}}, "pass valid_batches too"),
        ({"early_stopping_patience": 2}, "needs valid_batches"),
        ({"early_stopping_patience": 0, "monitor": "train_loss"}, "patience must be"),
        ({"resume": True}, "resume=True needs the checkpoint_path"),
    ],
)
def test_bad_arguments(
    model: nn.Module, train_batches: list[Batch], options: dict[str, Any], message: str
) -> None:
    before = model.weight.detach().clone()
    with pytest.raises(ValueError, match=message):
        call_fit(model, train_batches, **options)
    assert torch.equal(model.weight, before)  # nothing was trained


def test_reduce_on_plateau_needs_epochs(model: nn.Module, train_batches: list[Batch]) -> None:
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
    with pytest.raises(ValueError, match="scheduler_interval='epoch'"):
        call_fit(
            model,
            train_batches,
            optimizer=optimizer,
            scheduler=plateau,
            scheduler_interval="step",
            monitor="train_loss",
        )


def test_a_loss_that_is_not_a_scalar(model: nn.Module, train_batches: list[Batch]) -> None:
    def per_example(model: nn.Module, batch: Batch) -> torch.Tensor:
        x, y = batch
        return (model(x) - y).pow(2)

    with pytest.raises(TypeError, match="must return a scalar tensor"):
        call_fit(model, train_batches, loss_fn=per_example)


def test_a_generator_of_batches_runs_dry(model: nn.Module, train_batches: list[Batch]) -> None:
    with pytest.raises(ValueError, match="yielded no batch in epoch 2"):
        call_fit(model, (batch for batch in train_batches), epochs=2)
