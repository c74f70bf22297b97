"""Grade one question: draw its cases, call the answer on each, compare with the reference.

The three steps are separate public functions, :func:`~coursekit.grading.questions.generate_cases`,
:func:`~coursekit.grading.answers.call_answer` and :func:`grade_case`, so a grader can draw cases
and compare in its own process while the answer runs in another. :func:`run_question` chains them
in one process, which is what ``check`` does in a notebook (Chapter 1, Text as sequences).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from coursekit.grading.answers import AnswerOutcome, call_answer
from coursekit.grading.compare import compare
from coursekit.grading.questions import Case, Question, generate_cases
from coursekit.grading.results import CaseResult, QuestionResult


def grade_case(question: Question, case: Case, number: int, outcome: AnswerOutcome) -> CaseResult:
    """The verdict on case ``number`` (counted from 1): the answer's error, or the comparison of
    its value with ``question.expected(case)`` under the case's tolerance.

    See the book's Exercises page.
    """
    if outcome.error is not None:
        message = outcome.error.describe() if outcome.error.kind == "error" else "not implemented"
        return CaseResult(number, case.description, outcome.error.kind, message)
    expected = question.expected(case)
    try:
        difference = compare(expected, outcome.value, rtol=case.rtol, atol=case.atol)
    except Exception as error:  # noqa: BLE001 - a hostile value must not stop the grading
        difference = f"the answer could not be compared ({type(error).__name__} while reading it)"
    if difference is None:
        return CaseResult(number, case.description, "passed")
    return CaseResult(number, case.description, "failed", difference)


def run_question(
    question: Question, answer: Callable[..., Any], *, salt: str = ""
) -> QuestionResult:
    """Run ``answer`` on every case of ``question`` (all of them, whatever fails) and summarise.

    ``salt`` draws a different set of cases (see :func:`~coursekit.grading.questions.case_seed`).

    See the book's Exercises page.
    """
    cases = generate_cases(question, salt=salt)
    results = [
        grade_case(question, case, number, call_answer(answer, case))
        for number, case in enumerate(cases, start=1)
    ]
    return QuestionResult(
        question.id, question.title, question.answer_name, question.points, results
    )
