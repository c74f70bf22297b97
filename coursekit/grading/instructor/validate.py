"""The instructor's self-check: ``coursekit grade --validate solutions/``.

Every solution notebook is graded as a submission and must score full marks with status ``ok``;
its exercise version, generated afresh by
:func:`coursekit.grading.instructor.assign.assign_notebook`, must score zero with status ``ok``
and every question "not implemented yet". So a broken reference, a stale solution or an exercise
that crashes the grader is found before the students are. Chapter 1, Text as sequences, has the
first graded exercises; see the book's Exercises page.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import nbformat

from coursekit.grading.instructor.assign import assign_notebook
from coursekit.grading.instructor.batch import grade_class
from coursekit.grading.instructor.gradebook import QuestionGrade, SubmissionGrade, points_text
from coursekit.grading.instructor.grader import Assignment
from coursekit.grading.instructor.kernel import Limits
from coursekit.grading.instructor.submissions import Submission, tagged_questions


def assignment_of(notebook: Path) -> str:
    """The chapter whose questions a solution notebook carries (``"ch01"``)."""
    chapters = {
        question.split(".")[0]
        for question in tagged_questions(nbformat.read(notebook, as_version=4))
    }
    if len(chapters) != 1:
        raise ValueError(f"{notebook} carries questions of {len(chapters)} chapters, not one")
    return chapters.pop()


def validate_solutions(
    folder: Path, limits: Limits, *, jobs: int = 1, progress: bool = True
) -> list[str]:
    """Grade every solution of ``folder`` and its generated exercise; return the problems found.

    Prints one line per notebook.
    """
    problems: list[str] = []
    notebooks = sorted(folder.glob("*.ipynb"))
    if not notebooks:
        return [f"no solution notebooks in {folder}"]
    with tempfile.TemporaryDirectory(prefix="coursekit-validate-") as scratch:
        for solution in notebooks:
            assignment = Assignment.load(assignment_of(solution))
            exercise = assign_notebook(solution, Path(scratch) / solution.name)
            submissions = [Submission("solution", solution), Submission("exercise", exercise)]
            grades = grade_class(submissions, assignment, limits, jobs=jobs, progress=progress)
            found = {grade.student: grade for grade in grades}
            problems += _problems(solution, "solution", found["solution"], _full_marks)
            problems += _problems(solution, "exercise", found["exercise"], _plain_stub)
            print(
                f"{solution}: solution {points_text(found['solution'].total)}/"
                f"{points_text(found['solution'].possible)} ({found['solution'].status}), "
                f"exercise {points_text(found['exercise'].total)} ({found['exercise'].status})"
            )
    return problems


def _problems(
    path: Path, role: str, grade: SubmissionGrade, judge: Callable[[QuestionGrade], str | None]
) -> list[str]:
    """The problems of one graded notebook: its status, then each question ``judge`` faults."""
    problems = [f"{path}: the {role} graded {grade.status} ({grade.reason})"]
    problems = problems if grade.status != "ok" else []
    for question in grade.questions:
        problem = judge(question)
        if problem is not None:
            problems.append(f"{path}: the {role} of {question.question_id} {problem}")
    return problems


def _full_marks(question: QuestionGrade) -> str | None:
    if question.points_earned == question.points_possible:
        return None
    failures = [
        f"{test.label} {test.status}: {test.explained_message()}"
        for test in question.tests
        if not test.passed
    ]
    return f"lost points ({question.reason or '; '.join(failures)})"


def _plain_stub(question: QuestionGrade) -> str | None:
    if question.points_earned == 0 and question.not_implemented:
        return None
    points = points_text(question.points_earned)
    return f"is not a plain stub ({points} points, {question.reason or 'tests ran'})"
