"""The argument requirements shared by every chapter: whole numbers, numbers, probabilities,
flags and names chosen from a list.

Each ``require_*`` returns the value it was given when it is what the function says, and raises
a ``ValueError`` that names the argument, says what it must be and shows what it got otherwise,
so that a module states what it requires in one line and then reads like its equations. A bool is
never taken for a number. Requirements of one model family (heads that divide ``d_model``, token
ids, masks) stay in that family's modules.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable
from numbers import Real
from typing import TypeGuard


def is_int(value: object) -> TypeGuard[int]:
    """Whether ``value`` is an ``int`` and not a ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool)


def require_int(
    name: str, value: object, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    """``value`` must be an ``int`` with ``minimum <= value <= maximum`` (either bound optional)."""
    if not is_int(value):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum}, got {value}")
    return value


def require_positive_int(name: str, value: object) -> int:
    """``value`` must be an ``int`` >= 1: a size, a count, a number of steps."""
    if not is_int(value) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def require_non_negative_int(name: str, value: object) -> int:
    """``value`` must be an ``int`` >= 0: an id, an offset, a count that may be zero."""
    if not is_int(value) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return value


def is_number(value: object) -> TypeGuard[float]:
    """Whether ``value`` is a real number (an ``int``, a ``float``...) and not a ``bool``."""
    return isinstance(value, Real) and not isinstance(value, bool)


def require_positive_number(name: str, value: object) -> float:
    """``value`` must be a finite number > 0: a threshold, a smoothing constant."""
    if not is_number(value) or not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


def require_non_negative_number(name: str, value: object) -> float:
    """``value`` must be a finite number >= 0: a temperature, a penalty that may be off."""
    if not is_number(value) or not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return float(value)


def require_dropout_probability(name: str, value: object) -> float:
    """``value`` must be a dropout probability ``p`` in [0, 1): ``p = 1`` would zero everything."""
    if not is_number(value) or not 0 <= value < 1:
        raise ValueError(f"{name} is a dropout probability in [0, 1), got {value!r}")
    return float(value)


def require_fraction(name: str, value: object) -> float:
    """``value`` must be a number with ``0 <= value <= 1``; returns it as a float."""
    if not is_number(value) or not 0 <= value <= 1:
        raise ValueError(f"{name} must be a number between 0 and 1, got {value!r}")
    return float(value)


def require_bool(name: str, value: object) -> bool:
    """``value`` must be ``True`` or ``False`` (an option like ``alignments``)."""
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return value


def require_choice(name: str, value: object, choices: Collection[str]) -> str:
    """``value`` must be one of ``choices``; the message names them all."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {sorted(choices)}, got {value!r}")
    return str(value)


def require_choices(name: str, values: object, choices: Collection[str]) -> tuple[str, ...]:
    """``values`` must be a non-empty list or tuple of ``choices``; returns it as a tuple."""
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise ValueError(f"{name} must be a list or tuple of strings, got {values!r}")
    chosen = tuple(values)
    if not chosen:
        raise ValueError(f"{name} must name at least one of {sorted(choices)}")
    for value in chosen:
        require_choice(f"each entry of {name}", value, choices)
    return chosen
