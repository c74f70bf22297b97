"""The submissions of ``coursekit grade``, whatever shape they arrive in.

Each path given is a notebook, a folder, or a ``.zip`` (unpacked safely into a scratch folder by
:mod:`coursekit.grading.instructor.archive`). A folder is read in the layout its names show:

- **Canvas** ("Download Submissions"): files named ``<lastfirst>_<userid>_<submissionid>_<name>``
  (:mod:`.lms.canvas`); the student is the Canvas user id, the latest resubmission counts and
  ``LATE`` is kept;
- **Moodle** ("Download all submissions"): folders or files named ``<Full
  Name>_<participant id>_assignsubmission_file_...`` (:mod:`.lms.moodle`); the student is the
  participant id;
- **ours**: one notebook per student, or one folder per student
  (:func:`coursekit.grading.instructor.submissions.find_submissions`).

In an LMS layout, a student with no notebook or several, and a file whose name belongs to no
student, each get a submission without a path and the reason, so the gradebook shows them. See
the book's Exercises page, "From your LMS and back".
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from coursekit.grading.instructor.archive import extract_zip
from coursekit.grading.instructor.lms import canvas, moodle
from coursekit.grading.instructor.lms.files import OwnedFile, student_submission
from coursekit.grading.instructor.submissions import (
    Submission,
    find_submissions,
    require_unique_ids,
    student_id,
)

Layout = Literal["canvas", "moodle", "ours"]
LAYOUT_NAMES: dict[Layout, str] = {
    "canvas": "Canvas's Download Submissions",
    "moodle": "Moodle's Download all submissions",
    "ours": "one notebook or folder per student",
}


@dataclass(frozen=True)
class Intake:
    """The submissions found, sorted by student id, and the layouts they came in."""

    submissions: list[Submission]
    layouts: tuple[Layout, ...]

    @property
    def late(self) -> set[str]:
        """The students whose submission the LMS marked late."""
        return {submission.student for submission in self.submissions if submission.late}


def collect_submissions(
    paths: Sequence[Path], scratch: Path, exclude: Sequence[Path] = ()
) -> Intake:
    """The submissions in ``paths`` (see the module docstring); zips unpack into ``scratch``,
    which must outlive the grading. Two submissions with one student id are an error."""
    skipped = {path.resolve() for path in exclude}
    found: list[Submission] = []
    layouts: list[Layout] = []
    for number, path in enumerate(map(Path, paths)):
        if not path.exists():
            raise FileNotFoundError(f"no such file or folder: {path}")
        if path.is_file() and path.suffix.lower() == ".zip":
            folder = scratch / f"zip-{number}"
            folder.mkdir(parents=True)
            extract_zip(path, folder)
            path = _unwrapped(folder)
        if not path.is_dir():
            found.extend(find_submissions([path]))
            layouts.append("ours")
            continue
        layout = detect_layout(path, skipped)
        layouts.append(layout)
        if layout == "ours":
            found.extend(find_submissions([path], exclude=exclude))
        else:
            found.extend(_lms_submissions(path, layout, skipped))
    return Intake(require_unique_ids(found), tuple(dict.fromkeys(layouts)))


def detect_layout(folder: Path, skipped: Collection[Path] = ()) -> Layout:
    """``canvas`` or ``moodle`` when some entry of ``folder`` is named as that LMS names them,
    else ``ours``; a folder with both is an error."""
    entries = list(_entries(folder, skipped))
    is_canvas = any(entry.is_file() and canvas.owned_file(entry) for entry in entries)
    is_moodle = any(moodle.participant(entry.name) for entry in entries)
    if is_canvas and is_moodle:
        raise ValueError(
            f"{folder} mixes Canvas's and Moodle's downloads; grade each download on its own"
        )
    return "canvas" if is_canvas else "moodle" if is_moodle else "ours"


def _lms_submissions(folder: Path, layout: Layout, skipped: Collection[Path]) -> list[Submission]:
    """One submission per student of an LMS's download, and one per file that is no student's."""
    by_student: dict[str, list[OwnedFile]] = defaultdict(list)
    strays: list[Path] = []
    owner: Callable[[Path], Iterable[OwnedFile] | None] = (
        _canvas_files if layout == "canvas" else moodle.owned_files
    )
    for entry in _entries(folder, skipped):
        owned = owner(entry)
        if owned is None:
            strays.append(entry)
            continue
        for file in owned:
            by_student[file.student].append(file)
    prepare = canvas.latest_versions if layout == "canvas" else list
    submissions = [
        student_submission(student, prepare(files)) for student, files in by_student.items()
    ]
    expected = canvas.EXPECTED_NAME if layout == "canvas" else moodle.EXPECTED_NAME
    taken = set(by_student)
    for stray in strays:
        name = _unique(student_id(stray.name), taken)
        taken.add(name)
        problem = (
            f"{stray.name} belongs to no student: {LAYOUT_NAMES[layout]} names each "
            f"{'file' if layout == 'canvas' else 'folder'} {expected}"
        )
        submissions.append(Submission(name, None, problem))
    return submissions


def _canvas_files(entry: Path) -> list[OwnedFile] | None:
    """A file of Canvas's zip as its owner's; None for a folder or a name Canvas does not give."""
    owned = canvas.owned_file(entry) if entry.is_file() else None
    return [owned] if owned is not None else None


def _entries(folder: Path, skipped: Collection[Path]) -> Iterable[Path]:
    for entry in sorted(folder.iterdir()):
        if not entry.name.startswith(".") and entry.resolve() not in skipped:
            yield entry


def _unwrapped(folder: Path) -> Path:
    """The folder of a zip that wraps a whole class in one folder (as re-zipping a download
    does): the single folder inside, unless that folder is itself one student's."""
    entries = [entry for entry in folder.iterdir() if not entry.name.startswith(".")]
    if len(entries) != 1 or not entries[0].is_dir() or moodle.participant(entries[0].name):
        return folder
    inner = [entry for entry in entries[0].iterdir() if not entry.name.startswith(".")]
    return entries[0] if any(entry.is_dir() for entry in inner) or len(inner) > 1 else folder


def _unique(name: str, taken: set[str]) -> str:
    candidate, number = name, 1
    while candidate in taken:
        number += 1
        candidate = f"{name}-{number}"
    return candidate
