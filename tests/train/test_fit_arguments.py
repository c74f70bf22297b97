"""fit rejects bad arguments before training, with a message that says what to change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from torch import nn
from toy_regression import Batch, fit_toy

from coursekit.train import PooledMetric


def constant_counts(model: nn.Module, batch: Batch) -> tuple[float, float]:
    return 1.0, 1.0


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"epochs": 0}, "epochs must be a positive integer, got 0"),
        ({"epochs": 2.5}, "epochs must be a positive integer"),
        ({"monitor": "valid_loss"}, "unknown monitor 'valid_loss': choose one of"),
        ({"mode": "minimum"}, "mode must be 'min' or 'max'"),
        ({"max_grad_norm": 0.0}, "max_grad_norm must be a finite number > 0"),
        ({"log_every": 0}, "log_every must be a positive integer"),
        ({"scheduler_interval": "batch"}, "scheduler_interval must be 'epoch' or 'step'"),
        ({"metrics": {"acc": PooledMetric(constant_counts)}}, "pass valid_batches too"),
        ({"early_stopping_patience": 2}, "'val_loss', which needs valid_batches"),
        ({"early_stopping_patience": 0, "monitor": "train_loss"}, "patience must be"),
        ({"resume": True}, "resume=True needs the checkpoint_path"),
        ({"resume": "if-exists"}, "resume='if-exists' needs the checkpoint_path"),
        ({"resume": "yes"}, "resume must be False, True or 'if-exists', got 'yes'"),
    ],
)
def test_bad_arguments(
    model: nn.Module, train_batches: list[Batch], options: dict[str, Any], message: str
) -> None:
    before = model.weight.detach().clone()
    with pytest.raises(ValueError, match=message):
        fit_toy(model, train_batches, **options)
    assert torch.equal(model.weight, before)  # nothing was trained


def test_resume_from_a_missing_checkpoint_names_the_path_and_the_fix(
    model: nn.Module, train_batches: list[Batch], tmp_path: Path
) -> None:
    missing = tmp_path / "runs" / "missing.pt"
    before = model.weight.detach().clone()
    with pytest.raises(FileNotFoundError) as error:
        fit_toy(model, train_batches, checkpoint_path=missing, resume=True)
    assert f"no checkpoint at {missing}" in str(error.value)
    assert "resume='if-exists'" in str(error.value)
    assert torch.equal(model.weight, before) and not missing.exists()


def test_a_metric_of_model_and_batches_is_explained(
    model: nn.Module, train_batches: list[Batch], valid_batches: list[Batch]
) -> None:
    with pytest.raises(TypeError, match=r"metrics\['acc'\] is a function that does not take"):
        fit_toy(
            model,
            train_batches,
            valid_batches=valid_batches,
            metrics={"acc": lambda model, batches: 1.0},
        )
    with pytest.raises(TypeError, match=r"metrics\['acc'\] must be a Metric or a function"):
        fit_toy(model, train_batches, valid_batches=valid_batches, metrics={"acc": 0.5})


def test_reduce_on_plateau_needs_epochs(model: nn.Module, train_batches: list[Batch]) -> None:
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
    with pytest.raises(ValueError, match="scheduler_interval='epoch'"):
        fit_toy(
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
        fit_toy(model, train_batches, loss_fn=per_example)


def test_a_generator_of_batches_runs_dry(model: nn.Module, train_batches: list[Batch]) -> None:
    with pytest.raises(ValueError, match="yielded no batch in epoch 2"):
        fit_toy(model, (batch for batch in train_batches), epochs=2)
