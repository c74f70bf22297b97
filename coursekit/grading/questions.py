"""Graded questions: what a question is, how its test cases are drawn, and where questions live.

A :class:`Question` pairs a reference implementation with a seeded generator of test
:class:`Case`\\ s. The seed comes from the question's id through SHA-256, so every Python process
(the student's kernel, the instructor's grader, CI) draws the same cases. Questions are registered
by the chapter modules of :mod:`coursekit.grading.bank`, which are imported on first use of their
prefix: asking for ``"ch01.q2"`` imports ``coursekit.grading.bank.ch01``.
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import pkgutil
import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from coursekit.grading.compare import compare

QUESTION_ID = re.compile(r"^(?P<chapter>ch\d{2})\.q\d+$")


class UnknownQuestionError(LookupError):
    """Raised for a question id that no chapter of the bank registers (book: Exercises)."""


@dataclass(frozen=True)
class Case:
    """One test of a question: the arguments the answer is called with, as plain data.

    ``args`` and ``kwargs`` hold only ints, floats, bools, strings, ``None``, torch tensors and
    lists, tuples or dicts of those, so a grader can send them to another process. ``rtol`` and
    ``atol`` override the default tolerance of :func:`coursekit.grading.compare.compare` for this
    case; ``description`` tells the student what the case exercises ("3 sentences, min_freq=2").

    See the book's Exercises page.
    """

    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    rtol: float | None = None
    atol: float | None = None


CaseGenerator = Callable[[random.Random], Iterable[Case]]


@dataclass(frozen=True)
class Mistake:
    """A classic wrong answer to a question: ``answer`` makes the mistake that ``note`` names
    ("tanh' taken at h_{t-1} instead of h_t"). A failing test prints the note only when the
    student's result equals ``answer``'s on that test, so the note never names another mistake.

    See the book's Exercises page.
    """

    note: str
    answer: Callable[..., Any]


@dataclass(frozen=True)
class Question:
    """A graded exercise: ``answer(*case.args, **case.kwargs)`` must equal ``reference(...)``.

    ``id`` is stable across releases (``"ch01.q2"``: chapter 1, question 2) because gradebooks
    and notebook cell metadata refer to it; ``answer_name`` is the name of the function the
    student writes; ``make_cases`` draws the cases from the random generator it is given.
    ``forbidden`` lists the implementations an answer may not call (the package function the
    question asks the student to write, its torch twin, autograd for a gradient by hand); the
    reference itself is always forbidden. ``output_names`` names the items of a returned tuple
    (``("padded", "mask")``), so that a report says which item differs. ``mistakes`` are the
    classic wrong answers whose notes a failing test may print (:class:`Mistake`).

    See the book's Exercises page.
    """

    id: str
    title: str
    points: float
    answer_name: str
    reference: Callable[..., Any]
    make_cases: CaseGenerator
    forbidden: tuple[Callable[..., Any], ...] = ()
    output_names: tuple[str, ...] = ()
    mistakes: tuple[Mistake, ...] = ()

    def __post_init__(self) -> None:
        if not QUESTION_ID.match(self.id):
            raise ValueError(f"question id {self.id!r} must look like 'ch01.q2'")
        if self.points <= 0:
            raise ValueError(f"question {self.id} must be worth more than 0 points")

    def watched_implementations(self) -> tuple[Callable[..., Any], ...]:
        """What an answer may not call: the reference and the ``forbidden`` implementations."""
        return (self.reference, *self.forbidden)

    def expected(self, case: Case) -> Any:
        """The reference answer for ``case``, computed on a private copy of its arguments."""
        return self.reference(*copy.deepcopy(case.args), **copy.deepcopy(case.kwargs))

    def mistakes_made(
        self, case: Case, value: Any, expected: Any
    ) -> tuple[tuple[Mistake, ...], tuple[Mistake, ...]]:
        """The ``mistakes`` whose answer to ``case`` equals ``value`` (under the case's
        tolerance; several where the case cannot tell them apart), and those this case cannot
        show: their answer raises on it, or equals the ``expected`` one (a "K - 1 steps"
        mistake at K = 1)."""
        made, not_here = [], []
        for mistake in self.mistakes:
            try:
                wrong = mistake.answer(*copy.deepcopy(case.args), **copy.deepcopy(case.kwargs))
            except Exception:  # noqa: BLE001 - a mistake may not apply to every case
                not_here.append(mistake)
                continue
            if _equal(wrong, expected, case):
                not_here.append(mistake)
            elif _equal(wrong, value, case):
                made.append(mistake)
        return tuple(made), tuple(not_here)


def _equal(wrong: Any, value: Any, case: Case) -> bool:
    """Whether ``value`` equals a mistake's result ``wrong`` under the case's tolerance; a value
    that cannot be compared does not."""
    try:
        return compare(wrong, value, rtol=case.rtol, atol=case.atol) is None
    except Exception:  # noqa: BLE001 - a hostile value must not stop the grading
        return False


_REGISTRY: dict[str, Question] = {}


def register(question: Question) -> Question:
    """Add ``question`` to the registry; a second question with the same id is an error.

    See the book's Exercises page.
    """
    if question.id in _REGISTRY and _REGISTRY[question.id] is not question:
        raise ValueError(f"question id {question.id!r} is registered twice")
    _REGISTRY[question.id] = question
    return question


def get_question(question_id: str) -> Question:
    """The registered question ``question_id``, importing its chapter's bank module if needed.

    See the book's Exercises page.
    """
    match = QUESTION_ID.match(question_id) if isinstance(question_id, str) else None
    if match is None:
        raise UnknownQuestionError(f"{question_id!r} is not a question id; ids look like 'ch01.q2'")
    if question_id not in _REGISTRY:
        _import_chapter(match["chapter"])
    if question_id not in _REGISTRY:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        raise UnknownQuestionError(f"no question {question_id!r}; known questions: {known}")
    return _REGISTRY[question_id]


def all_questions() -> list[Question]:
    """Every question of every chapter in the bank, sorted by id. See the book's Exercises page."""
    from coursekit.grading import bank

    for module in pkgutil.iter_modules(bank.__path__):
        _import_chapter(module.name)
    return [_REGISTRY[question_id] for question_id in sorted(_REGISTRY)]


def _import_chapter(chapter: str) -> None:
    """Import ``coursekit.grading.bank.<chapter>`` if it exists; its import registers questions."""
    try:
        importlib.import_module(f"coursekit.grading.bank.{chapter}")
    except ModuleNotFoundError as error:
        if error.name != f"coursekit.grading.bank.{chapter}":
            raise


def case_seed(question_id: str, salt: str = "") -> int:
    """The seed of a question's cases: the first 8 bytes of SHA-256 of the id (and ``#salt``).

    Python's ``hash()`` of a string changes between processes, SHA-256 does not; a grader can pass
    a ``salt`` to draw a second, hidden set of cases (ids never contain ``#``, so no salted seed
    equals another question's seed).

    See the book's Exercises page.
    """
    text = f"{question_id}#{salt}" if salt else question_id
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def generate_cases(question: Question, *, salt: str = "") -> list[Case]:
    """Draw the cases of ``question`` from ``random.Random(case_seed(question.id, salt))``.

    See the book's Exercises page.
    """
    cases = list(question.make_cases(random.Random(case_seed(question.id, salt))))
    if not cases:
        raise ValueError(f"question {question.id} generated no cases")
    return cases
