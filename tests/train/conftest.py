"""Fixtures of the training tests."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from toy_regression import Batch, make_batches


@pytest.fixture
def train_batches() -> list[Batch]:
    return make_batches(seed=0, num_batches=6)


@pytest.fixture
def valid_batches() -> list[Batch]:
    return make_batches(seed=1, num_batches=2)


@pytest.fixture
def model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Linear(3, 1)
