"""Execution profiles: one notebook, two sizes.

``COURSEKIT_PROFILE=full`` (the default) sizes data and training so each chapter runs in under
five minutes on two CPU cores; ``COURSEKIT_PROFILE=ci`` shrinks them so each chapter runs in under
a minute. A chapter's claims must hold in both, so notebooks choose sizes with :func:`pick`.

The variable is read whenever a profile is needed, never at import: ``import coursekit`` works
whatever it holds, and an unknown name is an error at the first :func:`pick` (or read of
``coursekit.PROFILE``), with a message that names the variable and the valid values.
"""

from __future__ import annotations

import os
from typing import Literal, TypeVar

Profile = Literal["full", "ci"]
PROFILES: tuple[Profile, ...] = ("full", "ci")
PROFILE_VARIABLE = "COURSEKIT_PROFILE"

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


def pick(*, full: T, ci: T) -> T:
    """Return the value for the active profile, e.g. ``epochs = pick(full=20, ci=3)``."""
    return ci if current_profile() == "ci" else full


def __getattr__(name: str) -> Profile:
    """``PROFILE``: the active profile, read when asked for (PEP 562), so that an invalid
    ``$COURSEKIT_PROFILE`` fails where a profile is needed and not at import."""
    if name == "PROFILE":
        return current_profile()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
