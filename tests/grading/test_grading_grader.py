"""Grading one submission in-process (the worker's part), for what the fixture matrix cannot
show cheaply."""

from __future__ import annotations

from pathlib import Path

import pytest

from coursekit.grading.grader import Assignment, grade_submission
from coursekit.grading.kernel import Limits
from coursekit.grading.submissions import Submission

SOLUTION = Path(__file__).resolve().parents[2] / "solutions" / "01-text.ipynb"


@pytest.mark.slow
def test_a_kernel_that_cannot_start_gives_a_row_with_the_reason() -> None:
    grade = grade_submission(
        Submission("amir", SOLUTION), Assignment.load("ch01"), Limits(memory_mb=64)
    )
    assert grade.status == "crashed"
    assert grade.reason.startswith("the kernel could not start (")
    assert grade.reason.endswith("is --memory 64 enough?")
    assert grade.total == 0
    assert all(question.reason.startswith("not graded: ") for question in grade.questions)
