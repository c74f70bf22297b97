"""Moving batches to a device and evaluating a model in eval mode without gradients."""

from __future__ import annotations

from collections import namedtuple

import pytest
import torch
from torch import nn
from toy_regression import mse

from coursekit.train import evaluating, mean_batch_loss, model_device, move_to_device

Pair = namedtuple("Pair", ["inputs", "lengths"])


class Recorder:
    """Any object with a ``to`` method is moved by calling it."""

    def __init__(self) -> None:
        self.devices: list[torch.device] = []

    def to(self, device: torch.device) -> str:
        self.devices.append(device)
        return "moved"


def test_move_to_device_walks_containers() -> None:
    recorder = Recorder()
    batch = {"pair": Pair(torch.ones(2), [3, 1]), "text": "raw", "custom": recorder}
    moved = move_to_device(batch, torch.device("meta"))
    assert moved["pair"].inputs.device.type == "meta"
    assert isinstance(moved["pair"], Pair) and moved["pair"].lengths == [3, 1]
    assert moved["text"] == "raw" and moved["custom"] == "moved"
    assert recorder.devices == [torch.device("meta")]
    assert isinstance(move_to_device((torch.ones(1),), "meta"), tuple)


def test_evaluating_restores_every_module_mode() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5))
    model.train()
    model[1].eval()
    with evaluating(model):
        assert not model.training and not model[0].training
        assert not torch.is_grad_enabled()
    assert model.training and model[0].training and not model[1].training
    assert torch.is_grad_enabled()


def test_evaluating_restores_the_mode_after_an_error() -> None:
    model = nn.Linear(2, 2)
    with pytest.raises(RuntimeError), evaluating(model):
        raise RuntimeError("boom")
    assert model.training


def test_mean_batch_loss_averages_batches() -> None:
    model = nn.Linear(3, 1)
    with torch.no_grad():
        model.weight.zero_()
        model.bias.zero_()
    batches = [
        (torch.zeros(4, 3), torch.full((4, 1), 1.0)),
        (torch.zeros(2, 3), torch.full((2, 1), 3.0)),
    ]
    assert mean_batch_loss(model, batches, mse) == pytest.approx((1.0 + 9.0) / 2)
    with pytest.raises(ValueError, match="evaluation batches are empty"):
        mean_batch_loss(model, [], mse)


def test_model_device() -> None:
    assert model_device(nn.Linear(1, 1)) == torch.device("cpu")
    assert model_device(nn.Identity()) == torch.device("cpu")
    assert model_device(nn.Linear(1, 1, device="meta")) == torch.device("meta")
