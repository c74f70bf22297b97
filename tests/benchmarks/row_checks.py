"""Breaking one side of a benchmark row, to prove that the row compares its two sides."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from torch import nn


def perturb_loader(monkeypatch: pytest.MonkeyPatch, cls: type, loader: str) -> None:
    """Make ``cls.<loader>`` (``from_torch``, ``from_hf``) copy the weights with an error: every
    parameter of the copy gets a ramp from 0 to 0.5 added (not a constant, which a softmax or a
    layer norm would cancel), so the copy no longer computes what its twin computes."""
    original = getattr(cls, loader)

    def shifted(owner: type, twin: nn.Module) -> Any:
        copy = original(twin)
        with torch.no_grad():
            for parameter in copy.parameters():
                ramp = torch.linspace(
                    0, 0.5, parameter.numel(), dtype=parameter.dtype, device=parameter.device
                )
                parameter.add_(ramp.reshape(parameter.shape))
        return copy

    monkeypatch.setattr(cls, loader, classmethod(shifted))
