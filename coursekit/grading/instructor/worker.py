"""The process that grades submissions for ``coursekit grade``, one after another.

``python -m coursekit.grading.instructor.worker SETUP.json`` loads the assignment, its hidden tests
and the limits named in ``SETUP.json`` once, then reads jobs from its standard input, one JSON line
each (the submission and the file for its grade). It grades each with
:func:`coursekit.grading.instructor.grader.grade_submission`, writes the
:class:`~coursekit.grading.instructor.gradebook.SubmissionGrade` as JSON and prints that file's
path when it is done. Loading torch, the question bank and Jupyter's client once per worker rather
than once per submission halves the time a submission takes, and its :class:`KernelPool` starts the
next submission's kernel while the current one is graded; every submission still gets its own
kernel and scratch folder, and a worker that hangs or dies is replaced (see
:mod:`coursekit.grading.instructor.batch`). See the book's Exercises page.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, TextIO

from coursekit.grading.instructor.grader import Assignment, grade_submission
from coursekit.grading.instructor.kernel import KernelPool, Limits
from coursekit.grading.instructor.submissions import Submission


def setup_description(assignment: str, hidden: Path | None, limits: Limits) -> dict[str, Any]:
    """The JSON a worker starts from: the assignment, the hidden-test folder, the limits."""
    return {
        "assignment": assignment,
        "hidden": str(hidden) if hidden is not None else None,
        "limits": asdict(limits),
    }


def job_description(submission: Submission, result: Path) -> str:
    """One line of a worker's input: grade ``submission``, write the grade to ``result``."""
    path = str(submission.path) if submission.path is not None else None
    job = {"student": submission.student, "path": path, "problem": submission.problem}
    return json.dumps({**job, "result": str(result)}) + "\n"


def serve(setup: dict[str, Any], jobs: TextIO, done: TextIO) -> None:
    """Grade every job line of ``jobs``; print each grade's file to ``done`` when written."""
    hidden = Path(setup["hidden"]) if setup["hidden"] is not None else None
    assignment = Assignment.load(setup["assignment"], hidden)
    limits = Limits(**setup["limits"])
    kernels = KernelPool(limits, assignment.name)
    try:
        for line in jobs:
            job = json.loads(line)
            path = Path(job["path"]) if job["path"] is not None else None
            submission = Submission(job["student"], path, job["problem"])
            grade = grade_submission(submission, assignment, limits, kernels)
            Path(job["result"]).write_text(json.dumps(grade.to_json()), encoding="utf-8")
            print(job["result"], file=done, flush=True)
    finally:
        kernels.close()


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the jobs of standard input with the setup file ``argv[0]``."""
    (setup_path,) = argv if argv is not None else sys.argv[1:]
    serve(json.loads(Path(setup_path).read_text(encoding="utf-8")), sys.stdin, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
