"""Checkpoints written atomically, read back safely (Chapter 1, Text as sequences).

A checkpoint is written to a temporary file in the target's folder and then renamed over the
target with ``os.replace``, which is atomic: a crash or a full disk in the middle of saving leaves
the previous checkpoint intact, never half a file. It is read with
``torch.load(weights_only=True)``, which refuses to run code hidden in a pickle; a checkpoint of
:func:`coursekit.train.fit` holds only tensors and plain Python values, so it loads that way.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import torch


def save_checkpoint(state: dict[str, Any], path: str | os.PathLike[str]) -> Path:
    """Write ``state`` with ``torch.save`` to ``path`` atomically; returns the path.

    The bytes go to a hidden temporary file next to ``path``, are flushed to disk, and the file
    is renamed to ``path``. If anything fails the temporary file is removed and the error raised.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(descriptor, "wb") as file:
            torch.save(state, file)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def load_checkpoint(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a checkpoint written by :func:`save_checkpoint`, tensors on the CPU.

    Uses ``torch.load(weights_only=True)``: only tensors and plain Python containers and numbers
    are accepted, so loading a file cannot execute code.
    """
    target = Path(path)
    if not target.is_file():
        raise FileNotFoundError(f"no checkpoint at {target}")
    return torch.load(target, map_location="cpu", weights_only=True)
