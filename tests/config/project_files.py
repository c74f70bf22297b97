"""Readers for the repository's configuration files, shared by the configuration tests."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def pyproject() -> dict[str, Any]:
    """The parsed ``pyproject.toml``."""
    return tomllib.loads((ROOT / "pyproject.toml").read_text())
