"""How the questions of Chapters 2 to 7 draw their tensors: the same numbers in every process.

A question's cases come from its own ``random.Random`` (seeded by
:func:`coursekit.grading.questions.case_seed`); a torch generator seeded from it draws the
tensors, so that ``check`` in a notebook and the grader in another process see the same cases.
"""

from __future__ import annotations

import random

import torch


def torch_generator(rng: random.Random) -> torch.Generator:
    """A torch generator seeded from a question's ``random.Random``, so that tensors drawn with it
    are the same in every process.
    """
    return torch.Generator().manual_seed(rng.getrandbits(63))


def float64_normal(generator: torch.Generator, *shape: int, scale: float = 1.0) -> torch.Tensor:
    """A float64 tensor of ``shape`` with independent N(0, scale^2) entries."""
    return torch.randn(*shape, generator=generator, dtype=torch.float64) * scale
