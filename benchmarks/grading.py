"""Row: ``coursekit grade`` on copies of the Chapter 1 solution against running the same notebooks.

The reference is what any notebook grader must at least do: execute each notebook in a fresh
kernel with ``nbclient``, two at a time. ``coursekit grade --jobs 2`` does that inside a sandbox
and then calls each answer on its cases and compares them in the grader, so the ratio is the
price of safe grading. The notes give submissions per minute and the overhead per submission.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from benchmarks.registry import Row, benchmark

SOLUTION = Path(__file__).resolve().parents[1] / "solutions" / "01-text.ipynb"
JOBS = 2


def grade_copies(folder: Path) -> float:
    """Seconds ``coursekit grade --jobs 2`` takes on ``folder``; every copy must score 8/8."""
    start = time.perf_counter()
    command = [sys.executable, "-m", "coursekit.cli", "grade", "--assignment", "ch01", str(folder)]
    out = folder.parent / "grades.csv"
    subprocess.run(
        [*command, "--jobs", str(JOBS), "--out", str(out)], check=True, capture_output=True
    )
    seconds = time.perf_counter() - start
    with out.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    if any(row["total"] != "8" or row["status"] != "ok" for row in rows):
        raise AssertionError(f"a copy of the solution lost points: {rows}")
    return seconds


def execute_copies(folder: Path) -> float:
    """Seconds to execute every notebook of ``folder`` in a fresh kernel, two at a time."""

    def execute(path: Path) -> None:
        notebook = nbformat.read(path, as_version=4)
        NotebookClient(notebook, kernel_name="python3", timeout=300).execute(
            env={**os.environ, "OMP_NUM_THREADS": "1", "COURSEKIT_PROFILE": "ci"}
        )

    start = time.perf_counter()
    with ThreadPoolExecutor(JOBS) as pool:
        list(pool.map(execute, sorted(folder.glob("*.ipynb"))))
    return time.perf_counter() - start


@benchmark
def grading_throughput(quick: bool) -> Row:
    """40 copies (4 with ``--quick``) of the Chapter 1 solution, two submissions at a time."""
    copies = 4 if quick else 40
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "class"
        folder.mkdir()
        for number in range(copies):
            shutil.copy(SOLUTION, folder / f"student-{number:02d}.ipynb")
        ours = grade_copies(folder)
        reference = execute_copies(folder)
    overhead = (ours - reference) * JOBS / copies
    return Row(
        name=f"grade {copies} copies of the ch01 solution, --jobs {JOBS}",
        ours="coursekit grade",
        reference="nbclient, execute only",
        ours_seconds=ours,
        reference_seconds=reference,
        notes=(
            f"coursekit grade: {60 * copies / ours:.1f} submissions per minute with --jobs {JOBS}; "
            f"{ours * JOBS / copies:.1f} s per submission, {overhead:.1f} s of it beyond "
            f"executing the notebook",
        ),
    )
