"""Grade one question: draw its cases, call the answer on each, compare with the reference.

The three steps are separate public functions, :func:`~coursekit.grading.questions.generate_cases`,
:func:`~coursekit.grading.answers.call_answer` and :func:`grade_case`, so a grader can draw cases
and compare in its own process while the answer runs in another. :func:`run_question` chains them
in one process, which is what ``check`` does in a notebook (Chapter 1, Text as sequences).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import torch

from coursekit.grading.answers import AnswerOutcome, call_answer
from coursekit.grading.compare import compare, within_float32_rounding
from coursekit.grading.monitor import CallMonitor
from coursekit.grading.questions import Case, Question, generate_cases
from coursekit.grading.results import CaseResult, QuestionResult

MISSING_RETURN_HINT = "did you forget `return`? the function returned None"
FLOAT32_HINT = (
    "the values agree only to float32 precision (about 1e-6 relative): keep the float64 of "
    "the inputs, e.g. no float32 module or torch.tensor(..., dtype=torch.float32) on the way"
)

NAN_HINT = (
    "the answer holds NaN where the reference has numbers: NaN usually comes from a softmax "
    "over a row of -inf (a row left with nothing to attend: a mask read the other way round, or "
    "a softmax over the wrong axis), from 0 * log 0 (use torch.xlogy or torch.special.entr, "
    "which give 0), or from 0 * inf and inf - inf (a mask multiplied by -inf: set blocked "
    "scores with masked_fill or torch.where)"
)


def introduces_nan(expected: Any, actual: Any) -> bool:
    """Whether ``actual`` (a tensor, or a tuple or list of them) holds NaN where ``expected``
    holds a number."""
    if isinstance(expected, tuple | list) and isinstance(actual, tuple | list):
        return any(introduces_nan(e, a) for e, a in zip(expected, actual, strict=False))
    if not (isinstance(expected, torch.Tensor) and isinstance(actual, torch.Tensor)):
        return False
    if actual.shape != expected.shape or not actual.is_floating_point():
        return False
    return bool((actual.isnan() & ~expected.isnan()).any())


def delegation_reason(answer_name: str, implementation: str) -> str:
    """Why an answer that runs a forbidden implementation earns nothing (book: Exercises)."""
    return (
        f"this calls the reference implementation {implementation}: {answer_name} must compute "
        "its result itself"
    )


def grade_case(question: Question, case: Case, number: int, outcome: AnswerOutcome) -> CaseResult:
    """The verdict on case ``number`` (counted from 1): the answer's error, or the comparison of
    its value with ``question.expected(case)`` under the case's tolerance. A forbidden
    implementation the call ran is noted in ``forbidden_call``, not judged here: the grader zeroes
    the whole question (:func:`run_question` with ``enforce_forbidden`` does the same).

    See the book's Exercises page.
    """
    if outcome.error is not None:
        message = outcome.error.describe() if outcome.error.kind == "error" else "not implemented"
        return CaseResult(number, case.description, outcome.error.kind, message)
    forbidden = outcome.forbidden_call or ""
    expected = question.expected(case)
    try:
        difference = compare(
            expected, outcome.value, rtol=case.rtol, atol=case.atol, names=question.output_names
        )
    except Exception as error:  # noqa: BLE001 - a hostile value must not stop the grading
        difference = f"the answer could not be compared ({type(error).__name__} while reading it)"
    if difference is None:
        return CaseResult(number, case.description, "passed", forbidden_call=forbidden)
    hint = ""
    if outcome.value is None and expected is not None:
        hint = MISSING_RETURN_HINT
    elif within_float32_rounding(expected, outcome.value):
        hint = FLOAT32_HINT
    elif introduces_nan(expected, outcome.value):
        hint = NAN_HINT
    made, not_here = question.mistakes_made(case, outcome.value, expected)
    notes, untold = (tuple(mistake.note for mistake in group) for group in (made, not_here))
    return CaseResult(
        number, case.description, "failed", difference, hint, forbidden, notes, untold
    )


def consistent_mistakes(results: list[CaseResult]) -> list[CaseResult]:
    """Name a classic mistake only when it is the one mistake whose result the answer returned
    on every failing test that can show it: an answer that matches a mistake by chance on one
    test (a zero gradient where the mistake's is zero too) is not told it made it.

    See the book's Exercises page.
    """
    wrong = [result for result in results if result.status == "failed"]
    shown = {note for result in wrong for note in result.mistakes}
    named = tuple(
        note
        for note in shown
        if all(note in result.mistakes or note in result.untold for result in wrong)
    )
    named = named if len(named) == 1 else ()
    return [
        dataclasses.replace(result, mistakes=named if result.status == "failed" else ())
        for result in results
    ]


def run_question(
    question: Question,
    answer: Callable[..., Any],
    *,
    salt: str = "",
    enforce_forbidden: bool = False,
) -> QuestionResult:
    """Run ``answer`` on every case of ``question`` (all of them, whatever fails) and summarise.

    ``salt`` draws a different set of cases (see :func:`~coursekit.grading.questions.case_seed`).
    ``check`` only names a forbidden call; ``enforce_forbidden`` judges as the grader does: an
    answer that ran a forbidden implementation fails every case (:func:`delegation_reason`).

    See the book's Exercises page.
    """
    cases = generate_cases(question, salt=salt)
    monitor = CallMonitor(question.watched_implementations())
    results = consistent_mistakes(
        [
            grade_case(question, case, number, call_answer(answer, case, monitor))
            for number, case in enumerate(cases, start=1)
        ]
    )
    called = next((result.forbidden_call for result in results if result.forbidden_call), "")
    if enforce_forbidden and called:
        reason = delegation_reason(question.answer_name, called)
        results = [
            CaseResult(result.number, result.description, "failed", reason, forbidden_call=called)
            for result in results
        ]
    return QuestionResult(
        question.id, question.title, question.answer_name, question.points, results
    )
