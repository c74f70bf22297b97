"""Fixtures of the benchmark tests: the rows are imported from the repository's top folder and
run in this process, at their quick sizes."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest


@pytest.fixture
def import_rows(repo_root: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], ModuleType]:
    """``import_rows("transformer")`` is the module ``benchmarks.transformer``."""
    monkeypatch.syspath_prepend(str(repo_root))
    return lambda name: importlib.import_module(f"benchmarks.{name}")
