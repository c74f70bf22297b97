"""Sharding a class, and the instructor's self-check of solutions and exercises."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from coursekit.grading.instructor.batch import Worker, parse_shard, select_shard
from coursekit.grading.instructor.grader import Assignment
from coursekit.grading.instructor.kernel import Limits
from coursekit.grading.instructor.submissions import Submission

ROOT = Path(__file__).resolve().parents[2]


def test_shards_are_parsed_strictly() -> None:
    assert parse_shard("2/4") == (2, 4)
    for text in ("0/4", "5/4", "2", "a/b", "1/0"):
        with pytest.raises(ValueError, match="--shard"):
            parse_shard(text)


def test_shards_cover_every_submission_once_whatever_the_input_order() -> None:
    students = [Submission(name, None) for name in ("eve", "amir", "dan", "bea", "carl")]
    shards = [select_shard(students, index, 3) for index in (1, 2, 3)]
    assert [[item.student for item in shard] for shard in shards] == [
        ["amir", "dan"],
        ["bea", "eve"],
        ["carl"],
    ]
    assert select_shard(list(reversed(students)), 1, 3) == shards[0]


def run_cli(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "coursekit.cli", *arguments]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_validate_finds_a_solution_that_loses_points(tmp_path: Path) -> None:
    notebook = nbformat.read(ROOT / "solutions" / "01-text.ipynb", as_version=4)
    for cell in notebook.cells:
        if cell.metadata.get("coursekit") == {"question": "ch01.q4", "role": "answer"}:
            cell.source = cell.source.replace("return 0.0", "return 0.1")
    (tmp_path / "solutions").mkdir()
    nbformat.write(notebook, tmp_path / "solutions" / "01-text.ipynb")
    result = run_cli("grade", "--validate", "solutions", "--jobs", "2", cwd=tmp_path)
    assert result.returncode == 1
    assert (
        "the solution of ch01.q4 lost points (test 8 failed: expected 0, got 0.1" in result.stderr
    )
    assert "solution 7.7/8 (ok), exercise 0 (ok)" in result.stdout


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["grade", "x.ipynb"], "--assignment is required"),
        (["grade", "--assignment", "ch99", "."], "no assignment 'ch99'"),
        (["grade", "--assignment", "ch01", "absent/"], "no such file or folder"),
        (["grade", "--assignment", "ch01", ".", "--hidden", "absent"], "does not exist"),
        (["grade", "--assignment", "ch01", ".", "--shard", "3/2"], "--shard must look like"),
    ],
)
def test_instructor_mistakes_are_reported_in_one_line(tmp_path: Path, arguments, message) -> None:
    (tmp_path / "x.ipynb").write_text("{}")
    result = run_cli(*arguments, cwd=tmp_path)
    assert result.returncode == 1
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_a_worker_past_its_time_is_killed_and_the_row_says_so(monkeypatch) -> None:
    monkeypatch.setattr("coursekit.grading.instructor.batch.WORKER_MARGIN_SECONDS", 0)
    assignment = Assignment.load("ch01")
    submission = Submission("amir", ROOT / "solutions" / "01-text.ipynb")
    with Worker(assignment, Limits(timeout=0.5), None) as worker:
        grade = worker.grade(submission)
        assert worker.process is None  # killed, to be started afresh for the next submission
    assert (grade.status, grade.reason) == ("timeout", "grading did not finish within 0.5 s")
    assert [question.points_earned for question in grade.questions] == [0] * 6
    assert all(question.reason.startswith("not graded: ") for question in grade.questions)


def test_a_worker_that_fails_is_reported_as_crashed(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(
        "coursekit.grading.instructor.batch.sys.executable", str(tmp_path / "no-python")
    )
    (tmp_path / "no-python").write_text("#!/bin/sh\necho 'the worker broke' >&2\nexit 7\n")
    (tmp_path / "no-python").chmod(0o755)
    assignment = Assignment.load("ch01")
    submission = Submission("amir", ROOT / "solutions" / "01-text.ipynb")
    with Worker(assignment, Limits(), None) as worker:
        grade = worker.grade(submission)
    assert grade.status == "crashed"
    assert grade.reason == "the grading process failed (exit code 7): the worker broke"
