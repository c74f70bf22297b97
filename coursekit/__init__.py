"""coursekit: the tested PyTorch code behind the course on sequence models.

Every chapter of the book imports this package, shows its source with :func:`show_source` and
proves it equal to the production implementation it mirrors.
"""

from __future__ import annotations

import os
import random

import numpy as np
import torch

from coursekit.config import PROFILE, pick
from coursekit.show import show_source

__version__ = "0.1.0"

__all__ = ["PROFILE", "__version__", "get_device", "pick", "seed_everything", "show_source"]


def seed_everything(seed: int = 0) -> None:
    """Seed Python's, NumPy's and PyTorch's generators (all devices) so a run repeats exactly."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def get_device() -> torch.device:
    """The device the course runs on: ``$COURSEKIT_DEVICE`` if set, else cuda > mps > cpu.

    Every notebook moves its models and batches with ``.to(get_device())`` so the same cell runs
    on a laptop, in Colab and on a GPU runner.
    """
    requested = os.environ.get("COURSEKIT_DEVICE", "").strip()
    if requested:
        device = torch.device(requested)
        if device.type == "cuda" and not torch.cuda.is_available():
            raise RuntimeError(f"COURSEKIT_DEVICE={requested!r} but CUDA is not available here")
        return device
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")
