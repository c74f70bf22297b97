"""Canvas: the files of "Download Submissions" and the gradebook CSV it imports.

**Submissions.** Canvas names each file of its zip ``<lastfirst>_<userid>_<submissionid>_<name>``,
with ``LATE_`` before the user id when the submission came after the due date
(``leebea_LATE_1002_5002_01-text.ipynb``); a file a student handed in again under the same name
gets ``-1``, ``-2`` ... before its extension, and the highest number is the latest. The student
is the Canvas user id, the ``ID`` column of the gradebook.

**Grades.** The gradebook export (Grades, Export, "Export Entire Gradebook") has the columns
``Student``, ``ID``, ``SIS User ID``, ``SIS Login ID``, ``Section``, then one per assignment,
named ``<assignment> (<assignment id>)``, and a second row ``Points Possible``. Canvas's import
matches the rows by ``ID`` and the column by its name; a column it does not know becomes a new
assignment worth what its "Points Possible" cell says. See the book's Exercises page, "From your
LMS and back".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from coursekit.grading.instructor.gradebook import points_text
from coursekit.grading.instructor.lms.files import OwnedFile
from coursekit.grading.instructor.lms.roster import LmsFormat, Roster

FILE_NAME = re.compile(
    r"^(?P<name>[^_]+)_(?:(?P<late>LATE)_)?(?P<user>\d+)_(?P<submission>\d+)_(?P<original>.+)$"
)
RESUBMISSION = re.compile(r"^(?P<base>.+)-(?P<number>\d+)$")
COLUMN_ID = re.compile(r"\s*\(\d+\)\s*$")
POINTS_POSSIBLE = "Points Possible"
EXPECTED_NAME = "<lastfirst>_<userid>_<submissionid>_<file name>"


def owned_file(path: Path) -> OwnedFile | None:
    """The student and original name of a file of Canvas's zip; None when the name is not
    Canvas's."""
    match = FILE_NAME.match(path.name)
    if match is None:
        return None
    return OwnedFile(match["user"], match["original"], path, late=bool(match["late"]))


def latest_versions(files: Iterable[OwnedFile]) -> list[OwnedFile]:
    """``files`` without the ones a later resubmission replaced: of ``a.ipynb``, ``a-1.ipynb``
    and ``a-2.ipynb``, only ``a-2.ipynb`` is kept."""
    latest: dict[str, tuple[int, OwnedFile]] = {}
    for file in files:
        stem, dot, suffix = file.original.rpartition(".")
        if not dot:
            stem, suffix = file.original, ""
        match = RESUBMISSION.match(stem)
        base, number = (match["base"], int(match["number"])) if match else (stem, 0)
        name = f"{base}.{suffix}" if dot else base
        if name not in latest or number > latest[name][0]:
            latest[name] = (number, file)
    return [file for _, file in latest.values()]


class CanvasGradebook(LmsFormat):
    """Canvas's gradebook CSV (see the module docstring)."""

    name = "Canvas"
    key_column = "ID"
    export_hint = (
        "pass the CSV of Canvas's Grades page, Export, Export Entire Gradebook, as --roster"
    )

    def label(self, column: str) -> str:
        """``"ch01 (4242)"`` -> ``"ch01"``."""
        return COLUMN_ID.sub("", column).strip()

    def points_possible(self, roster: Roster, column: int) -> float | None:
        """The ``Points Possible`` row's cell of the column."""
        for row in roster.rows:
            if row[0].strip() == POINTS_POSSIBLE:
                try:
                    return float(row[column])
                except ValueError:
                    return None
        return None

    def other_row(self, row: list[str], column: int, possible: float, new: bool) -> None:
        """A new column's ``Points Possible`` cell gets the assignment's points."""
        if new and row[0].strip() == POINTS_POSSIBLE:
            row[column] = points_text(possible)
