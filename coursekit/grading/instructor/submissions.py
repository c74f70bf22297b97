"""Find the submissions of a class and read each one without trusting it.

A submission is a notebook file, or a student's folder holding one notebook; the student id is
the file's name without its extension (``alice.ipynb`` -> ``alice``), or the folder's name.
:func:`read_notebook` turns every way a file can fail to be a notebook of the assignment (not
UTF-8, not JSON, not a notebook, no code, another chapter's questions) into an
:class:`InvalidNotebook` with a reason a student can act on. See the book's Exercises page.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import nbformat

from coursekit.grading.questions import QUESTION_ID

MAX_NOTEBOOK_BYTES = 20 * 2**20
UNSAFE_ID_CHARACTERS = re.compile(r"[^A-Za-z0-9._@+-]+")


class InvalidNotebook(ValueError):
    """A submission that cannot be graded as a notebook; the message is the reason."""


@dataclass(frozen=True)
class Submission:
    """One student's submission: ``student`` is the id for the gradebook, ``path`` the file.

    ``path`` is None when a student's folder holds no notebook or several; ``problem`` says which.
    ``late`` is True when the LMS the submission came from marked it late.
    """

    student: str
    path: Path | None
    problem: str = ""
    late: bool = False

    @property
    def source(self) -> str:
        """The file name the gradebook shows (the student id for a folder without a notebook)."""
        return self.path.name if self.path is not None else self.student


def find_submissions(paths: Sequence[Path], exclude: Sequence[Path] = ()) -> list[Submission]:
    """The submissions in ``paths`` (files, folders of files, folders of students' folders).

    Hidden files (``.DS_Store``, ``.ipynb_checkpoints``) and the paths in ``exclude`` (the
    grader's own CSV and feedback folder) are skipped. Sorted by student id; two submissions with
    the same id are an error, since the gradebook could not tell them apart.

    See the book's Exercises page.
    """
    skipped = {path.resolve() for path in exclude}
    found: list[Submission] = []
    for path in map(Path, paths):
        if not path.exists():
            raise FileNotFoundError(f"no such file or folder: {path}")
        if path.is_dir():
            found.extend(_in_folder(path, skipped))
        else:
            found.append(Submission(student_id(path.stem), path))
    return require_unique_ids(found)


def require_unique_ids(found: Iterable[Submission]) -> list[Submission]:
    """``found`` sorted by student id; raises ``ValueError`` naming the ids given twice."""
    ordered = sorted(found, key=lambda submission: submission.student)
    ids = [submission.student for submission in ordered]
    repeated = sorted({student for student in ids if ids.count(student) > 1})
    if repeated:
        raise ValueError(f"several submissions have the same student id: {', '.join(repeated)}")
    return ordered


def _in_folder(folder: Path, skipped: set[Path]) -> Iterable[Submission]:
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith(".") or entry.resolve() in skipped:
            continue
        if entry.is_file():
            yield Submission(student_id(entry.stem), entry)
        elif entry.is_dir():
            notebooks = sorted(
                item for item in entry.glob("*.ipynb") if not item.name.startswith(".")
            )
            if len(notebooks) == 1:
                yield Submission(student_id(entry.name), notebooks[0])
            else:
                problem = "no notebook" if not notebooks else f"{len(notebooks)} notebooks"
                yield Submission(student_id(entry.name), None, f"the folder holds {problem}")


def student_id(name: str) -> str:
    """``name`` with anything but letters, digits and ``._@+-`` replaced by ``_``."""
    return UNSAFE_ID_CHARACTERS.sub("_", name).strip("_") or "unnamed"


def read_notebook(path: Path, question_ids: Sequence[str]) -> nbformat.NotebookNode:
    """Read ``path`` as a notebook of the assignment whose questions are ``question_ids``.

    Raises :class:`InvalidNotebook` when the file is too large, not UTF-8, not JSON, not a valid
    notebook, has no code, or carries only other assignments' questions.

    See the book's Exercises page.
    """
    if path.stat().st_size > MAX_NOTEBOOK_BYTES:
        raise InvalidNotebook(f"the file is larger than {MAX_NOTEBOOK_BYTES // 2**20} MB")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise InvalidNotebook(f"the file is not UTF-8 text (byte {error.start})") from None
    if not text.strip():
        raise InvalidNotebook("the file is empty")
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidNotebook(
            f"the file is not a notebook: invalid JSON at line {error.lineno}, "
            f"column {error.colno} ({error.msg})"
        ) from None
    try:
        notebook = nbformat.reads(text, as_version=4)
        nbformat.validate(notebook)
    except Exception as error:  # noqa: BLE001 - nbformat raises several kinds on malformed input
        first_line = str(error).strip().splitlines()[0][:200] if str(error).strip() else ""
        raise InvalidNotebook(f"the file is not a valid Jupyter notebook ({first_line})") from None
    if not any(cell.cell_type == "code" and cell.source.strip() for cell in notebook.cells):
        raise InvalidNotebook("the notebook has no code")
    _require_assignment(notebook, question_ids)
    return notebook


def tagged_questions(notebook: nbformat.NotebookNode) -> list[str]:
    """The question ids found in the cells' ``coursekit`` metadata, in order, without repeats."""
    found: dict[str, None] = {}
    for cell in notebook.cells:
        marks = cell.get("metadata", {}).get("coursekit", {})
        question = marks.get("question") if isinstance(marks, dict) else None
        if isinstance(question, str) and QUESTION_ID.match(question):
            found[question] = None
    return list(found)


def _require_assignment(notebook: nbformat.NotebookNode, question_ids: Sequence[str]) -> None:
    tagged = tagged_questions(notebook)
    if tagged and not set(tagged) & set(question_ids):
        chapters = sorted({question.split(".")[0] for question in tagged})
        wanted = sorted({question.split(".")[0] for question in question_ids})
        raise InvalidNotebook(
            f"this is the notebook of {', '.join(chapters)}, not of {', '.join(wanted)}"
        )
