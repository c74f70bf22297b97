"""coursekit: the tested PyTorch code behind the course on sequence models.

Every chapter of the book imports this package, shows its source with :func:`show_source` and
proves it equal to the production implementation it mirrors. The subpackages load on first use,
so ``import coursekit`` stays light and ``show_source(coursekit.metrics.modified_precision)``
works without importing ``coursekit.metrics`` first.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from coursekit.config import current_profile, pick
from coursekit.runtime import choose_profile, get_device, seed_everything, seeded_generator
from coursekit.show import show_source

__version__ = "0.1.0"

__all__ = [
    "PROFILE",
    "__version__",
    "choose_profile",
    "get_device",
    "pick",
    "seed_everything",
    "seeded_generator",
    "show_source",
]

SUBPACKAGES = (
    "bptt",
    "data",
    "generate",
    "grading",
    "metrics",
    "models",
    "pretrain",
    "text",
    "train",
    "viz",
    "widgets",
)


def __getattr__(name: str) -> ModuleType | str:
    """``coursekit.<subpackage>``: imported on first access (PEP 562), then an attribute;
    ``coursekit.PROFILE``: the active profile, read from ``$COURSEKIT_PROFILE`` when asked for."""
    if name == "PROFILE":
        return current_profile()
    if name in SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(
        f"module {__name__!r} has no attribute {name!r}; it has {', '.join(sorted(__all__))} "
        f"and the subpackages {', '.join(SUBPACKAGES)}"
    )


def __dir__() -> list[str]:
    """The package's names and its subpackages, imported or not."""
    return sorted(set(globals()) | set(__all__) | set(SUBPACKAGES))
