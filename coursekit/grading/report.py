"""The short text report that ``check`` prints under an exercise (Chapter 1, Text as sequences).

The text is deterministic (no timings, no memory addresses) so that notebook tests can compare it,
and plain so that it reads the same in Jupyter, Colab and a terminal.
"""

from __future__ import annotations

from coursekit.grading.results import CaseResult, QuestionResult, mistake_hint

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


def delegation_line(result: QuestionResult, called: str) -> str:
    """The whole report for an answer that runs the reference implementation ``called``: it
    earns nothing, whatever its values, so the headline leads with the zero, e.g.
    ``"ch01.q1 Tokenize: 0/1 points: this calls the reference implementation
    coursekit.text.basic_english; write basic_english yourself, without it"``.

    See the book's Exercises page.
    """
    return (
        f"{result.question_id} {result.title}: 0/{result.points_possible:g} points: this calls "
        f"the reference implementation {called}; write {result.answer_name} yourself, without it"
    )


def format_report(result: QuestionResult) -> str:
    """A headline with the score, then what went wrong, each cause said once.

    ``"ch01.q2 Pad a batch: 4/5 tests passed, 1.6/2 points"`` followed by, e.g.,
    ``"  test 3 failed (lengths [4, 1, 2]): mask: shape mismatch: expected (3, 4), got (4, 3)"``.
    When every failing test failed with the same message, that message is printed once for all
    of them; a hint (a missing ``return``, float32 arithmetic) is named once at the end. An answer
    that calls the reference implementation gets :func:`delegation_line` instead.

    See the book's Exercises page.
    """
    if result.status == "not implemented":
        return not_implemented_line(result.question_id, result.title, result.answer_name)
    called = next((case.forbidden_call for case in result.cases if case.forbidden_call), "")
    if called:
        return delegation_line(result, called)
    total = len(result.cases)
    score = f"{result.points_earned:g}/{result.points_possible:g} points"
    tests = "test" if total == 1 else "tests"
    passed = (
        f"{'the' if total == 1 else f'all {total}'} {tests} passed"
        if result.status == "passed"
        else f"{result.passed_count}/{total} {tests} passed"
    )
    lines = [f"{result.question_id} {result.title}: {passed}, {score}"]
    failures = [case for case in result.cases if not case.passed]
    messages = {(case.status, case.message) for case in failures}
    if len(failures) > 1 and len(messages) == 1:
        numbers = ", ".join(str(case.number) for case in failures)
        lines.append(f"  tests {numbers} {_case_line(failures[0], with_description=False)}")
    else:
        lines += [
            f"  test {case.number} {_case_line(case)}" for case in failures[:MAX_LISTED_CASES]
        ]
        if len(failures) > MAX_LISTED_CASES:
            lines.append(f"  ... and {len(failures) - MAX_LISTED_CASES} more")
    for hint in dict.fromkeys(case.hint for case in failures if case.hint):
        lines.append(f"  hint: {hint}")
    for note in dict.fromkeys(note for case in failures for note in case.mistakes):
        lines.append(f"  hint: {mistake_hint(note)}")
    return "\n".join(lines)


def _case_line(case: CaseResult, with_description: bool = True) -> str:
    """``failed (lengths [4, 1, 2]): <message>`` for one failing case."""
    verb = CASE_VERBS[case.status]
    about = f" ({case.description})" if case.description and with_description else ""
    detail = f": {case.message}" if case.status != "not implemented" else ""
    return f"{verb}{about}{detail}"
