"""Execution profiles: one notebook, two sizes.

``COURSEKIT_PROFILE=full`` (the default) sizes data and training so each chapter runs in under
five minutes on two CPU cores; ``COURSEKIT_PROFILE=ci`` shrinks them so each chapter runs in under
a minute. A chapter's claims must hold in both, so notebooks choose sizes with :func:`pick`.
"""

from __future__ import annotations

import os
from typing import Literal, TypeVar

Profile = Literal["full", "ci"]
PROFILES: tuple[Profile, ...] = ("full", "ci")

T = TypeVar("T")


def current_profile() -> Profile:
    """Read ``$COURSEKIT_PROFILE`` (``full`` when unset) and reject unknown names."""
    name = os.environ.get("COURSEKIT_PROFILE", "full").strip().lower() or "full"
    if name not in PROFILES:
        raise ValueError(f"COURSEKIT_PROFILE must be one of {PROFILES}, got {name!r}")
    return name  # type: ignore[return-value]


PROFILE: Profile = current_profile()


def pick(*, full: T, ci: T) -> T:
    """Return the value for the active profile, e.g. ``epochs = pick(full=20, ci=3)``."""
    return ci if current_profile() == "ci" else full
