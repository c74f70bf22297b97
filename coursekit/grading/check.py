"""``check``: the call at the end of every exercise, which grades the student's function at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from coursekit.grading.questions import get_question
from coursekit.grading.report import format_report
from coursekit.grading.results import QuestionResult
from coursekit.grading.run import run_question


def check(question_id: str, answer: Callable[..., Any]) -> QuestionResult:
    """Grade ``answer`` on question ``question_id``, print a short report and return the result.

    ``check("ch01.q2", pad_and_mask)`` calls ``pad_and_mask`` on every seeded case of the
    question and compares each return value with the reference implementation (Chapter 1, Text as
    sequences, has the first such exercises). The report is plain text, the same in Jupyter,
    Colab and a terminal; the returned :class:`QuestionResult` holds every case's verdict. An
    answer that calls the reference implementation earns nothing here, as in the grader.
    """
    question = get_question(question_id)
    if not callable(answer):
        raise TypeError(
            f"check({question_id!r}, ...) needs your function itself, e.g. "
            f"check({question_id!r}, {question.answer_name}); got {type(answer).__name__}"
        )
    result = run_question(question, answer, enforce_forbidden=True)
    print(format_report(result))
    return result
