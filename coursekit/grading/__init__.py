"""Exercises that grade themselves: the questions and ``check``.

A notebook cell ``check("ch01.q2", pad_and_mask)`` draws the question's seeded cases, calls the
student's function on each, compares with the reference implementation and prints a short
report. The steps are public on their own (:func:`generate_cases`, :func:`call_answer`,
:func:`grade_case`) so that a grader in another process can reuse them: the instructor's batch
grader, in :mod:`coursekit.grading.instructor`, does. Chapter 1, Text as sequences, has the first
exercises.
"""

from __future__ import annotations

from coursekit.grading.answers import AnswerError, AnswerOutcome, call_answer
from coursekit.grading.check import check
from coursekit.grading.compare import compare
from coursekit.grading.questions import (
    Case,
    Question,
    UnknownQuestionError,
    all_questions,
    case_seed,
    generate_cases,
    get_question,
    register,
)
from coursekit.grading.report import format_report
from coursekit.grading.results import CaseResult, QuestionResult
from coursekit.grading.run import grade_case, run_question

__all__ = [
    "AnswerError",
    "AnswerOutcome",
    "Case",
    "CaseResult",
    "Question",
    "QuestionResult",
    "UnknownQuestionError",
    "all_questions",
    "call_answer",
    "case_seed",
    "check",
    "compare",
    "format_report",
    "generate_cases",
    "get_question",
    "grade_case",
    "register",
    "run_question",
]
