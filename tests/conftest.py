"""Shared test fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def unshifted_seeds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test sees the book's own seeds, whatever ``COURSEKIT_SEED`` the shell exports."""
    monkeypatch.delenv("COURSEKIT_SEED", raising=False)


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository's top folder."""
    return ROOT
