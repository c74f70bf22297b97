"""Profiles, devices, seeding and show_source."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

import coursekit
from coursekit.config import current_profile, pick
from coursekit.show import show_source, source_of


def test_pick_follows_the_profile(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COURSEKIT_PROFILE", "ci")
    assert current_profile() == "ci"
    assert pick(full=100, ci=3) == 3
    monkeypatch.setenv("COURSEKIT_PROFILE", "full")
    assert pick(full=100, ci=3) == 100
    monkeypatch.delenv("COURSEKIT_PROFILE")
    assert current_profile() == "full"


def test_unknown_profile_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COURSEKIT_PROFILE", "fast")
    with pytest.raises(ValueError, match="full.*ci"):
        current_profile()


def test_device_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)  # the override wins anyway
    monkeypatch.setenv("COURSEKIT_DEVICE", "cpu")
    assert coursekit.get_device() == torch.device("cpu")
    monkeypatch.setenv("COURSEKIT_DEVICE", "meta")
    assert coursekit.get_device() == torch.device("meta")


@pytest.mark.parametrize(
    ("cuda", "mps", "expected"),
    [(True, True, "cuda"), (True, False, "cuda"), (False, True, "mps"), (False, False, "cpu")],
)
def test_without_override_the_device_is_cuda_then_mps_then_cpu(
    monkeypatch: pytest.MonkeyPatch, cuda: bool, mps: bool, expected: str
) -> None:
    monkeypatch.delenv("COURSEKIT_DEVICE", raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: mps)
    assert coursekit.get_device() == torch.device(expected)


def test_cuda_request_without_cuda_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setenv("COURSEKIT_DEVICE", "cuda")
    with pytest.raises(RuntimeError, match="COURSEKIT_DEVICE='cuda' but CUDA is not available"):
        coursekit.get_device()
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert coursekit.get_device() == torch.device("cuda")


def test_seed_everything_repeats_every_generator() -> None:
    def draw() -> tuple[float, float, list[float]]:
        return random.random(), float(np.random.rand()), torch.rand(3).tolist()

    coursekit.seed_everything(7)
    first = draw()
    coursekit.seed_everything(7)
    assert draw() == first
    coursekit.seed_everything(8)
    assert draw() != first


def test_show_source_prints_the_real_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert show_source(pick) is None
    printed = capsys.readouterr().out
    assert printed.startswith("def pick(")
    assert 'return ci if current_profile() == "ci" else full' in printed


def test_source_of_rejects_objects_without_source() -> None:
    with pytest.raises(TypeError, match="no Python source"):
        source_of(len)
