"""Checks of dataset options, with messages that say what was wrong and what to pass instead."""

from __future__ import annotations

from collections.abc import Collection, Iterable


def check_int(
    name: str, value: object, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    """Return ``value`` if it is an ``int`` with ``minimum <= value <= maximum``, else raise."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum}, got {value}")
    return value


def check_bool(name: str, value: object) -> bool:
    """Return ``value`` if it is ``True`` or ``False`` (an option like ``alignments``), else raise."""
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return value


def check_fraction(name: str, value: object) -> float:
    """Return ``value`` as a float if it is a number with ``0 <= value <= 1``, else raise."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ValueError(f"{name} must be a number between 0 and 1, got {value!r}")
    return float(value)


def check_choice(name: str, value: object, choices: Collection[str]) -> str:
    """Return ``value`` if it is one of ``choices``, else raise naming them all."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {sorted(choices)}, got {value!r}")
    return str(value)


def check_choices(name: str, values: object, choices: Collection[str]) -> tuple[str, ...]:
    """Return ``values`` as a tuple if it is a non-empty collection of ``choices``, else raise."""
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise ValueError(f"{name} must be a list or tuple of strings, got {values!r}")
    chosen = tuple(values)
    if not chosen:
        raise ValueError(f"{name} must name at least one of {sorted(choices)}")
    for value in chosen:
        check_choice(f"each entry of {name}", value, choices)
    return chosen
