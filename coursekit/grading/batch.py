"""Grade a whole class: ``coursekit grade --assignment ch01 submissions/ --jobs 4``.

Each submission is graded by its own worker process (:mod:`coursekit.grading.worker`), ``jobs``
at a time, with a progress bar. A worker that overruns the submission's time limit is killed with
its whole process group and its kernel's; a worker that fails is reported as ``crashed``. Either
way the submission gets a row and the batch goes on. ``--shard I/N`` grades every N-th submission
(in student-id order) starting from the I-th, so any batch system can split a class, and
:func:`coursekit.grading.gradebook.merge_gradebooks` joins the shards' CSVs. Chapter 1, Text as
sequences, has the first graded exercises; see the book's Exercises page.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from tqdm.auto import tqdm

from coursekit.grading.gradebook import STATUSES, QuestionGrade, SubmissionGrade, points_text
from coursekit.grading.grader import Assignment, screen
from coursekit.grading.kernel import Limits, kill_process_group
from coursekit.grading.submissions import Submission
from coursekit.grading.worker import job_description

#: Seconds a worker gets beyond the submission's limit, to start, load torch and clean up.
WORKER_MARGIN_SECONDS = 60
MAX_LOG_CHARACTERS = 300
SHARD = re.compile(r"^(?P<index>\d+)/(?P<count>\d+)$")


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/4"`` -> ``(2, 4)``; the index counts from 1."""
    match = SHARD.match(text.strip())
    if match is None or not 1 <= int(match["index"]) <= int(match["count"]):
        raise ValueError(f"--shard must look like 2/4 (shard 2 of 4), got {text!r}")
    return int(match["index"]), int(match["count"])


def select_shard(submissions: Sequence[Submission], index: int, count: int) -> list[Submission]:
    """Shard ``index`` of ``count``: submissions ``index-1``, ``index-1+count``, ... by id."""
    ordered = sorted(submissions, key=lambda submission: submission.student)
    return ordered[index - 1 :: count]


def grade_class(
    submissions: Sequence[Submission],
    assignment: Assignment,
    limits: Limits,
    *,
    hidden: Path | None = None,
    jobs: int = 1,
    progress: bool = True,
) -> list[SubmissionGrade]:
    """Grade every submission, ``jobs`` at a time; the grades come back sorted by student id."""
    grades: list[SubmissionGrade] = []
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [
            pool.submit(grade_in_worker, submission, assignment, limits, hidden)
            for submission in submissions
        ]
        bar = tqdm(
            as_completed(futures),
            total=len(futures),
            desc=f"grading {assignment.name}",
            unit="notebook",
            disable=not progress,
            file=sys.stderr,
        )
        for future in bar:
            grades.append(future.result())
            counts = Counter(grade.status for grade in grades)
            bar.set_postfix_str(
                ", ".join(f"{status} {counts[status]}" for status in STATUSES if counts[status])
            )
    return sorted(grades, key=lambda grade: grade.student)


def grade_in_worker(
    submission: Submission, assignment: Assignment, limits: Limits, hidden: Path | None
) -> SubmissionGrade:
    """Grade ``submission`` in a fresh worker process; never raises for the submission's sake.

    A file that is not a notebook of the assignment is rejected here, without a worker.
    """
    rejected = screen(submission, assignment)
    if rejected is not None:
        return rejected
    private = Path(tempfile.mkdtemp(prefix="coursekit-job-"))
    job, result, log = private / "job.json", private / "grade.json", private / "worker.log"
    job.write_text(json.dumps(job_description(submission, assignment.name, hidden, limits)))
    try:
        with log.open("wb") as log_file:
            worker = subprocess.Popen(
                [sys.executable, "-m", "coursekit.grading.worker", str(job), str(result)],
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=log_file,
                start_new_session=True,
                env={**os.environ, "TMPDIR": str(private)},
            )
            try:
                worker.wait(timeout=limits.timeout + WORKER_MARGIN_SECONDS)
            except subprocess.TimeoutExpired:
                _kill_worker(worker, private)
                reason = f"grading did not finish within {limits.timeout:g} s"
                return _without_grades(submission, assignment, "timeout", reason)
        try:
            return SubmissionGrade.from_json(json.loads(result.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError):
            reason = (
                f"the grading process failed (exit code {worker.returncode}): {_last_line(log)}"
            )
            return _without_grades(submission, assignment, "crashed", reason)
    finally:
        shutil.rmtree(private, ignore_errors=True)


def _kill_worker(worker: subprocess.Popen[bytes], private: Path) -> None:
    """Kill the worker's process group and the groups of the kernels it started."""
    kill_process_group(worker.pid)
    for pid_file in private.glob("*/kernel.pid"):
        with contextlib.suppress(OSError, ValueError):
            kill_process_group(int(pid_file.read_text()))
    worker.wait()


def _last_line(log: Path) -> str:
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return "no log"
    return lines[-1][:MAX_LOG_CHARACTERS] if lines else "no log"


def _without_grades(
    submission: Submission,
    assignment: Assignment,
    status: str,
    reason: str,
) -> SubmissionGrade:
    questions = tuple(
        QuestionGrade(question.id, question.title, question.points, reason=f"not graded: {reason}")
        for question in assignment.questions
    )
    return SubmissionGrade(submission.student, submission.source, status, reason, questions)  # type: ignore[arg-type]


def summary(grades: Sequence[SubmissionGrade], assignment: Assignment, seconds: float) -> str:
    """What an instructor reads at the end: counts by status, mean total, throughput."""
    if not grades:
        return f"no submissions graded for {assignment.name}"
    counts = Counter(grade.status for grade in grades)
    by_status = ", ".join(f"{status} {counts[status]}" for status in STATUSES if counts[status])
    mean = sum(grade.total for grade in grades) / len(grades)
    possible = points_text(grades[0].possible)
    per_minute = 60 * len(grades) / seconds if seconds > 0 else float("inf")
    return "\n".join(
        [
            f"graded {len(grades)} submissions of {assignment.name} in {seconds:.0f} s "
            f"({per_minute:.1f} per minute)",
            f"  status: {by_status}",
            f"  mean total: {mean:.2f} / {possible}",
        ]
    )
