"""Grading one submission in-process (the worker's part), for what the fixture matrix cannot
show cheaply."""

from __future__ import annotations

from pathlib import Path

import pytest

from coursekit.grading.instructor.grader import Assignment, grade_submission
from coursekit.grading.instructor.kernel import GradingKernel, KernelPool, Limits
from coursekit.grading.instructor.submissions import Submission

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


class FirstStartFails(KernelPool):
    """A pool whose first kernel dies before it answers (it has 64 MiB for torch)."""

    def __init__(self, limits: Limits, assignment: str) -> None:
        super().__init__(limits, assignment, ahead=False)
        self.taken = 0

    def take(self, deadline: float) -> GradingKernel:
        self.taken += 1
        if self.taken == 1:
            kernel = GradingKernel(Limits(memory_mb=64), self.assignment).launch()
            kernel.deadline = deadline
            return kernel
        return super().take(deadline)


@pytest.mark.slow
def test_a_kernel_that_fails_to_start_once_is_started_again() -> None:
    limits = Limits()
    pool = FirstStartFails(limits, "ch01")
    grade = grade_submission(Submission("amir", SOLUTION), Assignment.load("ch01"), limits, pool)
    pool.close()
    assert pool.taken == 2
    assert grade.status == "ok", grade.reason
    assert grade.total == sum(question.points_possible for question in grade.questions)
