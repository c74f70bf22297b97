"""What every part of the course needs at run time: seeds, the device, eval mode, moving batches.

This module sits at the bottom of the package: it imports nothing of ``coursekit`` but its
configuration, and every other module may import it. Chapter 1, Text as sequences, introduces
each helper; every later chapter uses them.
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TypeVar

import numpy as np
import torch
from torch import nn

from coursekit.config import PROFILE_VARIABLE, Profile, current_profile, shifted

DEVICE_VARIABLE = "COURSEKIT_DEVICE"

Batch = TypeVar("Batch")


def seed_everything(seed: int = 0) -> None:
    """Seed Python's, NumPy's and PyTorch's generators (all devices) with ``seed`` moved by
    ``$COURSEKIT_SEED`` (0 when unset), so that a run repeats exactly and a claim can be tried
    on other seeds.
    """
    seed_generators_as_given(shifted(seed))


def seed_generators_as_given(seed: int) -> None:
    """Seed Python's, NumPy's and PyTorch's generators with exactly ``seed``, whatever
    ``$COURSEKIT_SEED`` says: for recorded commands that must rebuild the same artefact.
    """
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def seeded_generator(seed: int = 0) -> torch.Generator:
    """A ``torch.Generator`` seeded with ``seed`` moved by ``$COURSEKIT_SEED`` (0 when unset):
    the generator a chapter shuffles, draws labels or initialises with.
    """
    return torch.Generator().manual_seed(shifted(seed))


def get_device() -> torch.device:
    """The device the course runs on: ``$COURSEKIT_DEVICE`` if set, else cuda > mps > cpu.

    Every notebook moves its models and batches with ``.to(get_device())`` so the same cell runs
    on a laptop, in Colab and on a GPU runner.
    """
    requested = os.environ.get(DEVICE_VARIABLE, "").strip()
    if requested:
        try:
            device = torch.device(requested)
        except RuntimeError as error:
            raise ValueError(
                f"{DEVICE_VARIABLE}={requested!r} is not a device torch knows: set it to cpu, "
                f"cuda, cuda:1 or mps, or unset it to let the course choose ({error})"
            ) from None
        if device.type == "cuda" and not torch.cuda.is_available():
            raise RuntimeError(
                f"{DEVICE_VARIABLE}={requested!r} but CUDA is not available here: unset it or "
                "set it to cpu"
            )
        return device
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def choose_profile() -> Profile:
    """Choose the profile this runtime can afford, say so in one line, and return it.

    In Colab, a GPU runtime runs the ``full`` profile and a CPU runtime (two slow virtual cores)
    the ``ci`` one, unless ``$COURSEKIT_PROFILE`` asks for the other; the choice is written to
    ``$COURSEKIT_PROFILE``, where every later cell reads it. Elsewhere ``$COURSEKIT_PROFILE``, or
    the default, ``full``, stays. The chapters' set-up cell calls this.
    """
    requested = os.environ.get(PROFILE_VARIABLE, "").strip()
    if "google.colab" not in sys.modules:
        if requested:
            return said(current_profile(), f"as {PROFILE_VARIABLE} says.")
        return said("full", f"the default; {PROFILE_VARIABLE}=ci runs a minute per chapter.")
    affordable: Profile = "full" if torch.cuda.is_available() else "ci"
    if requested and current_profile() != affordable:
        return said(current_profile(), f"as {PROFILE_VARIABLE} says.")
    os.environ[PROFILE_VARIABLE] = affordable
    if affordable == "full":
        return said(
            "full",
            "as this Colab runtime has a GPU. For a minute per chapter: "
            f"%env {PROFILE_VARIABLE}=ci, then Runtime > Run all.",
        )
    return said(
        "ci",
        "as this Colab runtime has no GPU: less training, so numbers differ from the text's. "
        f"For the full profile: a GPU runtime, or %env {PROFILE_VARIABLE}=full, then Run all.",
    )


def said(profile: Profile, reason: str) -> Profile:
    """Print ``coursekit: the <profile> profile, <reason>`` and return ``profile``."""
    print(f"coursekit: the {profile} profile, {reason}")
    return profile


def move_to_device(batch: Batch, device: torch.device | str) -> Batch:
    """Move a batch to ``device``: tensors and objects with ``.to(device)`` (a batch dataclass),
    also inside tuples, lists and mappings (returned as dicts); anything else (strings, lengths
    as ints) is returned unchanged.
    """
    if isinstance(batch, torch.Tensor) or callable(getattr(batch, "to", None)):
        return batch.to(device)  # type: ignore[attr-defined]
    if isinstance(batch, Mapping):
        return {key: move_to_device(value, device) for key, value in batch.items()}  # type: ignore[return-value]
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):  # a namedtuple
        return type(batch)(*(move_to_device(item, device) for item in batch))
    if isinstance(batch, (tuple, list)):
        return type(batch)(move_to_device(item, device) for item in batch)
    return batch


def model_device(model: nn.Module) -> torch.device:
    """The device of the model's first parameter or buffer (CPU for a model without any)."""
    for tensor in (*model.parameters(), *model.buffers()):
        return tensor.device
    return torch.device("cpu")


@contextmanager
def modes_restored(model: nn.Module) -> Iterator[nn.Module]:
    """``with modes_restored(model):`` gives back every submodule's train/eval flag as it was
    when the block started, even if the block raises.
    """
    previous_modes = [(module, module.training) for module in model.modules()]
    try:
        yield model
    finally:
        for module, was_training in previous_modes:
            module.training = was_training


@contextmanager
def evaluating(model: nn.Module) -> Iterator[nn.Module]:
    """``with evaluating(model):`` runs the block in eval mode without gradients, then restores
    the train/eval flag of every submodule as it was.
    """
    with modes_restored(model), torch.no_grad():
        model.eval()
        yield model
