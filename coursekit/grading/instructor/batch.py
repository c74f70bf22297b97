"""Grade a whole class: ``coursekit grade --assignment ch01 submissions/ --jobs 4``.

``jobs`` worker processes (:mod:`coursekit.grading.instructor.worker`) take the submissions one by
one, each in its own sandboxed kernel, under a progress bar. A worker that overruns a submission's
time limit is killed with its whole process group and its kernel's, and one that fails is reported
as ``crashed``; either way the submission gets a row, a fresh worker takes over and the batch goes
on. ``--shard I/N`` grades every N-th submission (in student-id order) starting from the I-th, so
any batch system can split a class, and
:func:`coursekit.grading.instructor.gradebook.merge_gradebooks` joins the shards' CSVs. Chapter 1,
Text as sequences, has the first graded exercises; see the book's Exercises page.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from queue import Empty, Queue

from tqdm.auto import tqdm

from coursekit.grading.instructor.gradebook import (
    STATUSES,
    QuestionGrade,
    SubmissionGrade,
    points_text,
)
from coursekit.grading.instructor.grader import Assignment, screen
from coursekit.grading.instructor.kernel import Limits, kill_process_group
from coursekit.grading.instructor.submissions import Submission
from coursekit.grading.instructor.worker import job_description, setup_description

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
    queue: Queue[Submission] = Queue()
    for submission in submissions:
        queue.put(submission)
    grades: list[SubmissionGrade] = []
    bar = tqdm(
        total=len(submissions),
        desc=f"grading {assignment.name}",
        unit="notebook",
        disable=not progress,
        file=sys.stderr,
    )
    lock = threading.Lock()

    def work() -> None:
        with Worker(assignment, limits, hidden) as worker:
            while True:
                try:
                    submission = queue.get_nowait()
                except Empty:
                    return
                grade = worker.grade(submission)
                with lock:
                    grades.append(grade)
                    counts = Counter(item.status for item in grades)
                    shown = (f"{status} {counts[status]}" for status in STATUSES if counts[status])
                    bar.set_postfix_str(", ".join(shown), refresh=False)
                    bar.update()

    workers = max(1, min(jobs, len(submissions)))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for future in [pool.submit(work) for _ in range(workers)]:
            future.result()
    bar.close()
    return sorted(grades, key=lambda grade: grade.student)


class Worker:
    """A worker process (:mod:`coursekit.grading.instructor.worker`) that grades submissions one
    by one.

    Started on first use and again after a failure. A submission that takes longer than its
    limit (plus a margin) gets the ``timeout`` status and the worker is killed with its process
    group and its kernel's; a worker that dies gives ``crashed`` with the last line it logged.
    """

    def __init__(self, assignment: Assignment, limits: Limits, hidden: Path | None):
        self.assignment = assignment
        self.limits = limits
        self.private = Path(tempfile.mkdtemp(prefix="coursekit-worker-"))
        self.setup = self.private / "setup.json"
        self.setup.write_text(json.dumps(setup_description(assignment.name, hidden, limits)))
        self.log = self.private / "worker.log"
        self.process: subprocess.Popen[str] | None = None
        self.graded = 0

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exception: object) -> None:
        self.stop()
        shutil.rmtree(self.private, ignore_errors=True)

    def grade(self, submission: Submission) -> SubmissionGrade:
        """Grade ``submission``; never raises for the submission's sake.

        A file that is not a notebook of the assignment is rejected here, without the worker.
        """
        rejected = screen(submission, self.assignment)
        if rejected is not None:
            return rejected
        self.graded += 1
        result = self.private / f"grade-{self.graded}.json"
        process = self._started()
        jobs, done = process.stdin, process.stdout
        if jobs is None or done is None:
            raise RuntimeError("the worker process was started without pipes")
        try:
            jobs.write(job_description(submission, result))
            jobs.flush()
        except OSError:
            pass  # the worker died; reading its output below says so
        ready, _, _ = select.select([done], [], [], self.limits.timeout + WORKER_MARGIN_SECONDS)
        if not ready:
            self.stop()
            reason = f"grading did not finish within {self.limits.timeout:g} s"
            return _without_grades(submission, self.assignment, "timeout", reason)
        line = done.readline().strip()
        try:
            return SubmissionGrade.from_json(json.loads(Path(line).read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError):
            self.stop()
            reason = f"the grading process failed (exit code {process.returncode}): {_last_line(self.log)}"
            return _without_grades(submission, self.assignment, "crashed", reason)

    def _started(self) -> subprocess.Popen[str]:
        if self.process is None:
            with self.log.open("ab") as log:
                self.process = subprocess.Popen(
                    [sys.executable, "-m", "coursekit.grading.instructor.worker", str(self.setup)],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=log,
                    text=True,
                    start_new_session=True,
                    env={**os.environ, "TMPDIR": str(self.private)},
                )
        return self.process

    def stop(self) -> None:
        """Kill the worker's process group and the groups of the kernels it started."""
        if self.process is None:
            return
        kill_process_group(self.process.pid)
        for pid_file in self.private.glob("*/kernel.pid"):
            with contextlib.suppress(OSError, ValueError):
                kill_process_group(int(pid_file.read_text()))
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self.process = None


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
