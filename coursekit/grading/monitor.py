"""Notice when an answer runs an implementation its question forbids.

A question may forbid the package function it asks the student to write, its torch twin, or
autograd in a gradient to be derived by hand (:attr:`Question.forbidden`); the question's own
reference is always forbidden. :class:`ImplementationIndex` recognises their Python code: by
identity (a direct call, or an alias taken earlier) and by qualified name together with bytecode
(the same function after ``importlib.reload``, or its source read and executed again).
Implementations written in C have no Python code to watch; a builtin function (such as
``torch.nn.functional.scaled_dot_product_attention``) is recognised by identity when it is
called, through a profile function that the watchers install only when a question forbids one.

Two watchers use the index. In the student's kernel, ``check`` runs each call under a
:class:`CallMonitor`, which names the first forbidden implementation that ran. In the grader's
sandboxed kernel a :class:`DelegationRecorder`, installed before the notebook runs and protected
by the sandbox's guard, writes every question whose implementations ran to a file the notebook
can neither read nor write; the grader reads it around each question. See the book's Exercises
page, which states what this defends against and what it does not.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from types import BuiltinFunctionType, CodeType, FrameType, FunctionType
from typing import Any

from coursekit.grading.questions import Question

Fingerprint = tuple[str, bytes, tuple[str, ...], tuple[str, ...], tuple[str, ...]]


def qualified_name(code: CodeType) -> str:
    """``Vocab.__init__`` for a method, the plain name where Python 3.10 keeps no qualname."""
    return getattr(code, "co_qualname", code.co_name)


def constant_text(constant: Any) -> str:
    """A constant as text that does not depend on the process: a nested code object by its
    name, a frozenset (``x in {"a", "b"}``) in sorted order."""
    if isinstance(constant, CodeType):
        return qualified_name(constant)
    if isinstance(constant, frozenset):
        return repr(sorted(map(repr, constant)))
    return repr(constant)


def fingerprint(code: CodeType) -> Fingerprint:
    """What stays the same when a function is compiled again from the same source: its name,
    bytecode, the names and local variables it uses and its constants. The bytecode alone is
    not enough, since it refers to names by index: on Python 3.10, where a comprehension's
    name is only ``<genexpr>``, a student's ``(t for t in tokens)`` would match the one
    inside a reference."""
    constants = tuple(map(constant_text, code.co_consts))
    return qualified_name(code), code.co_code, code.co_names, code.co_varnames, constants


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


class ImplementationIndex:
    """Labels attached to the code of watched implementations; :meth:`identify` finds them."""

    def __init__(self) -> None:
        self.by_code: dict[CodeType, set[str]] = {}
        self.by_fingerprint: dict[Fingerprint, set[str]] = {}
        self.names: set[str] = set()
        self.builtins: dict[int, set[str]] = {}
        self._kept_builtins: list[BuiltinFunctionType] = []  # their ids stay theirs

    def add(self, implementation: Any, label: str) -> None:
        """Watch every code object of ``implementation`` under ``label`` (a builtin function by
        identity)."""
        if isinstance(implementation, BuiltinFunctionType):
            self.builtins.setdefault(id(implementation), set()).add(label)
            self._kept_builtins.append(implementation)
            return
        for code in python_code(implementation):
            self.by_code.setdefault(code, set()).add(label)
            name = qualified_name(code)
            if name.startswith("<"):  # Python 3.10: a nested "<lambda>" or "<listcomp>" has no
                continue  # qualname, so a student's copy of the same one line is not told apart
            self.by_fingerprint.setdefault(fingerprint(code), set()).add(label)
            self.names.add(name)

    def identify(self, code: CodeType) -> set[str]:
        """The labels of ``code``: none for code that is not watched (the common, fast case)."""
        labels = self.by_code.get(code)
        if labels is None and qualified_name(code) in self.names:
            labels = self.by_fingerprint.get(fingerprint(code))
        return labels or set()

    def identify_builtin(self, function: Any) -> set[str]:
        """The labels of a builtin ``function`` a ``c_call`` profile event names."""
        return self.builtins.get(id(function), set())


class CallMonitor:
    """``with CallMonitor(implementations) as monitor:`` records in ``monitor.called`` the name
    of the first watched implementation that ran inside the block (None if none did).

    It installs a trace function for the block (``sys.settrace``: new Python frames only, no line
    events) and puts back the one that was there. Where tracing is not allowed (the grader's
    sandbox, which watches on its own) it watches nothing.
    """

    def __init__(self, implementations: Iterable[Any]) -> None:
        self.index = ImplementationIndex()
        for implementation in implementations:
            self.index.add(implementation, display_name(implementation))
        self.called: str | None = None
        self._previous: Callable[..., Any] | None = None
        self._previous_profile: Callable[..., Any] | None = None

    def _trace(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and self.called is None:
            self.called = min(self.index.identify(frame.f_code), default=None)

    def _profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "c_call" and self.called is None:
            self.called = min(self.index.identify_builtin(arg), default=None)

    def __enter__(self) -> CallMonitor:
        self.called = None
        self._previous = sys.gettrace()
        try:
            sys.settrace(self._trace)
        except PermissionError:
            self._previous = None
        if self.index.builtins:
            self._previous_profile = sys.getprofile()
            try:
                sys.setprofile(self._profile)
            except PermissionError:
                self._previous_profile = None
        return self

    def __exit__(self, *exception: object) -> None:
        if sys.gettrace() == self._trace:
            sys.settrace(self._previous)
        if sys.getprofile() == self._profile:
            sys.setprofile(self._previous_profile)


class DelegationRecorder:
    """The grading kernel's watcher: which questions' implementations ran, written to a file.

    :meth:`trace` is installed with ``sys.settrace`` before the notebook runs. Each time code of
    a question's reference or forbidden implementations starts, the line
    ``<question id>\\t<implementation>`` is appended to ``log_fd`` (a file in the grader's private
    folder, opened before the sandbox's guard closes the file system), once per question until
    the grader empties the file before its next question.
    """

    def __init__(self, questions: Iterable[Question], log_fd: int) -> None:
        self.index = ImplementationIndex()
        for question in questions:
            for implementation in question.watched_implementations():
                self.index.add(implementation, f"{question.id}\t{display_name(implementation)}")
        self.log_fd = log_fd
        self.reported: set[str] = set()

    def trace(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            labels = self.index.identify(frame.f_code)
            if labels:
                self.record(labels)

    def profile(self, frame: FrameType, event: str, arg: Any) -> None:
        """The profile function that sees builtins called (installed only when one is watched)."""
        if event == "c_call":
            labels = self.index.identify_builtin(arg)
            if labels:
                self.record(labels)

    def record(self, labels: set[str]) -> None:
        """Append the labels not reported since the grader last emptied the file."""
        if os.fstat(self.log_fd).st_size == 0:
            self.reported.clear()
        for label in sorted(labels - self.reported):
            os.write(self.log_fd, f"{label}\n".encode())
            self.reported.add(label)


def read_delegations(log: str) -> dict[str, str]:
    """``{question id: implementation}`` from a recorder's file (the first one per question)."""
    found: dict[str, str] = {}
    for line in log.splitlines():
        question_id, _, implementation = line.partition("\t")
        if implementation:
            found.setdefault(question_id, implementation)
    return found
