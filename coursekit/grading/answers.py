"""Call a student's function on one test case and record what happened, as plain data.

This is the only step of grading that runs student code. It can run in the student's own kernel
(``check``) or in a separate process driven by a grader; either way the outcome is a value or an
:class:`AnswerError` made of strings, which a grader can receive without unpickling anything.
"""

from __future__ import annotations

import copy
import re
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from coursekit.grading.monitor import CallMonitor
from coursekit.grading.questions import Case

MAX_MESSAGE_CHARACTERS = 300
MEMORY_ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,}")


@dataclass(frozen=True)
class AnswerError:
    """Why a call of the student's function produced no value.

    ``kind`` is ``"not implemented"`` for a stub that still raises ``NotImplementedError`` and
    ``"error"`` for any other exception; ``location`` names the line of the student's code that
    raised, e.g. ``"line 4 in build_vocab: counts[token] += 1"``, when it can be found.

    See the book's Exercises page.
    """

    kind: Literal["not implemented", "error"]
    exception_type: str
    message: str
    location: str | None = None

    def describe(self) -> str:
        """One line for the report, e.g. ``"IndexError: list index out of range (line 4 ...)"``."""
        text = f"{self.exception_type}: {self.message}" if self.message else self.exception_type
        return f"{text} ({self.location})" if self.location else text


@dataclass(frozen=True)
class AnswerOutcome:
    """The result of one call: the returned ``value``, or the ``error`` that stopped it, and the
    forbidden implementation the call ran, if any (``forbidden_call``).

    See the book's Exercises page.
    """

    value: Any = None
    error: AnswerError | None = None
    forbidden_call: str | None = None


def call_answer(
    answer: Callable[..., Any], case: Case, monitor: CallMonitor | None = None
) -> AnswerOutcome:
    """Call ``answer(*case.args, **case.kwargs)`` on a private copy of the arguments.

    Every ``Exception`` is caught and described, so one failing case never stops the others;
    the copy means an answer that modifies its arguments cannot change the next case. With a
    ``monitor`` (:class:`~coursekit.grading.monitor.CallMonitor`), the outcome records the first
    forbidden implementation the call ran.

    See the book's Exercises page.
    """
    args = copy.deepcopy(case.args)
    kwargs = copy.deepcopy(case.kwargs)
    watching = monitor if monitor is not None else CallMonitor(())
    try:
        with watching:
            value = answer(*args, **kwargs)
        return AnswerOutcome(value=value, forbidden_call=watching.called)
    except NotImplementedError:
        return AnswerOutcome(error=AnswerError("not implemented", "NotImplementedError", ""))
    except Exception as error:  # noqa: BLE001 - any failure of student code is a graded outcome
        return AnswerOutcome(error=describe_exception(error, answer))


def describe_exception(error: BaseException, answer: Callable[..., Any]) -> AnswerError:
    """Name the exception, its message (memory addresses masked, length capped) and its line.

    The line is the last frame of the traceback that lies in the file where ``answer`` was
    defined; in a notebook that file is the answer's cell, so line numbers count from the cell's
    first line.

    See the book's Exercises page.
    """
    try:
        message = MEMORY_ADDRESS.sub("0x...", str(error))
    except Exception:  # noqa: BLE001 - an exception whose __str__ fails still gets reported
        message = "(the exception's message could not be shown)"
    if len(message) > MAX_MESSAGE_CHARACTERS:
        message = message[: MAX_MESSAGE_CHARACTERS - 3] + "..."
    return AnswerError("error", type(error).__name__, message, _location(error, answer))


def _location(error: BaseException, answer: Callable[..., Any]) -> str | None:
    code = getattr(answer, "__code__", None)
    if code is None:
        return None
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if frame.filename == code.co_filename
    ]
    if not frames:
        return None
    frame = frames[-1]
    source = f": {frame.line.strip()}" if frame.line else ""
    return f"line {frame.lineno} in {frame.name}{source}"
