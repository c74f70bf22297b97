"""Compare a student's answer with the reference answer and say, in words, how they differ.

The rules follow ``torch.testing.assert_close``: tensors must agree in shape and dtype, and
floating-point values within ``|actual - expected| <= atol + rtol * |expected|`` (NaN matches NaN
here, since a reference that returns NaN somewhere means "NaN is right there"). Integers, booleans
and strings must be equal. Lists and tuples are interchangeable (a tuple returned where the
reference returns a list passes), because answers that cross a process boundary as plain data lose
that distinction; dictionaries must have the same keys. Chapter 1, Text as sequences, introduces the
``check`` cells that use these rules.

In the grader the answer arrives as plain data (built-in values, plain tensors, or an inert
stand-in named after an unreadable object; :mod:`coursekit.grading.instructor.exchange`), so
comparing it runs none of the student's code. The Exercises page states this threat model.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

#: ``(rtol, atol)`` by dtype, as in ``torch.testing.assert_close``; Python floats count as float64.
DEFAULT_TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (1.6e-2, 1e-5),
    torch.float32: (1.3e-6, 1e-5),
    torch.float64: (1e-7, 1e-7),
    torch.complex64: (1.3e-6, 1e-5),
    torch.complex128: (1e-7, 1e-7),
}
#: How close a float64 answer computed in float32 typically comes to the float64 reference.
FLOAT32_RTOL, FLOAT32_ATOL = 1e-5, 1e-6
PLAIN_KEY_TYPES = (str, int, float, bool, type(None))
MAX_SHOWN_CHARACTERS = 60


def compare(
    expected: Any,
    actual: Any,
    *,
    rtol: float | None = None,
    atol: float | None = None,
    names: tuple[str, ...] = (),
) -> str | None:
    """``None`` when ``actual`` matches ``expected``, otherwise a message that says where and how.

    ``rtol`` and ``atol`` apply to every floating-point value; when ``None`` they default per dtype
    to ``torch.testing.assert_close``'s values. Messages start with the path of the difference in
    nested containers, e.g. ``"[1]['tokens']: shape mismatch: expected (2, 5), got (5, 2)"``;
    ``names`` names the items of a returned tuple, so that the path reads ``"mask: ..."`` rather
    than ``"[1]: ..."``, and the message ends by naming the items that do match
    (``"... (right: weights)"``), which locates a mistake between them.

    See the book's Exercises page.
    """
    if names and isinstance(expected, (list, tuple)) and len(names) == len(expected):
        message = _compare_sequences(expected, actual, rtol, atol, path="", names=names)
        right = _matching_items(expected, actual, rtol, atol, names)
        return f"{message} (right: {', '.join(right)})" if message and right else message
    return _compare(expected, actual, rtol, atol, path="")


def _matching_items(
    expected: list[Any] | tuple[Any, ...],
    actual: Any,
    rtol: float | None,
    atol: float | None,
    names: tuple[str, ...],
) -> list[str]:
    """The names of the items of ``actual`` that match ``expected``'s (none when the two are
    not sequences of one length)."""
    if not isinstance(actual, (list, tuple)) or len(actual) != len(expected):
        return []
    pairs = zip(names, expected, actual, strict=True)
    return [name for name, wanted, got in pairs if _compare(wanted, got, rtol, atol, "") is None]


def within_float32_rounding(expected: Any, actual: Any) -> bool:
    """True when ``actual`` differs from ``expected`` only by float32 rounding: same shapes,
    dtypes and exact values, and floating-point values within ``rtol=1e-5, atol=1e-6``.

    A float64 answer that agrees only this well was computed in float32 somewhere.
    """
    return _compare(expected, actual, FLOAT32_RTOL, FLOAT32_ATOL, path="") is None


def _compare(
    expected: Any, actual: Any, rtol: float | None, atol: float | None, path: str
) -> str | None:
    if isinstance(expected, torch.Tensor):
        return _at(path, _compare_tensors(expected, actual, rtol, atol))
    if isinstance(expected, (bool, int, float, str)):
        return _at(path, _compare_scalars(expected, actual, rtol, atol))
    if expected is None:
        return None if actual is None else _at(path, f"expected None, got {_describe(actual)}")
    if isinstance(expected, (list, tuple)):
        return _compare_sequences(expected, actual, rtol, atol, path)
    if isinstance(expected, dict):
        return _compare_dicts(expected, actual, rtol, atol, path)
    raise TypeError(f"compare() cannot compare reference values of type {type(expected).__name__}")


def _at(path: str, message: str | None) -> str | None:
    """Prefix ``message`` with the container path it refers to."""
    if message is None or not path:
        return message
    return f"{path}: {message}"


def _compare_sequences(
    expected: list[Any] | tuple[Any, ...],
    actual: Any,
    rtol: float | None,
    atol: float | None,
    path: str,
    names: tuple[str, ...] = (),
) -> str | None:
    if isinstance(actual, (list, tuple)):
        items = list(actual)
    else:
        kind = type(expected).__name__
        listed = ", ".join(names)
        what = f"{_items(len(expected))} ({listed})" if names else _items(len(expected))
        return _at(path, f"expected a {kind} of {what}, got {_describe(actual)}")
    if len(items) != len(expected):
        return _at(path, f"expected {_items(len(expected))}, got {len(items)}")
    for index, (expected_item, actual_item) in enumerate(zip(expected, items, strict=True)):
        where = names[index] if names else f"{path}[{index}]"
        message = _compare(expected_item, actual_item, rtol, atol, where)
        if message is not None:
            return message
    return None


def _compare_dicts(
    expected: dict[Any, Any], actual: Any, rtol: float | None, atol: float | None, path: str
) -> str | None:
    if not isinstance(actual, dict):
        return _at(path, f"expected a dict, got {_describe(actual)}")
    actual_items = list(actual.items())
    for key, _ in actual_items:
        if type(key) not in PLAIN_KEY_TYPES:
            return _at(path, f"dict keys must be str, int, float or bool, got {_describe(key)}")
    actual_dict = dict(actual_items)
    missing = [key for key in expected if key not in actual_dict]
    if missing:
        return _at(path, f"missing keys {_show_keys(missing)}")
    extra = [key for key in actual_dict if key not in expected]
    if extra:
        return _at(path, f"unexpected keys {_show_keys(extra)}")
    for key, expected_value in expected.items():
        message = _compare(expected_value, actual_dict[key], rtol, atol, f"{path}[{key!r}]")
        if message is not None:
            return message
    return None


def _items(count: int) -> str:
    """``"1 item"``, ``"3 items"``."""
    return f"{count} item" if count == 1 else f"{count} items"


def _show_keys(keys: list[Any]) -> str:
    return ", ".join(repr(key) for key in sorted(keys, key=repr))


def _compare_scalars(
    expected: bool | int | float | str, actual: Any, rtol: float | None, atol: float | None
) -> str | None:
    """Exact equality for bools, ints and strings; closeness within tolerance for floats."""
    kind = _scalar_kind(expected)
    plain = _plain_scalar(actual, kind)
    if plain is None:
        article = "an" if kind is int else "a"
        hint = ""
        if isinstance(actual, torch.Tensor) and actual.dim() > 0:
            hint = "; return a single number (e.g. with .item())"
        return f"expected {article} {kind.__name__}, got {_describe(actual)}{hint}"
    if kind is not float:
        return None if plain == expected else f"expected {_show(expected)}, got {_show(plain)}"
    expected = float(expected)
    default_rtol, default_atol = DEFAULT_TOLERANCES[torch.float64]
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    if (math.isnan(expected) and math.isnan(plain)) or plain == expected:
        return None
    if math.isinf(expected) or math.isinf(plain):  # as torch.isclose: infinities match only exactly
        return f"expected {_show(expected)}, got {_show(plain)}"
    difference = abs(plain - expected)
    if difference <= atol + rtol * abs(expected):
        return None
    return f"expected {_show(expected)}, got {_show(plain)} (difference {difference:.3g})"


def _scalar_kind(value: bool | int | float | str) -> type:
    """The built-in type that ``value`` is compared as (bool before int: a bool is an int)."""
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind
    raise TypeError(f"not a scalar: {type(value).__name__}")


def _plain_scalar(actual: Any, kind: type) -> Any:
    """``actual`` as a plain value of ``kind``, or None when it is not one.

    Accepted: the built-in type itself, a NumPy scalar or a 0-d tensor of a matching dtype; for
    ``float`` also integers, as ``torch.isclose`` does.
    """
    if kind is str:
        return actual if isinstance(actual, str) else None
    if isinstance(actual, bool):
        return actual if kind is bool else None
    if isinstance(actual, int):
        return None if kind is bool else kind(actual)
    if isinstance(actual, float):
        return actual if kind is float else None
    scalar = _zero_dim_tensor(actual)
    if scalar is None:
        return None
    is_bool = scalar.dtype == torch.bool
    is_float = scalar.is_floating_point() or scalar.is_complex()
    if kind is bool and is_bool:
        return bool(scalar.item())
    if kind is int and not is_bool and not is_float:
        return int(scalar.item())
    if kind is float and not is_bool and not scalar.is_complex():
        return float(scalar.item())
    return None


def _zero_dim_tensor(actual: Any) -> torch.Tensor | None:
    """A NumPy scalar or a 0-d tensor as a plain 0-d CPU tensor; None for anything else."""
    if isinstance(actual, (np.bool_, np.number)):
        return torch.from_numpy(np.asarray(actual))
    if isinstance(actual, torch.Tensor) and actual.dim() == 0:
        return actual.detach().cpu()
    return None


def _compare_tensors(
    expected: torch.Tensor, actual: Any, rtol: float | None, atol: float | None
) -> str | None:
    if not isinstance(actual, torch.Tensor):
        convertible = isinstance(actual, (list, tuple, np.ndarray))
        hint = "; convert it with torch.tensor(...)" if convertible else ""
        return f"expected a torch.Tensor, got {_describe(actual)}{hint}"
    if actual.layout != torch.strided:
        return f"expected a dense tensor, got layout {actual.layout}; call .to_dense()"
    actual = actual.detach().cpu()
    expected = expected.detach().cpu()
    if actual.shape != expected.shape:
        return f"shape mismatch: expected {tuple(expected.shape)}, got {tuple(actual.shape)}"
    if actual.dtype != expected.dtype:
        return f"dtype mismatch: expected {expected.dtype}, got {actual.dtype}"
    if expected.is_floating_point() or expected.is_complex():
        default_rtol, default_atol = DEFAULT_TOLERANCES[expected.dtype]
        rtol = default_rtol if rtol is None else rtol
        atol = default_atol if atol is None else atol
        mismatch = ~torch.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        mismatch = actual != expected
    if not bool(mismatch.any()):
        return None
    return _describe_mismatch(expected, actual, mismatch)


def _describe_mismatch(expected: torch.Tensor, actual: torch.Tensor, mismatch: torch.Tensor) -> str:
    """E.g. ``"3 of 10 elements differ; largest absolute difference 0.5 at index (1, 2) ..."``."""
    differing = int(mismatch.sum())
    count = (
        f"{differing} of {mismatch.numel()} elements {'differs' if differing == 1 else 'differ'}"
    )
    if expected.dtype == torch.bool:
        flat_index = int(mismatch.flatten().nonzero()[0])
        summary = f"{count}; first at index {_index_text(flat_index, expected.shape)}"
    else:
        wide = torch.complex128 if expected.is_complex() else torch.float64
        difference = (
            (actual.to(wide) - expected.to(wide)).abs().nan_to_num(nan=math.inf, posinf=math.inf)
        )
        difference = torch.where(mismatch, difference, torch.zeros_like(difference))
        flat_index = int(difference.flatten().argmax())
        largest = float(difference.flatten()[flat_index])
        where = _index_text(flat_index, expected.shape)
        summary = f"{count}; largest absolute difference {largest:.3g} at index {where}"
    expected_value = _show(expected.flatten()[flat_index].item())
    actual_value = _show(actual.flatten()[flat_index].item())
    return f"{summary} (expected {expected_value}, got {actual_value})"


def _index_text(flat_index: int, shape: torch.Size) -> str:
    """The index of element ``flat_index`` of a tensor of ``shape``, e.g. ``"(1, 2)"``."""
    return str(tuple(int(i) for i in np.unravel_index(flat_index, tuple(shape))))


def _show(value: Any) -> str:
    """A short, deterministic rendering of a built-in value for messages."""
    text = f"{value:.10g}" if isinstance(value, float) else repr(value)
    if len(text) > MAX_SHOWN_CHARACTERS:
        text = text[: MAX_SHOWN_CHARACTERS - 3] + "..."
    return text


def _type_name(value: Any) -> str:
    cls = type(value)
    return (
        cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    )


def _describe(value: Any) -> str:
    """What the student returned, named by type (plus the value for short built-in values)."""
    if value is None:
        return "None"
    if type(value) in (int, float, bool, str):
        return f"{_type_name(value)} {_show(value)}"
    if isinstance(value, torch.Tensor):
        return f"a {_type_name(value)}"
    return _type_name(value)
