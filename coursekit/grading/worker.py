"""The process that grades one submission for ``coursekit grade``.

``python -m coursekit.grading.worker JOB.json RESULT.json`` reads the job (the submission, the
assignment, the hidden-test folder and the limits), grades it with
:func:`coursekit.grading.grader.grade_submission` and writes the
:class:`~coursekit.grading.gradebook.SubmissionGrade` as JSON. Each submission gets a fresh
process, so nothing one notebook does (a flood of output, a leak, a crash of the grading code
itself) can reach the next one or the batch. See the book's Exercises page.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from coursekit.grading.grader import Assignment, grade_submission
from coursekit.grading.kernel import Limits
from coursekit.grading.submissions import Submission


def job_description(
    submission: Submission, assignment: str, hidden: Path | None, limits: Limits
) -> dict[str, Any]:
    """The JSON a worker reads: what to grade, against what, under which limits."""
    return {
        "student": submission.student,
        "path": str(submission.path) if submission.path is not None else None,
        "problem": submission.problem,
        "assignment": assignment,
        "hidden": str(hidden) if hidden is not None else None,
        "limits": asdict(limits),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Grade the job in ``argv[0]`` and write the grade to ``argv[1]``."""
    job_path, result_path = argv if argv is not None else sys.argv[1:]
    job = json.loads(Path(job_path).read_text(encoding="utf-8"))
    path = Path(job["path"]) if job["path"] is not None else None
    submission = Submission(job["student"], path, job["problem"])
    hidden = Path(job["hidden"]) if job["hidden"] is not None else None
    assignment = Assignment.load(job["assignment"], hidden)
    grade = grade_submission(submission, assignment, Limits(**job["limits"]))
    Path(result_path).write_text(json.dumps(grade.to_json()), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
