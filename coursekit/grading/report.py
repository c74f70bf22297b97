"""The short text report that ``check`` prints under an exercise (Chapter 1, Text as sequences).

The text is deterministic (no timings, no memory addresses) so that notebook tests can compare it,
and plain so that it reads the same in Jupyter, Colab and a terminal.
"""

from __future__ import annotations

from coursekit.grading.results import QuestionResult

MAX_LISTED_CASES = 10
CASE_VERBS = {
    "failed": "failed",
    "error": "raised an error",
    "not implemented": "is not implemented",
}


def not_implemented_line(question_id: str, title: str, answer_name: str) -> str:
    """The whole report for an untouched stub, e.g. ``"ch01.q2 Pad a batch: not implemented yet
    (replace `raise NotImplementedError` in pad_and_mask with your code)"``.

    See the book's Exercises page.
    """
    return (
        f"{question_id} {title}: not implemented yet "
        f"(replace `raise NotImplementedError` in {answer_name} with your code)"
    )


def format_report(result: QuestionResult) -> str:
    """A headline with the score, then one line per case that did not pass.

    ``"ch01.q2 Pad a batch: 4/5 tests passed, 1.6/2 points"`` followed by, e.g.,
    ``"  test 3 failed (lengths [4, 1, 2]): [1]: shape mismatch: expected (3, 4), got (4, 3)"``.

    See the book's Exercises page.
    """
    if result.status == "not implemented":
        return not_implemented_line(result.question_id, result.title, result.answer_name)
    total = len(result.cases)
    score = f"{result.points_earned:g}/{result.points_possible:g} points"
    passed = (
        f"all {total} tests passed"
        if result.status == "passed"
        else f"{result.passed_count}/{total} tests passed"
    )
    lines = [f"{result.question_id} {result.title}: {passed}, {score}"]
    failures = [case for case in result.cases if not case.passed]
    for case in failures[:MAX_LISTED_CASES]:
        verb = CASE_VERBS[case.status]
        about = f" ({case.description})" if case.description else ""
        detail = f": {case.message}" if case.status != "not implemented" else ""
        lines.append(f"  test {case.number} {verb}{about}{detail}")
    if len(failures) > MAX_LISTED_CASES:
        lines.append(f"  ... and {len(failures) - MAX_LISTED_CASES} more")
    return "\n".join(lines)
