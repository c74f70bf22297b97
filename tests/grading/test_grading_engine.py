"""The grading engine: seeded cases, running every case, errors, results, the printed report."""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator

import pytest
import torch

from coursekit.grading import (
    Case,
    Question,
    UnknownQuestionError,
    call_answer,
    case_seed,
    check,
    generate_cases,
    get_question,
    grade_case,
    run_question,
)
from coursekit.grading import questions as question_registry
from coursekit.grading.report import format_report, not_implemented_line


def doubled_reference(values: list[int]) -> torch.Tensor:
    return torch.tensor(values) * 2


def doubled_cases(rng: random.Random) -> Iterator[Case]:
    for size in (1, 3, 5, 7):
        yield Case(([rng.randint(0, 9) for _ in range(size)],), description=f"{size} values")


TOY = Question(
    id="ch90.q1",
    title="Double every value",
    points=2,
    answer_name="double",
    reference=doubled_reference,
    make_cases=doubled_cases,
)


@pytest.fixture
def toy_registered(monkeypatch: pytest.MonkeyPatch) -> Question:
    """The toy question, registered in a private copy of the registry."""
    monkeypatch.setattr(question_registry, "_REGISTRY", {TOY.id: TOY})
    return TOY


def correct(values: list[int]) -> torch.Tensor:
    return torch.tensor(values) * 2


def test_cases_are_deterministic_and_the_salt_changes_them() -> None:
    first = [case.args for case in generate_cases(TOY)]
    assert first == [case.args for case in generate_cases(TOY)]
    assert first != [case.args for case in generate_cases(TOY, salt="hidden")]


def test_cases_are_the_same_in_every_python_process() -> None:
    question_ids = ("ch01.q1", "ch01.q3")
    script = (
        "from coursekit.grading import generate_cases, get_question;"
        f"print([c.args for q in {question_ids!r} for c in generate_cases(get_question(q))])"
    )
    other_process = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "PYTHONHASHSEED": "12345"},  # string hashes differ from this process's
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    this_process = [c.args for q in question_ids for c in generate_cases(get_question(q))]
    assert other_process == f"{this_process}\n"


def test_the_correct_answer_passes_every_case() -> None:
    result = run_question(TOY, correct)
    assert result.status == "passed"
    assert [case.status for case in result.cases] == ["passed"] * 4
    assert result.points_earned == 2


def test_every_case_runs_after_a_failure_and_points_are_proportional() -> None:
    calls = []

    def flaky(values: list[int]) -> torch.Tensor:
        calls.append(len(values))
        if len(values) == 1:
            return torch.tensor(values) * 3
        if len(values) == 3:
            return torch.tensor(values[:2]) * 2
        return torch.tensor(values) * 2

    result = run_question(TOY, flaky)
    assert calls == [1, 3, 5, 7]
    assert [case.status for case in result.cases] == ["failed", "failed", "passed", "passed"]
    assert result.status == "failed"
    assert result.points_earned == 1.0
    assert result.cases[1].message == "shape mismatch: expected (3,), got (2,)"


def test_a_stub_is_reported_as_not_implemented_once() -> None:
    def stub(values: list[int]) -> torch.Tensor:
        raise NotImplementedError

    result = run_question(TOY, stub)
    assert result.status == "not implemented"
    assert result.points_earned == 0
    assert format_report(result) == not_implemented_line(TOY.id, TOY.title, TOY.answer_name)
    assert "Traceback" not in format_report(result)


def test_an_exception_names_its_type_message_and_the_students_line() -> None:
    def broken(values: list[int]) -> torch.Tensor:
        total = values[10]
        return torch.tensor([total])

    failing_line = inspect.getsourcelines(broken)[1] + 1
    result = run_question(TOY, broken)
    assert result.status == "error"
    assert {case.status for case in result.cases} == {"error"}
    assert result.cases[0].message == (
        f"IndexError: list index out of range (line {failing_line} in broken: total = values[10])"
    )


def test_memory_addresses_in_exception_messages_are_masked() -> None:
    def leaky(values: list[int]) -> torch.Tensor:
        raise ValueError(f"bad object {object()!r}")

    message = run_question(TOY, leaky).cases[0].message
    assert "0x..." in message
    assert "0x7" not in message and "0x5" not in message


def test_mixed_outcomes_make_the_question_an_error() -> None:
    def partly(values: list[int]) -> torch.Tensor:
        if len(values) == 7:
            raise RuntimeError("too long")
        if len(values) == 5:
            raise NotImplementedError
        return torch.tensor(values) * 2

    result = run_question(TOY, partly)
    assert [case.status for case in result.cases] == [
        "passed",
        "passed",
        "not implemented",
        "error",
    ]
    assert result.status == "error"
    assert result.points_earned == 1.0


def test_an_answer_that_mutates_its_arguments_cannot_change_the_case() -> None:
    cases = generate_cases(TOY)
    before = [list(case.args[0]) for case in cases]

    def vandal(values: list[int]) -> torch.Tensor:
        values.clear()
        return torch.tensor([])

    outcomes = [call_answer(vandal, case) for case in cases]
    assert [list(case.args[0]) for case in cases] == before
    verdict = grade_case(TOY, cases[0], 1, outcomes[0])
    assert verdict.message == f"shape mismatch: expected ({len(before[0])},), got (0,)"


def test_cases_calls_and_comparisons_are_separable() -> None:
    cases = generate_cases(TOY)
    outcomes = [call_answer(correct, case) for case in cases]
    plain = [outcome.value.tolist() for outcome in outcomes]  # what another process would send
    verdicts = [
        grade_case(TOY, case, number, type(outcome)(value=torch.tensor(value)))
        for number, (case, outcome, value) in enumerate(zip(cases, outcomes, plain, strict=True), 1)
    ]
    assert all(verdict.passed for verdict in verdicts)


def test_result_to_dict_is_json_serialisable_and_complete() -> None:
    def off_by_one(values: list[int]) -> torch.Tensor:
        return torch.tensor(values) * 2 + (len(values) == 5)

    data = json.loads(json.dumps(run_question(TOY, off_by_one).to_dict()))
    assert data["question_id"] == "ch90.q1"
    assert data["status"] == "failed"
    assert (data["passed"], data["total"]) == (3, 4)
    assert data["points_earned"] == 1.5 and data["points_possible"] == 2
    assert [case["passed"] for case in data["cases"]] == [True, True, False, True]
    assert data["cases"][2]["message"].startswith("5 of 5 elements differ")


def test_check_prints_a_short_report_and_returns_the_result(
    toy_registered: Question, capsys: pytest.CaptureFixture[str]
) -> None:
    def wrong_for_five(values: list[int]) -> torch.Tensor:
        return torch.tensor(values) * 2 + (len(values) == 5)

    result = check("ch90.q1", wrong_for_five)
    printed = capsys.readouterr().out
    assert result.status == "failed"
    lines = printed.splitlines()
    assert lines[0] == "ch90.q1 Double every value: 3/4 tests passed, 1.5/2 points"
    assert lines[1].startswith(
        "  test 3 failed (5 values): 5 of 5 elements differ; "
        "largest absolute difference 1 at index (0,)"
    )
    assert len(lines) == 2
    check("ch90.q1", wrong_for_five)
    assert capsys.readouterr().out == printed  # deterministic, as nbval needs


def test_check_of_a_passing_answer(
    toy_registered: Question, capsys: pytest.CaptureFixture[str]
) -> None:
    check("ch90.q1", correct)
    assert capsys.readouterr().out == "ch90.q1 Double every value: all 4 tests passed, 2/2 points\n"


def test_check_explains_a_call_instead_of_a_function(toy_registered: Question) -> None:
    with pytest.raises(TypeError, match=r"check\('ch90.q1', double\); got Tensor"):
        check("ch90.q1", correct([1, 2]))  # type: ignore[arg-type]


def test_unknown_question_ids_are_explained(toy_registered: Question) -> None:
    with pytest.raises(UnknownQuestionError, match="known questions: ch90.q1"):
        get_question("ch90.q7")
    with pytest.raises(UnknownQuestionError, match="ids look like 'ch01.q2'"):
        get_question("question one")


def test_question_ids_and_points_are_validated() -> None:
    with pytest.raises(ValueError, match="must look like 'ch01.q2'"):
        Question("q1", "t", 1, "f", doubled_reference, doubled_cases)
    with pytest.raises(ValueError, match="more than 0 points"):
        Question("ch90.q2", "t", 0, "f", doubled_reference, doubled_cases)


def test_a_question_id_cannot_be_registered_twice(toy_registered: Question) -> None:
    twin = Question(TOY.id, "Another", 1, "g", doubled_reference, doubled_cases)
    with pytest.raises(ValueError, match="registered twice"):
        question_registry.register(twin)


def test_the_seed_is_sha256_of_the_id_as_documented() -> None:
    assert case_seed("ch01.q1") == int(hashlib.sha256(b"ch01.q1").hexdigest()[:16], 16)
    assert case_seed("ch01.q1", salt="0") != case_seed("ch01.q10")


def test_a_cause_shared_by_every_failing_test_is_said_once() -> None:
    def as_float32(values: list[int]) -> torch.Tensor:
        return torch.tensor(values, dtype=torch.float32) * 2

    report = format_report(run_question(TOY, as_float32)).splitlines()
    assert report[1] == (
        "  tests 1, 2, 3, 4 failed: dtype mismatch: expected torch.int64, got torch.float32"
    )
    assert len(report) == 2


def test_a_missing_return_is_hinted_once() -> None:
    def forgot_return(values: list[int]) -> None:
        torch.tensor(values) * 2

    report = format_report(run_question(TOY, forgot_return)).splitlines()
    assert report[1] == "  tests 1, 2, 3, 4 failed: expected a torch.Tensor, got None"
    assert report[2:] == ["  hint: did you forget `return`? the function returned None"]


def float64_reference(x: torch.Tensor) -> torch.Tensor:
    return torch.exp(3 * torch.tanh(x))


def float64_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch.Generator().manual_seed(rng.getrandbits(32))
    for size in (30, 50):
        yield Case((torch.randn(size, dtype=torch.float64, generator=generator),))


FLOAT64_QUESTION = Question("ch90.q2", "Float64", 1, "f", float64_reference, float64_cases)


def test_float32_rounding_is_hinted() -> None:
    def in_float32(x: torch.Tensor) -> torch.Tensor:
        return torch.exp(3 * torch.tanh(x.float())).double()

    result = run_question(FLOAT64_QUESTION, in_float32)
    assert result.points_earned < 1
    assert "hint: the values agree only to float32 precision" in format_report(result)


def test_a_real_mistake_gets_no_float32_hint() -> None:
    result = run_question(FLOAT64_QUESTION, lambda x: torch.exp(3.01 * torch.tanh(x)))
    assert "hint" not in format_report(result)


def test_returned_items_are_named_and_one_item_is_singular() -> None:
    pair = Question(
        "ch90.q3",
        "Pair",
        1,
        "pair",
        lambda values: (torch.tensor(values), torch.tensor(values) > 2),
        doubled_cases,
        output_names=("values", "mask"),
    )
    result = run_question(pair, lambda values: (torch.tensor(values), torch.tensor(values) >= 2))
    assert any(case.message.startswith("mask: ") for case in result.cases)
    short = run_question(pair, lambda values: (torch.tensor(values),))
    assert short.cases[0].message == "expected 2 items, got 1"
    assert compare_items_message() == "expected 1 item, got 2"


def compare_items_message() -> str | None:
    from coursekit.grading import compare

    return compare([1], [1, 2])


FORBIDDEN = Question(
    id="ch90.q4",
    title="Double without the reference",
    points=1,
    answer_name="double",
    reference=doubled_reference,
    make_cases=doubled_cases,
)


def test_check_leads_with_the_zero_for_an_answer_that_calls_the_reference(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(question_registry, "_REGISTRY", {FORBIDDEN.id: FORBIDDEN})
    result = check("ch90.q4", lambda values: doubled_reference(values))
    assert result.points_earned == 0
    assert capsys.readouterr().out == (
        "ch90.q4 Double without the reference: 0/1 points: this calls the reference "
        "implementation test_grading_engine.doubled_reference; write double yourself, "
        "without it\n"
    )


def test_the_grader_fails_an_answer_that_calls_the_reference() -> None:
    alias = doubled_reference
    result = run_question(FORBIDDEN, lambda values: alias(values), enforce_forbidden=True)
    assert result.points_earned == 0
    assert all(case.status == "failed" for case in result.cases)
    assert result.cases[0].message == (
        "this calls the reference implementation test_grading_engine.doubled_reference: double "
        "must compute its result itself"
    )


def test_the_result_is_not_echoed_after_the_report() -> None:
    result = run_question(TOY, correct)
    assert result._ipython_display_() is None  # IPython shows nothing more than the report
