"""Random number generator states, saved and restored so that a resumed run repeats exactly.

A training run draws random numbers for dropout masks, data shuffling and initialisation from
Python's ``random``, NumPy, PyTorch's CPU and CUDA generators, and any ``torch.Generator`` a
``DataLoader`` was given. Restoring all of them after an interruption makes the rest of the run
draw the same numbers it would have drawn (Chapter 1, Text as sequences).
"""

from __future__ import annotations

import random
from typing import Any, cast

import numpy as np
import torch

LegacyState = tuple[str, np.ndarray, int, int, float]
"""NumPy's legacy generator state: bit generator, keys, position, has_gauss, cached_gaussian."""


def data_generators(*loaders: Any) -> list[torch.Generator]:
    """The distinct ``torch.Generator`` objects that ``loaders`` shuffle with: a DataLoader's
    ``generator``, its sampler's, and its batch sampler's sampler's.
    """
    found: list[torch.Generator] = []
    for loader in loaders:
        batch_sampler = getattr(loader, "batch_sampler", None)
        owners = (loader, getattr(loader, "sampler", None), getattr(batch_sampler, "sampler", None))
        for owner in owners:
            generator = getattr(owner, "generator", None)
            if isinstance(generator, torch.Generator) and all(generator is not g for g in found):
                found.append(generator)
    return found


def capture_rng_state(generators: list[torch.Generator] | tuple[()] = ()) -> dict[str, Any]:
    """The states of every global generator and of ``generators``, as plain Python values and
    tensors (so ``torch.load(weights_only=True)`` reads them back).
    """
    legacy_state = cast(LegacyState, np.random.get_state(legacy=True))  # a tuple, for MT19937
    bit_generator, keys, position, has_gauss, cached_gaussian = legacy_state
    return {
        "python": random.getstate(),
        "numpy": {
            "bit_generator": bit_generator,
            "keys": keys.tolist(),
            "position": int(position),
            "has_gauss": int(has_gauss),
            "cached_gaussian": float(cached_gaussian),
        },
        "torch": torch.get_rng_state(),
        "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
        "generators": [generator.get_state() for generator in generators],
    }


def restore_rng_state(
    state: dict[str, Any], generators: list[torch.Generator] | tuple[()] = ()
) -> None:
    """Put every generator back in the state :func:`capture_rng_state` recorded."""
    if len(state["generators"]) != len(generators):
        raise ValueError(
            f"the checkpoint holds the states of {len(state['generators'])} data generators but "
            f"the loaders now use {len(generators)}: build the DataLoaders as in the saved run"
        )
    random.setstate(state["python"])
    numpy_state = state["numpy"]
    np.random.set_state(
        (
            numpy_state["bit_generator"],
            np.asarray(numpy_state["keys"], dtype=np.uint32),
            numpy_state["position"],
            numpy_state["has_gauss"],
            numpy_state["cached_gaussian"],
        )
    )
    torch.set_rng_state(state["torch"])
    if state["cuda"] and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])
    for generator, generator_state in zip(generators, state["generators"], strict=True):
        generator.set_state(generator_state)
