"""The instructor's self-check: ``coursekit grade --validate solutions/``.

Every solution notebook is graded as a submission and must score full marks with status ``ok``;
its exercise version, generated afresh by :func:`coursekit.grading.assign.assign_notebook`, must
score zero with status ``ok`` and every question "not implemented yet". So a broken reference, a
stale solution or an exercise that crashes the grader is found before the students are. Chapter
1, Text as sequences, has the first graded exercises; see the book's Exercises page.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import nbformat

from coursekit.grading.assign import assign_notebook
from coursekit.grading.batch import grade_class
from coursekit.grading.gradebook import SubmissionGrade, points_text
from coursekit.grading.grader import Assignment
from coursekit.grading.kernel import Limits
from coursekit.grading.submissions import Submission, tagged_questions


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
            problems += _solution_problems(solution, found["solution"])
            problems += _exercise_problems(solution, found["exercise"])
            print(
                f"{solution}: solution {points_text(found['solution'].total)}/"
                f"{points_text(found['solution'].possible)} ({found['solution'].status}), "
                f"exercise {points_text(found['exercise'].total)} ({found['exercise'].status})"
            )
    return problems


def _solution_problems(path: Path, grade: SubmissionGrade) -> list[str]:
    problems = []
    if grade.status != "ok":
        problems.append(f"{path}: the solution graded {grade.status} ({grade.reason})")
    for question in grade.questions:
        if question.points_earned != question.points_possible:
            why = question.reason or "; ".join(
                f"{test.label} {test.status}: {test.message}"
                for test in question.tests
                if not test.passed
            )
            problems.append(f"{path}: the solution of {question.question_id} lost points ({why})")
    return problems


def _exercise_problems(path: Path, grade: SubmissionGrade) -> list[str]:
    problems = []
    if grade.status != "ok":
        problems.append(f"{path}: its exercise graded {grade.status} ({grade.reason})")
    for question in grade.questions:
        if question.points_earned != 0 or not question.not_implemented:
            problems.append(
                f"{path}: the exercise of {question.question_id} is not a plain stub "
                f"({points_text(question.points_earned)} points, {question.reason or 'tests ran'})"
            )
    return problems
