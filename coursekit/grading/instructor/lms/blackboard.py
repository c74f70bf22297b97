"""Blackboard: the Grade Center upload (Work Offline, Upload).

Blackboard matches the rows of an upload by ``Username`` and the columns by the id after ``|`` in
headers like ``ch01 [Total Pts: 8 Score] |12345``; a column without an id becomes a new text
column. The roster is the Grade Center's download (Work Offline, Download, with the
assignment's column or the full Grade Center), comma- or tab-separated: its columns are kept and
the file written back comma-separated, every field in quotes, as Blackboard asks of a comma-
separated upload. Our own submission layouts name each student by their Blackboard username
(``jdoe.ipynb``). See the book's Exercises page, "From your LMS and back".
"""

from __future__ import annotations

import re

from coursekit.grading.instructor.gradebook import points_text
from coursekit.grading.instructor.lms.roster import LmsFormat, Roster

COLUMN = re.compile(r"^(?P<label>.*?)\s*(?:\[(?P<details>[^\]]*)\])?\s*(?:\|\s*\d+)?\s*$")
TOTAL_POINTS = re.compile(r"Total Pts:\s*(?P<points>\d+(?:\.\d+)?)")


class BlackboardGradeCenter(LmsFormat):
    """Blackboard's Grade Center upload (see the module docstring)."""

    name = "Blackboard"
    key_column = "Username"
    export_hint = (
        "pass the Grade Center's download (Full Grade Center, Work Offline, Download) as --roster"
    )
    quote_all = True

    def label(self, column: str) -> str:
        """``"ch01 [Total Pts: 8 Score] |12345"`` -> ``"ch01"``."""
        match = COLUMN.match(column)
        return match["label"].strip() if match else column.strip()

    def new_column(self, assignment: str, possible: float) -> str:
        """``"ch01 [Total Pts: 8 Score]"``: Blackboard adds it as a new column."""
        return f"{assignment} [Total Pts: {points_text(possible)} Score]"

    def points_possible(self, roster: Roster, column: int) -> float | None:
        """The ``Total Pts`` of the column's header."""
        match = TOTAL_POINTS.search(roster.header[column])
        return float(match["points"]) if match else None
