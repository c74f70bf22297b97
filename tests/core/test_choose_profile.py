"""The set-up cell's profile choice (coursekit.runtime.choose_profile): in Colab a GPU runtime gets
full and a CPU runtime ci, written where later cells read it, unless $COURSEKIT_PROFILE asks for
the other; elsewhere the variable or the default stays; each case says in one line what it chose
and how to change it.
"""

from __future__ import annotations

import os
import sys
import types

import pytest
import torch

from coursekit import choose_profile, pick
from coursekit.config import PROFILE_VARIABLE


@pytest.fixture
def colab(monkeypatch: pytest.MonkeyPatch) -> None:
    google = types.ModuleType("google")
    monkeypatch.setitem(sys.modules, "google", google)
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    printed = capsys.readouterr().out
    assert printed.count("\n") == 1, printed
    return printed


def test_a_set_variable_wins_even_in_a_colab_gpu_runtime(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], colab: None
) -> None:
    monkeypatch.setenv(PROFILE_VARIABLE, "ci")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert choose_profile() == "ci"
    assert f"the ci profile, as {PROFILE_VARIABLE} says" in one_line(capsys)


def test_a_colab_cpu_runtime_runs_ci_and_says_how_to_get_full(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], colab: None
) -> None:
    monkeypatch.setenv(PROFILE_VARIABLE, "")  # unset, and restored after the test
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert choose_profile() == "ci"
    assert pick(full="full", ci="ci") == "ci", "later cells must see the choice"
    line = one_line(capsys)
    assert "no GPU" in line and "a GPU runtime" in line
    assert f"%env {PROFILE_VARIABLE}=full" in line
    assert choose_profile() == "ci"
    assert one_line(capsys) == line, "run again, the cell must give the runtime's reason again"


def test_a_colab_gpu_runtime_runs_full(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], colab: None
) -> None:
    monkeypatch.setenv(PROFILE_VARIABLE, "")  # unset, and restored after the test
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert choose_profile() == "full"
    assert pick(full="full", ci="ci") == "full"
    assert f"%env {PROFILE_VARIABLE}=ci" in one_line(capsys)


def test_outside_colab_the_default_stays_full_even_without_a_gpu(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    monkeypatch.setenv(PROFILE_VARIABLE, "")  # unset, and restored after the test
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert choose_profile() == "full"
    assert "full profile, the default" in one_line(capsys)
    assert not os.environ[PROFILE_VARIABLE]


def test_an_unknown_profile_is_named_by_the_set_up_cell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PROFILE_VARIABLE, "fast")
    with pytest.raises(ValueError, match="fast"):
        choose_profile()
