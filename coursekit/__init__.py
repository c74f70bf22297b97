"""coursekit: the tested PyTorch code behind the course on sequence models.

Every chapter of the book imports this package, shows its source with :func:`show_source` and
proves it equal to the production implementation it mirrors.
"""

from __future__ import annotations

from coursekit.config import PROFILE, pick
from coursekit.runtime import get_device, seed_everything
from coursekit.show import show_source

__version__ = "0.1.0"

__all__ = ["PROFILE", "__version__", "get_device", "pick", "seed_everything", "show_source"]
