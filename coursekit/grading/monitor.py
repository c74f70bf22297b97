"""Notice when an answer calls an implementation its question forbids.

A question may forbid the package function it asks the student to write, its torch twin, or
autograd in a gradient to be derived by hand (:attr:`Question.forbidden`); the question's own
reference is always forbidden. :class:`CallMonitor` watches the Python code of those
implementations while an answer runs and reports the first one that ran.

A code object is recognised by identity (a direct call, or an alias taken earlier) and by its
qualified name together with its bytecode (the same function after ``importlib.reload``, or its
source read and executed again). Implementations written in C have no Python code to watch, so
a question can only forbid Python functions, methods and classes. See the book's Exercises page.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from types import CodeType, FrameType, FunctionType
from typing import Any

Fingerprint = tuple[str, bytes]


def qualified_name(code: CodeType) -> str:
    """``Vocab.__init__`` for a method, the plain name where Python 3.10 keeps no qualname."""
    return getattr(code, "co_qualname", code.co_name)


def fingerprint(code: CodeType) -> Fingerprint:
    """What stays the same when a function is compiled again from the same source."""
    return qualified_name(code), code.co_code


def nested_code(code: CodeType) -> Iterator[CodeType]:
    """``code`` and every code object defined inside it (inner functions, comprehensions)."""
    yield code
    for constant in code.co_consts:
        if isinstance(constant, CodeType):
            yield from nested_code(constant)


def python_code(implementation: Any) -> list[CodeType]:
    """The code objects of a Python function, method, property or class (all its methods).

    Raises ``TypeError`` for something without Python code, such as a builtin: it cannot be
    watched, so a question must not list it.
    """
    if isinstance(implementation, type):
        members = vars(implementation).values()
        return [code for member in members for code in _member_code(member)]
    function = getattr(implementation, "__func__", implementation)
    function = getattr(function, "__wrapped__", function)
    if not isinstance(function, FunctionType):
        raise TypeError(
            f"{implementation!r} has no Python code to watch; forbid the Python function that "
            "calls it instead"
        )
    return list(nested_code(function.__code__))


def _member_code(member: Any) -> list[CodeType]:
    if isinstance(member, property):
        return [code for part in (member.fget, member.fset) if part for code in python_code(part)]
    if isinstance(member, (staticmethod, classmethod, FunctionType)):
        return python_code(member)
    return []


def display_name(implementation: Any) -> str:
    """``coursekit.text.vocab.build_vocab_from_iterator``: how a report names it."""
    function = getattr(implementation, "__func__", implementation)
    module = getattr(function, "__module__", None) or "?"
    return f"{module}.{getattr(function, '__qualname__', repr(function))}"


class CallMonitor:
    """``with CallMonitor(implementations) as monitor:`` records in ``monitor.called`` the name
    of the first watched implementation that ran inside the block (None if none did).

    It installs a trace function for the duration of the block (``sys.settrace``, events of new
    Python frames only, no line events) and puts back the one that was there before.
    """

    def __init__(self, implementations: Iterable[Any]) -> None:
        self.names: dict[CodeType, str] = {}
        by_fingerprint: dict[Fingerprint, str] = {}
        for implementation in implementations:
            name = display_name(implementation)
            for code in python_code(implementation):
                self.names[code] = name
                by_fingerprint[fingerprint(code)] = name
        self.by_fingerprint = by_fingerprint
        self.watched_names = {qualified_name(code) for code in self.names}
        self.called: str | None = None
        self._previous: Callable[..., Any] | None = None

    def identify(self, code: CodeType) -> str | None:
        """The watched implementation that ``code`` is, or None."""
        name = self.names.get(code)
        if name is None and qualified_name(code) in self.watched_names:
            name = self.by_fingerprint.get(fingerprint(code))
        return name

    def _trace(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and self.called is None:
            self.called = self.identify(frame.f_code)

    def __enter__(self) -> CallMonitor:
        self.called = None
        self._previous = sys.gettrace()
        sys.settrace(self._trace)
        return self

    def __exit__(self, *exception: object) -> None:
        sys.settrace(self._previous)
