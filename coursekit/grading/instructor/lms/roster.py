"""Fill the assignment's column of the gradebook an LMS exports, so that the LMS imports it back.

``coursekit grade ... --lms canvas --roster export.csv`` reads ``export.csv`` (Canvas's gradebook
export, Moodle's offline grading worksheet, Blackboard's Grade Center download) with every row
and column it has, puts each student's total in the assignment's column, and writes the result in
the roster's row order. Every roster student keeps a row: one without a submission gets 0, and
the report lists them with the reason. A total is scaled when the LMS's assignment is worth
another number of points (a Moodle assignment out of 100 gets ``100 * total / 8``). Each LMS says
in its own module (:mod:`.canvas`, :mod:`.moodle`, :mod:`.blackboard`) how it names students and
columns. See the book's Exercises page, "From your LMS and back".
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from coursekit.grading.instructor.gradebook import SubmissionGrade, points_text, write_atomically

NO_SUBMISSION = "no submission"
ENCODINGS = {b"\xff\xfe": "utf-16", b"\xfe\xff": "utf-16", b"\xef\xbb\xbf": "utf-8-sig"}


@dataclass(frozen=True)
class Score:
    """What a student's row of the LMS gets: the total out of ``possible``, and why."""

    total: float
    possible: float
    status: str
    reason: str = ""


@dataclass(frozen=True)
class Roster:
    """An LMS's gradebook export: its header and every row after it, as text."""

    path: Path
    header: list[str]
    rows: list[list[str]]


@dataclass(frozen=True)
class ImportReport:
    """What :func:`write_grade_import` wrote: the file, the column, and the students it could not
    match (roster students without a submission, graded students missing from the roster)."""

    path: Path
    column: str
    students: int
    missing: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    scaled_to: float | None = None


class LmsFormat:
    """How one LMS names students and assignment columns in its gradebook CSV.

    Subclasses set the class attributes and override what their LMS does differently.
    """

    name = ""
    #: The roster column holding the id a student's submission carries.
    key_column = ""
    #: How to get the roster from the LMS, said when the file given is not one.
    export_hint = ""
    #: Blackboard wants every field of a comma-separated upload in quotes.
    quote_all = False
    #: A column the LMS imports as feedback to the student, filled when the roster has it.
    feedback_column: str | None = None

    def student(self, key: str) -> str | None:
        """The student id in the key column's cell ``key``; None for a row that is no student."""
        return key.strip() or None

    def label(self, column: str) -> str:
        """The assignment's name in a column header (without the LMS's id and points)."""
        return column.strip()

    def new_column(self, assignment: str, possible: float) -> str:
        """The header of the column added when the roster has none for the assignment."""
        return assignment

    def points_possible(self, roster: Roster, column: int) -> float | None:
        """What the LMS says the assignment is worth, when the roster says it."""
        return None

    def other_row(self, row: list[str], column: int, possible: float, new: bool) -> None:
        """Fill a row that is no student's (e.g. Canvas's "Points Possible"); nothing by default."""

    def find_column(self, roster: Roster, assignment: str, requested: str | None) -> int | None:
        """The index of the assignment's column: ``requested`` (``--lms-column``), else the one
        whose :meth:`label` is the assignment's name; None when there is none to fill."""
        if requested is not None:
            if requested not in roster.header:
                raise ValueError(
                    f"{roster.path} has no column {requested!r} (--lms-column); its columns are "
                    f"{', '.join(map(repr, roster.header))}"
                )
            return roster.header.index(requested)
        matches = [
            index
            for index, column in enumerate(roster.header)
            if self.label(column).casefold() == assignment.casefold()
        ]
        if len(matches) > 1:
            names = ", ".join(repr(roster.header[index]) for index in matches)
            raise ValueError(
                f"{roster.path} has several columns for {assignment} ({names}); pass the one to "
                f"fill with --lms-column"
            )
        return matches[0] if matches else None

    def feedback(self, score: Score | None) -> str:
        """The feedback text of a student's row: the points and the status with its reason."""
        if score is None:
            return f"0 points: {NO_SUBMISSION}"
        text = f"{points_text(score.total)} / {points_text(score.possible)} points ({score.status})"
        return f"{text}: {score.reason}" if score.reason else text


def scores_from_grades(grades: Iterable[SubmissionGrade]) -> dict[str, Score]:
    """Each graded student's :class:`Score`, by student id."""
    return {
        grade.student: Score(grade.total, grade.possible, grade.status, grade.reason)
        for grade in grades
    }


def scores_from_gradebook(path: Path, possible: float) -> dict[str, Score]:
    """Each student's :class:`Score` from a ``coursekit grade`` CSV (e.g. merged shards)."""
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    try:
        return {
            row["student"]: Score(float(row["total"]), possible, row["status"], row["reason"])
            for row in rows
        }
    except (KeyError, ValueError) as error:
        raise ValueError(f"{path} is not a gradebook of coursekit grade ({error})") from None


def read_roster(path: Path, lms: LmsFormat) -> Roster:
    """The roster at ``path``: UTF-8 or UTF-16 (as Blackboard downloads), commas or tabs."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ValueError(f"cannot read the roster {path} ({error.strerror})") from None
    encoding = next(
        (name for mark, name in ENCODINGS.items() if data.startswith(mark)), "utf-8-sig"
    )
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        raise ValueError(
            f"the roster {path} is not UTF-8 or UTF-16 text (byte {error.start}); {lms.export_hint}"
        ) from None
    first_line = text.split("\n", 1)[0]
    delimiter = "\t" if first_line.count("\t") > first_line.count(",") else ","
    table = [row for row in csv.reader(io.StringIO(text), delimiter=delimiter) if any(row)]
    if not table or lms.key_column not in table[0]:
        raise ValueError(
            f"the roster {path} has no {lms.key_column!r} column, so it is not the gradebook "
            f"{lms.name} exports; {lms.export_hint}"
        )
    width = len(table[0])
    rows = [row + [""] * (width - len(row)) for row in table[1:]]
    return Roster(path, table[0], rows)


def write_grade_import(
    scores: Mapping[str, Score],
    roster: Roster,
    lms: LmsFormat,
    assignment: str,
    possible: float,
    out: Path,
    column_name: str | None = None,
) -> ImportReport:
    """Write ``roster`` to ``out`` with each student's total in the assignment's column (see the
    module docstring); ``column_name`` is ``--lms-column``."""
    header = list(roster.header)
    rows = [list(row) for row in roster.rows]
    column = lms.find_column(roster, assignment, column_name)
    new = column is None
    if column is None:
        header.append(lms.new_column(assignment, possible))
        for row in rows:
            row.append("")
        column = len(header) - 1
    maximum = None if new else lms.points_possible(roster, column)
    scale = maximum / possible if maximum and possible and abs(maximum - possible) > 1e-9 else 1
    key = header.index(lms.key_column)
    feedback = header.index(lms.feedback_column) if lms.feedback_column in header else None
    missing, listed = [], set()
    for row in rows:
        student = lms.student(row[key])
        if student is None:
            lms.other_row(row, column, possible, new)
            continue
        listed.add(student)
        score = scores.get(student)
        if score is None:
            missing.append(student)
        row[column] = points_text(round(score.total * scale, 2)) if score else "0"
        if feedback is not None:
            row[feedback] = lms.feedback(score)
    buffer = io.StringIO()
    writer = (
        csv.writer(buffer, lineterminator="\n", quoting=csv.QUOTE_ALL)
        if lms.quote_all
        else csv.writer(buffer, lineterminator="\n")
    )
    writer.writerow(header)
    writer.writerows(rows)
    write_atomically(out, buffer.getvalue())
    return ImportReport(
        out,
        header[column],
        len(listed),
        missing,
        sorted(set(scores) - listed),
        maximum if scale != 1 else None,
    )
