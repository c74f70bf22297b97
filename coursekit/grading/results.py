"""What grading a question produced: one :class:`CaseResult` per case, summed in a
:class:`QuestionResult` that a notebook prints and a gradebook stores as JSON.

Scoring is proportional: a question worth ``p`` points whose answer passes ``k`` of its ``n``
cases earns ``p * k / n`` points, rounded to two decimals. Chapter 1, Text as sequences, has the
first exercises graded this way.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Status = Literal["passed", "failed", "not implemented", "error"]


def partial_credit(points: float, passed: int, cases: int) -> float:
    """The scoring rule of every question, in ``check`` and in the grader alike:
    ``points * passed / cases``, rounded to two decimals (0 for a question without cases)."""
    return round(points * passed / cases, 2) if cases else 0.0


def mistake_hint(note: str) -> str:
    """How ``check`` and the grader name a classic mistake the answer made (book: Exercises)."""
    return f"your result is the one this mistake gives: {note}"


@dataclass(frozen=True)
class CaseResult:
    """The verdict on one case: ``status`` is ``"passed"``, ``"failed"`` (wrong value),
    ``"not implemented"`` (the stub raised ``NotImplementedError``) or ``"error"`` (another
    exception); ``message`` says what went wrong and is empty when the case passed; ``hint``
    suggests the likely cause (a missing ``return``, float32 arithmetic); ``forbidden_call``
    names a forbidden implementation the answer called (:mod:`coursekit.grading.monitor`);
    ``mistakes`` holds the notes of the classic mistakes whose result the answer returned
    (:class:`~coursekit.grading.questions.Mistake`), ``untold`` those this case cannot show;
    after :func:`~coursekit.grading.run.consistent_mistakes`, ``mistakes`` holds at most the one
    mistake made on every failing test that can show it. ``hidden`` marks a hidden test of the
    grader, which keeps only its number and status: its inputs are never shown.

    See the book's Exercises page.
    """

    number: int
    description: str
    status: Status
    message: str = ""
    hint: str = ""
    forbidden_call: str = ""
    mistakes: tuple[str, ...] = ()
    untold: tuple[str, ...] = ()
    hidden: bool = False

    @property
    def passed(self) -> bool:
        """True when the answer matched the reference on this case."""
        return self.status == "passed"

    @property
    def label(self) -> str:
        """``"test 3"`` or, for a hidden test, ``"hidden test 2"``."""
        return f"{'hidden test' if self.hidden else 'test'} {self.number}"

    def explained_message(self) -> str:
        """The message followed by the hint and the classic mistake the answer made, if any."""
        hints = [self.hint, *map(mistake_hint, self.mistakes)]
        return self.message + "".join(f" (hint: {hint})" for hint in hints if hint)


@dataclass(frozen=True)
class QuestionResult:
    """The verdict on one question, summarised from its cases.

    ``status`` is ``"passed"`` when every case passed, ``"not implemented"`` when every case
    raised ``NotImplementedError``, ``"error"`` when any case raised another exception, and
    ``"failed"`` otherwise.

    See the book's Exercises page.
    """

    question_id: str
    title: str
    answer_name: str
    points_possible: float
    cases: list[CaseResult] = field(default_factory=list)

    @property
    def passed_count(self) -> int:
        """How many cases passed."""
        return sum(case.passed for case in self.cases)

    @property
    def points_earned(self) -> float:
        """The question's share of its points: :func:`partial_credit`."""
        return partial_credit(self.points_possible, self.passed_count, len(self.cases))

    @property
    def status(self) -> Status:
        """The question's status, by the rule in the class docstring."""
        statuses = {case.status for case in self.cases}
        if statuses == {"passed"}:
            return "passed"
        if statuses == {"not implemented"}:
            return "not implemented"
        if "error" in statuses:
            return "error"
        return "failed"

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-serialisable data: ids, status, points and every case's verdict."""
        return {
            "question_id": self.question_id,
            "title": self.title,
            "status": self.status,
            "points_earned": self.points_earned,
            "points_possible": self.points_possible,
            "passed": self.passed_count,
            "total": len(self.cases),
            "cases": [{**asdict(case), "passed": case.passed} for case in self.cases],
        }

    def _ipython_display_(self) -> None:
        """Show nothing in a notebook: ``check`` has printed the report already."""

    def __repr__(self) -> str:
        earned, possible = self.points_earned, self.points_possible
        return f"<QuestionResult {self.question_id}: {self.status}, {earned:g}/{possible:g} points>"
