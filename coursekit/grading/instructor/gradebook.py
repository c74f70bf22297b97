"""The grader's records and what it writes: the class CSV and one Markdown feedback file each.

A :class:`SubmissionGrade` holds a student's status (``ok``, ``error``, ``timeout``, ``memory``,
``crashed`` or ``invalid-notebook``), the reason for it, and one :class:`QuestionGrade` per
question with the verdict of every test. The CSV has one row per student, sorted by id, with the
points of each question, the total, the status and the reason; it is written to a temporary file
and renamed, so a reader never sees half a gradebook. Hidden tests appear in feedback only as
"hidden test 2 failed". Chapter 1, Text as sequences, has the first graded exercises; see the
book's Exercises page.
"""

from __future__ import annotations

import csv
import io
import os
import tempfile
from collections.abc import Collection, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from coursekit.grading.results import CaseResult

SubmissionStatus = Literal["ok", "error", "timeout", "memory", "crashed", "invalid-notebook"]
STATUSES: tuple[SubmissionStatus, ...] = (
    "ok",
    "error",
    "timeout",
    "memory",
    "crashed",
    "invalid-notebook",
)
FIXED_COLUMNS_BEFORE = ("student",)
FIXED_COLUMNS_AFTER = ("total", "status", "reason")
LATE_COLUMN = "late"


@dataclass(frozen=True)
class QuestionGrade:
    """The points a question earned and why: ``reason`` is empty when its tests were run, else
    ``"missing"``, ``"timeout"``, ... with a sentence after it."""

    question_id: str
    title: str
    points_possible: float
    points_earned: float = 0.0
    reason: str = ""
    tests: tuple[CaseResult, ...] = ()

    @property
    def not_implemented(self) -> bool:
        """True when every test met the untouched ``raise NotImplementedError`` stub."""
        return bool(self.tests) and all(test.status == "not implemented" for test in self.tests)


@dataclass(frozen=True)
class SubmissionGrade:
    """A student's grade for one assignment. See the module docstring."""

    student: str
    source: str
    status: SubmissionStatus
    reason: str = ""
    questions: tuple[QuestionGrade, ...] = field(default_factory=tuple)

    @property
    def total(self) -> float:
        """The sum of the questions' points, rounded to two decimals."""
        return round(sum(question.points_earned for question in self.questions), 2)

    @property
    def possible(self) -> float:
        """The most points the assignment gives."""
        return round(sum(question.points_possible for question in self.questions), 2)

    def to_json(self) -> dict[str, Any]:
        """Plain data for the file a grading process hands back."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SubmissionGrade:
        """The inverse of :meth:`to_json`."""
        questions = tuple(
            QuestionGrade(
                **{key: value for key, value in question.items() if key != "tests"},
                tests=tuple(
                    CaseResult(
                        **{
                            **test,
                            "mistakes": tuple(test["mistakes"]),
                            "untold": tuple(test["untold"]),
                        }
                    )
                    for test in question["tests"]
                ),
            )
            for question in data["questions"]
        )
        return cls(data["student"], data["source"], data["status"], data["reason"], questions)


def points_text(points: float) -> str:
    """``2``, ``1.6``, ``0.67``: no trailing zeros, as gradebooks like them."""
    return f"{points:g}"


# The CSV ----------------------------------------------------------------------------------------


def csv_header(question_ids: Sequence[str]) -> list[str]:
    """``student``, one column per question id, ``total``, ``status``, ``reason``."""
    return [*FIXED_COLUMNS_BEFORE, *question_ids, *FIXED_COLUMNS_AFTER]


def csv_row(grade: SubmissionGrade, question_ids: Sequence[str]) -> list[str]:
    """The gradebook row of ``grade``, in the column order of :func:`csv_header`."""
    points = {question.question_id: question.points_earned for question in grade.questions}
    return [
        grade.student,
        *(points_text(points.get(question_id, 0.0)) for question_id in question_ids),
        points_text(grade.total),
        grade.status,
        grade.reason,
    ]


def write_csv(rows: Iterable[Sequence[str]], header: Sequence[str], path: Path) -> None:
    """Write ``header`` and ``rows`` sorted by student id, atomically (temporary file, rename)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    ordered: list[Sequence[str]] = sorted(rows, key=lambda row: row[0])
    writer.writerows(ordered)
    write_atomically(path, buffer.getvalue())


def write_gradebook(
    grades: Iterable[SubmissionGrade],
    question_ids: Sequence[str],
    path: Path,
    late: Collection[str] | None = None,
) -> None:
    """The class CSV: one row per student, see the module docstring. With ``late`` (the students
    whose submission an LMS marked late), a ``late`` column follows ``reason``: ``yes`` or empty."""
    rows = [csv_row(grade, question_ids) for grade in grades]
    header = csv_header(question_ids)
    if late is not None:
        header.append(LATE_COLUMN)
        rows = [[*row, "yes" if row[0] in late else ""] for row in rows]
    write_csv(rows, header, path)


def merge_gradebooks(inputs: Sequence[Path], output: Path) -> int:
    """Combine the CSVs of ``coursekit grade --shard I/N`` runs into one; return the row count.

    The inputs must have the same header and no student in two of them.
    """
    header: list[str] | None = None
    rows: dict[str, list[str]] = {}
    for path in inputs:
        with path.open(newline="", encoding="utf-8") as handle:
            table = list(csv.reader(handle))
        if not table:
            raise ValueError(f"{path} is empty")
        if header is not None and table[0] != header:
            raise ValueError(f"{path} has other columns than {inputs[0]}")
        header = table[0]
        for row in table[1:]:
            if row[0] in rows:
                raise ValueError(f"student {row[0]!r} appears in more than one input ({path})")
            rows[row[0]] = row
    if header is None:
        raise ValueError("no gradebooks to merge")
    write_csv(rows.values(), header, output)
    return len(rows)


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


# Feedback ---------------------------------------------------------------------------------------


def feedback_markdown(grade: SubmissionGrade, assignment: str) -> str:
    """The student's feedback: total, status, a table of points, then every test that failed."""
    lines = [
        f"# {assignment}: feedback for {grade.student}",
        "",
        f"**Total: {points_text(grade.total)} / {points_text(grade.possible)} points.** "
        f"Status: {grade.status}{f' ({_inline(grade.reason)})' if grade.reason else ''}.",
        "",
    ]
    if grade.questions:
        lines += ["| question | points |", "|---|---|"]
        lines += [
            f"| {question.question_id} {question.title} | "
            f"{points_text(question.points_earned)} / {points_text(question.points_possible)} |"
            for question in grade.questions
        ]
    for question in grade.questions:
        lines += [
            "",
            f"## {question.question_id} {question.title}",
            "",
            question_feedback(question),
        ]
    return "\n".join(lines) + "\n"


def question_feedback(question: QuestionGrade) -> str:
    """A question's feedback: its points and tests passed, then a line per failed test (hidden
    tests by number only)."""
    lines = [_question_summary(question)]
    if not question.not_implemented:
        lines += [_test_line(test) for test in question.tests if not test.passed]
    return "\n".join(lines)


def _question_summary(question: QuestionGrade) -> str:
    score = (
        f"{points_text(question.points_earned)} / {points_text(question.points_possible)} points"
    )
    if question.reason:
        return f"{score}: {_inline(question.reason)}"
    if question.not_implemented:
        return f"{score}: not implemented yet."
    passed = sum(test.passed for test in question.tests)
    return f"{score}: {passed} of {len(question.tests)} tests passed."


def _test_line(test: CaseResult) -> str:
    verb = {"error": "raised an error", "not implemented": "is not implemented"}
    line = f"- {test.label} {verb.get(test.status, test.status)}"
    if test.description:
        line += f" ({_inline(test.description)})"
    if test.explained_message():
        line += f": {_inline(test.explained_message())}"
    return line


def _inline(text: str) -> str:
    """``text`` as Markdown code, so that a message cannot format the page."""
    cleaned = " ".join(text.split()).replace("`", "'")
    return f"`{cleaned}`"


def write_feedback(grades: Iterable[SubmissionGrade], assignment: str, folder: Path) -> None:
    """One ``<student>.md`` per grade in ``folder``."""
    for grade in grades:
        write_atomically(folder / f"{grade.student}.md", feedback_markdown(grade, assignment))
