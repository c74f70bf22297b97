"""A file of an LMS's bulk download: whose it is, the name the student gave it, and whether it
came late; and the one :class:`~coursekit.grading.instructor.submissions.Submission` that a
student's files make. See the book's Exercises page, "From your LMS and back".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from coursekit.grading.instructor.submissions import Submission

NOTEBOOK_SUFFIX = ".ipynb"
MAX_LISTED_FILES = 5


@dataclass(frozen=True)
class OwnedFile:
    """``path`` on disk, handed in by ``student`` (the LMS's id) as ``original`` (its own name)."""

    student: str
    original: str
    path: Path
    late: bool = False

    @property
    def is_notebook(self) -> bool:
        """True for a ``.ipynb`` file, whatever the case of its suffix."""
        return self.original.lower().endswith(NOTEBOOK_SUFFIX)


def student_submission(student: str, files: Sequence[OwnedFile]) -> Submission:
    """The submission of ``student``, who handed in ``files``: their one notebook, or no path
    and the reason (no notebook, or several). Late when any of the files came late."""
    late = any(file.late for file in files)
    notebooks = sorted((file for file in files if file.is_notebook), key=lambda file: file.original)
    if len(notebooks) == 1:
        return Submission(student, notebooks[0].path, late=late)
    if notebooks:
        names = _listed(file.original for file in notebooks)
        problem = f"{len(notebooks)} notebooks were submitted ({names}); submit exactly one"
    elif files:
        names = _listed(sorted(file.original for file in files))
        problem = f"no notebook was submitted, only {names}; submit the .ipynb file"
    else:
        problem = "no file was submitted"
    return Submission(student, None, problem, late=late)


def _listed(names: Iterable[str]) -> str:
    shown = list(names)
    extra = len(shown) - MAX_LISTED_FILES
    text = ", ".join(shown[:MAX_LISTED_FILES])
    return f"{text} and {extra} more" if extra > 0 else text
