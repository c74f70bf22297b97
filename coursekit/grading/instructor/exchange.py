"""How the grader and a student's kernel talk: case inputs go in, plain data comes back.

The grader writes a question's cases to a file with ``torch.save`` and asks the kernel to run
:func:`answer_named`, which calls the student's function on each case and writes every outcome
as *tagged plain data*: pairs ``(tag, payload)`` made of strings, numbers, lists and tensors.
The grader reads that file with ``torch.load(..., weights_only=True)``, which refuses anything but
tensors and built-in containers, and :func:`decode_outcomes` then checks the tags one by one. So
nothing the kernel wrote is ever unpickled into an object of the student's making, and a value
with an odd ``__eq__`` arrives as an inert stand-in that matches nothing.

Tags: ``V`` a bool, int, float, str or None; ``L``/``T``/``D`` a list, tuple or dict (a list of
key-value pairs); ``P`` a plain tensor; ``N``/``S`` a NumPy array or scalar (sent as a tensor);
``X`` any other value, known only by its type name. The file holds ``("answers", outcomes)``
or ``("missing", reason)``; an outcome is ``("value", encoded)`` or ``("error", kind,
exception type, message, location)``. Chapter 1, Text as sequences, has the
first graded exercises. See the book's Exercises page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from coursekit.grading.answers import AnswerError, AnswerOutcome, call_answer
from coursekit.grading.questions import Case, get_question

MAX_DEPTH = 32
MAX_OUTCOME_BYTES = 64 * 2**20
PLAIN_LEAVES = (bool, int, float, str)


class ExchangeError(ValueError):
    """The kernel's answer file is missing, too big, or not made of the expected plain data."""


class MissingAnswer(LookupError):
    """The notebook defines no function of the question's name; the message says why."""


# In the grader ----------------------------------------------------------------------------------


def write_cases(cases: list[Case], path: Path) -> None:
    """Save the arguments of ``cases`` (plain data by construction) for the kernel to read."""
    torch.save([(list(case.args), dict(case.kwargs)) for case in cases], path)


def read_outcomes(path: Path, count: int) -> list[AnswerOutcome]:
    """Load and decode the ``count`` outcomes the kernel wrote to ``path``.

    Raises :class:`MissingAnswer` when the kernel found no function to call, and
    :class:`ExchangeError` when the file is missing, larger than 64 MiB, refused by
    ``torch.load(weights_only=True)`` or not in the tagged format.
    """
    if not path.is_file():
        raise ExchangeError("the kernel wrote no answers")
    if path.stat().st_size > MAX_OUTCOME_BYTES:
        raise ExchangeError(f"the answers take more than {MAX_OUTCOME_BYTES // 2**20} MiB")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # noqa: BLE001 - any unreadable file is the kernel's fault
        raise ExchangeError(f"the answers could not be read ({type(error).__name__})") from None
    return decode_outcomes(data, count)


def decode_outcomes(data: Any, count: int) -> list[AnswerOutcome]:
    """Turn the tagged outcomes back into :class:`AnswerOutcome`\\ s, refusing anything else."""
    if type(data) is tuple and len(data) == 2 and data[0] == "missing" and type(data[1]) is str:
        raise MissingAnswer(data[1][:200])
    if type(data) is not tuple or len(data) != 2 or data[0] != "answers":
        raise ExchangeError("the answers from the kernel are not in the expected format")
    if type(data[1]) is not list or len(data[1]) != count:
        raise ExchangeError(f"expected {count} answers from the kernel")
    return [_decode_outcome(item) for item in data[1]]


def _decode_outcome(item: Any) -> AnswerOutcome:
    if type(item) is tuple and len(item) == 2 and item[0] == "value":
        return AnswerOutcome(value=decode_value(item[1]))
    if (
        type(item) is tuple
        and len(item) == 5
        and item[0] == "error"
        and item[1] in ("not implemented", "error")
        and all(type(text) is str for text in item[2:4])
        and (item[4] is None or type(item[4]) is str)
    ):
        return AnswerOutcome(error=AnswerError(item[1], item[2], item[3], item[4]))
    raise ExchangeError("an answer from the kernel is not in the expected format")


def decode_value(node: Any, depth: int = 0) -> Any:
    """Rebuild one tagged value; raise :class:`ExchangeError` on anything outside the format."""
    if depth > MAX_DEPTH or type(node) is not tuple or len(node) != 2 or type(node[0]) is not str:
        raise ExchangeError("an answer from the kernel is not in the expected format")
    tag, payload = node
    if tag == "V" and (payload is None or type(payload) in PLAIN_LEAVES):
        return payload
    if tag in ("L", "T") and type(payload) is list:
        items = [decode_value(item, depth + 1) for item in payload]
        return items if tag == "L" else tuple(items)
    if tag == "D" and type(payload) is list:
        return {_decode_key(pair, depth): decode_value(pair[1], depth + 1) for pair in payload}
    if tag in ("P", "N", "S") and type(payload) is torch.Tensor:
        if tag == "P":
            return payload
        array = payload.numpy()
        return array if tag == "N" else array[()]
    if tag == "X" and type(payload) is str:
        return opaque_value(payload)
    raise ExchangeError("an answer from the kernel is not in the expected format")


def _decode_key(pair: Any, depth: int) -> Any:
    if type(pair) is not list or len(pair) != 2:
        raise ExchangeError("an answer from the kernel is not in the expected format")
    key = decode_value(pair[0], depth + 1)
    if key is not None and type(key) not in PLAIN_LEAVES:
        raise ExchangeError("a dict key from the kernel is not plain")
    return key


def opaque_value(type_name: str) -> Any:
    """A stand-in for a value that could not cross: an empty object named like its type.

    :func:`coursekit.grading.compare.compare` names it in its message ("expected a list, got
    numpy.matrix") and it equals nothing, as the original might have pretended to.
    """
    module, _, name = type_name[:200].rpartition(".")
    stand_in = type(name or "object", (), {"__module__": module or "builtins"})
    return stand_in()


# In the kernel ----------------------------------------------------------------------------------


def answer_named(
    namespace: dict[str, Any], question_id: str, cases_path: str, outcomes_path: str
) -> None:
    """Run in the student's kernel: call the function of ``namespace`` that question
    ``question_id`` names on each saved case and save the outcomes, or save
    ``("missing", reason)`` when there is no such function.

    Nothing here needs to resist the notebook: a notebook may replace this function, and what
    it writes is only data that the grader checks and judges (see the module docstring).
    """
    name = get_question(question_id).answer_name
    answer = namespace.get(name)
    if answer is None or not callable(answer):
        reason = f"{name} is not defined" if answer is None else f"{name} is not a function"
        torch.save(("missing", reason), outcomes_path)
        return
    outcomes = [
        encode_outcome(call_answer(answer, Case(tuple(args), kwargs)))
        for args, kwargs in torch.load(cases_path, weights_only=True)
    ]
    torch.save(("answers", outcomes), outcomes_path)


def encode_outcome(outcome: AnswerOutcome) -> tuple[Any, ...]:
    """An :class:`AnswerOutcome` as the tagged plain data described in the module docstring."""
    if outcome.error is not None:
        error = outcome.error
        return ("error", error.kind, error.exception_type, error.message, error.location)
    return ("value", encode_value(outcome.value))


def encode_value(value: Any, depth: int = 0) -> tuple[str, Any]:
    """Tag ``value`` for the grader; anything that is not plain data is sent by its type name."""
    try:
        if value is None or isinstance(value, PLAIN_LEAVES) and depth < MAX_DEPTH:
            return ("V", value if value is None else _plain_leaf(value))
        if depth >= MAX_DEPTH:
            return ("X", "a value nested too deeply")
        if isinstance(value, (list, tuple)):
            tag = "L" if isinstance(value, list) else "T"
            return (tag, [encode_value(item, depth + 1) for item in value])
        if isinstance(value, dict):
            pairs = value.items()
            return (
                "D",
                [[encode_value(k, depth + 1), encode_value(v, depth + 1)] for k, v in pairs],
            )
        if isinstance(value, torch.Tensor):
            return _encode_tensor(value)
        if isinstance(value, np.ndarray) and value.dtype != object:
            return ("N", torch.from_numpy(np.array(value, copy=True)))
        if isinstance(value, (np.bool_, np.number)):
            return ("S", torch.from_numpy(np.asarray(value).copy()))
    except Exception:  # noqa: BLE001 - a value that resists reading is sent by name only
        pass
    kind = type(value)
    return ("X", f"{kind.__module__}.{kind.__qualname__}")


def _plain_leaf(value: bool | int | float | str) -> bool | int | float | str:
    """The built-in value itself, whatever subclass of a built-in type holds it."""
    for leaf in (bool, int, float, str):
        if isinstance(value, leaf):
            return leaf(value)
    raise TypeError(f"not a plain value: {type(value).__name__}")


def _encode_tensor(value: torch.Tensor) -> tuple[str, Any]:
    if value.layout != torch.strided:
        return ("X", f"torch.Tensor with layout {value.layout}")
    return ("P", value.detach().cpu().as_subclass(torch.Tensor).clone())
