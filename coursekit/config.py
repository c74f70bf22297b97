"""Execution profiles and the seed shift: one notebook, two sizes, any seed.

``COURSEKIT_PROFILE=full`` (the default) sizes data and training so each chapter runs in under
five minutes on two CPU cores; ``COURSEKIT_PROFILE=ci`` shrinks them so each chapter runs in under
a minute. A chapter's claims must hold in both, so notebooks choose sizes with :func:`pick`.

The variable is read whenever a profile is needed, never at import: ``import coursekit`` works
whatever it holds, and an unknown name is an error at the first :func:`pick` (or read of
``coursekit.PROFILE``), with a message that names the variable and the valid values.

``COURSEKIT_SEED=k`` (default 0) moves every seed a chapter draws by ``k``: the seeds of
:func:`coursekit.seed_everything`, of :func:`coursekit.runtime.seeded_generator` and of every
``coursekit.data.load``. A claim of the book is a finding, not a lucky seed, so it must hold
for every ``k`` in 0..4 (``make test-seeds``). Recorded commands, such as the pretraining run
behind a shipped checkpoint, seed their generators as given, whatever the variable says.
"""

from __future__ import annotations

import os
from typing import Literal, TypeVar

Profile = Literal["full", "ci"]
PROFILES: tuple[Profile, ...] = ("full", "ci")
PROFILE_VARIABLE = "COURSEKIT_PROFILE"
SEED_VARIABLE = "COURSEKIT_SEED"

T = TypeVar("T")


def current_profile() -> Profile:
    """Read ``$COURSEKIT_PROFILE`` (``full`` when unset or empty) and reject unknown names."""
    name = os.environ.get(PROFILE_VARIABLE, "full").strip().lower() or "full"
    for profile in PROFILES:
        if name == profile:
            return profile
    raise ValueError(
        f"{PROFILE_VARIABLE}={name!r} is not a profile of the course: set it to 'full' (the "
        "default, chapters sized for a few minutes) or 'ci' (a minute each), or unset it"
    )


def seed_shift() -> int:
    """``$COURSEKIT_SEED`` (0 when unset or empty): how far every seed of the chapters moves."""
    text = os.environ.get(SEED_VARIABLE, "").strip() or "0"
    if not text.isdigit():
        raise ValueError(
            f"{SEED_VARIABLE}={text!r} is not a seed shift: set it to a whole number >= 0 (0, the "
            "default, gives the seeds the book was executed with), or unset it"
        )
    return int(text)


def shifted(seed: int) -> int:
    """``seed + $COURSEKIT_SEED``: the seed a chapter's ``seed`` stands for under the shift."""
    return seed + seed_shift()


def pick(*, full: T, ci: T) -> T:
    """Return the value for the active profile, e.g. ``epochs = pick(full=20, ci=3)``."""
    return ci if current_profile() == "ci" else full


def __getattr__(name: str) -> Profile:
    """``PROFILE``: the active profile, read when asked for (PEP 562), so that an invalid
    ``$COURSEKIT_PROFILE`` fails where a profile is needed and not at import."""
    if name == "PROFILE":
        return current_profile()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
