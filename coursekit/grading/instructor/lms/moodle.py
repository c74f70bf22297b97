"""Moodle: the folders of "Download all submissions" and the offline grading worksheet.

**Submissions.** Moodle's zip holds one folder per student and submission plugin, named
``<Full Name>_<participant id>_assignsubmission_file_`` (``..._onlinetext_`` for online text), or,
with "Download submissions in folders" off, the files themselves with that prefix before their
names. The student is the participant id, the number of the worksheet's ``Participant 123``.

**Grades.** The grading worksheet (the assignment's "Download grading worksheet", with "Offline
grading worksheet" on in the feedback settings) has the columns ``Identifier`` (``Participant
123``), ``Full name``, ``Email address``, ``Status``, ``Grade``, ``Maximum Grade``, ``Grade can be
changed``, ``Last modified (submission)``, ``Last modified (grade)`` and, with feedback comments on,
``Feedback comments``. "Upload grading worksheet" reads ``Identifier``, ``Grade`` and the feedback
comments, so these are filled and the rest kept as downloaded. See the book's Exercises page,
"From your LMS and back".
"""

from __future__ import annotations

import re
from pathlib import Path

from coursekit.grading.instructor.lms.files import OwnedFile
from coursekit.grading.instructor.lms.roster import LmsFormat, Roster

ENTRY_NAME = re.compile(
    r"^(?P<name>.+)_(?P<participant>\d+)_assign(?:submission|feedback)_(?P<plugin>[a-z]+)_"
    r"(?P<original>.*)$"
)
PARTICIPANT = re.compile(r"^\D*(?P<id>\d+)\s*$")
GRADE_COLUMN = "Grade"
MAXIMUM_COLUMN = "Maximum Grade"
EXPECTED_NAME = "<Full Name>_<participant id>_assignsubmission_file_"


def participant(name: str) -> str | None:
    """The participant id in a folder or file name of Moodle's zip; None when it is not Moodle's."""
    match = ENTRY_NAME.match(name)
    return match["participant"] if match else None


def owned_files(entry: Path) -> list[OwnedFile] | None:
    """The files of a top-level entry of Moodle's zip: a student's folder (every file in it) or a
    flattened file; None when the name is not Moodle's."""
    match = ENTRY_NAME.match(entry.name)
    if match is None:
        return None
    student = match["participant"]
    if entry.is_dir():
        return [
            OwnedFile(student, path.relative_to(entry).as_posix(), path)
            for path in sorted(entry.rglob("*"))
            if path.is_file() and not path.name.startswith(".")
        ]
    return [OwnedFile(student, match["original"] or entry.name, entry)]


class MoodleWorksheet(LmsFormat):
    """Moodle's offline grading worksheet (see the module docstring)."""

    name = "Moodle"
    key_column = "Identifier"
    export_hint = (
        "pass the assignment's grading worksheet (View all submissions, Grading action, Download "
        "grading worksheet) as --roster"
    )
    feedback_column = "Feedback comments"

    def student(self, key: str) -> str | None:
        """``"Participant 123"`` -> ``"123"``."""
        match = PARTICIPANT.match(key)
        return match["id"] if match else None

    def find_column(self, roster: Roster, assignment: str, requested: str | None) -> int | None:
        """The worksheet is the assignment's own: its ``Grade`` column (or ``--lms-column``)."""
        column = requested if requested is not None else GRADE_COLUMN
        if column not in roster.header:
            raise ValueError(f"{roster.path} has no {column!r} column; {self.export_hint}")
        return roster.header.index(column)

    def points_possible(self, roster: Roster, column: int) -> float | None:
        """The ``Maximum Grade`` of the first student's row."""
        if MAXIMUM_COLUMN not in roster.header or not roster.rows:
            return None
        try:
            return float(roster.rows[0][roster.header.index(MAXIMUM_COLUMN)])
        except ValueError:
            return None
