"""The plain-data exchange between a student's kernel and the grader: what crosses, what is
refused, and that a value crossing is judged exactly as the same value in one process."""

from __future__ import annotations

import math
import os
import pickle
from pathlib import Path

import numpy as np
import pytest
import torch

from coursekit.grading import AnswerError, AnswerOutcome, Case, Question, compare
from coursekit.grading import questions as question_registry
from coursekit.grading.instructor.exchange import (
    ExchangeError,
    MissingAnswer,
    answer_named,
    decode_value,
    encode_value,
    read_outcomes,
    write_cases,
)


class AlwaysEqual:
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = None  # type: ignore[assignment]


class LoudList(list):
    def __iter__(self):
        raise RuntimeError("a hostile __iter__")


class Tagged(torch.Tensor):
    """A tensor subclass without its own dispatch: it crosses as a plain tensor."""


def cross(value: object) -> object:
    """``value`` as the grader receives it: encoded, saved, loaded with weights_only, decoded."""
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"exchange-{os.getpid()}.pt"
    torch.save(encode_value(value), path)
    try:
        return decode_value(torch.load(path, weights_only=True))
    finally:
        path.unlink()


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        3,
        -2.5,
        math.inf,
        "naïve",
        [1, [2.0, "x"], (True, None)],
        (torch.arange(6).reshape(2, 3), torch.tensor(0.5, dtype=torch.float64)),
        {"tokens": ["a", "b"], 3: 1.5, None: False},
        torch.zeros(0, 4, dtype=torch.bool),
    ],
)
def test_plain_values_cross_unchanged(value: object) -> None:
    received = cross(value)
    assert compare(value, received, rtol=0, atol=0) is None
    assert type(received) is type(value)


def test_numpy_values_cross_as_numpy() -> None:
    array = np.arange(4, dtype=np.float32).reshape(2, 2)
    received = cross([array, np.int64(7), np.float64(0.25)])
    assert type(received[0]) is np.ndarray and received[0].dtype == np.float32
    assert np.array_equal(received[0], array)
    assert type(received[1]) is np.int64 and received[1] == 7
    assert compare(0.25, received[2]) is None


def test_a_subclass_of_a_builtin_crosses_as_its_value_or_as_a_stand_in() -> None:
    class Sneaky(int):
        def __eq__(self, other: object) -> bool:
            return True

    number, hostile = cross([Sneaky(4), LoudList([1, 2])])
    assert number == 4 and type(number) is int  # the built-in value, not the subclass
    assert type(hostile).__name__ == "LoudList"  # unreadable: an inert stand-in that earns nothing
    assert compare([1, 2], hostile) == f"expected a list of 2 items, got {__name__}.LoudList"


def test_a_tensor_subclass_without_dispatch_crosses_as_a_plain_tensor() -> None:
    received = cross(torch.ones(3).as_subclass(Tagged))
    assert type(received) is torch.Tensor


def test_an_object_with_an_odd_eq_arrives_as_an_inert_stand_in() -> None:
    received = cross(AlwaysEqual())
    assert type(received).__name__ == "AlwaysEqual"
    assert type(received).__eq__ is object.__eq__
    assert compare(3, received) == f"expected an int, got {__name__}.AlwaysEqual"
    assert compare([1, 2], received).startswith("expected a list of 2 items, got")


def test_values_in_and_across_processes_get_the_same_verdict() -> None:
    expected = (torch.tensor([[1, 2, 0]]), torch.tensor([[False, False, True]]))
    answers = [
        expected,
        [expected[0], expected[1]],
        (expected[0].float(), expected[1]),
        (expected[0].T, expected[1]),
        (np.array([[1, 2, 0]]), expected[1]),
        "wrong",
    ]
    for answer in answers:
        assert compare(expected, cross(answer)) == compare(expected, answer)


def division(a: int, b: int) -> float:
    return a / b


def registered(monkeypatch: pytest.MonkeyPatch, answer_name: str) -> str:
    """A question asking for ``answer_name``, in a private copy of the registry; its id."""
    question = Question("ch90.q1", "Divide", 1, answer_name, division, lambda rng: [Case((1, 2))])
    monkeypatch.setattr(question_registry, "_REGISTRY", {question.id: question})
    return question.id


def test_the_kernel_side_reports_a_missing_or_uncallable_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    question_id = registered(monkeypatch, "f")
    write_cases([Case((1, 2))], tmp_path / "cases.pt")
    for namespace, reason in [({}, "f is not defined"), ({"f": 5}, "f is not a function")]:
        answer_named(namespace, question_id, str(tmp_path / "cases.pt"), str(tmp_path / "out.pt"))
        with pytest.raises(MissingAnswer, match=reason):
            read_outcomes(tmp_path / "out.pt", 1)


def test_the_kernel_side_calls_the_answer_on_every_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    question_id = registered(monkeypatch, "divide")
    cases = [Case((1, 2)), Case((3, 0)), Case((4,), {"b": 2})]

    def divide(a: int, b: int) -> float:
        if b == 0:
            raise ZeroDivisionError("b is zero")
        return a / b

    write_cases(cases, tmp_path / "cases.pt")
    answer_named(
        {"divide": divide}, question_id, str(tmp_path / "cases.pt"), str(tmp_path / "out.pt")
    )
    outcomes = read_outcomes(tmp_path / "out.pt", 3)
    assert outcomes[0] == AnswerOutcome(value=0.5)
    assert outcomes[1].error is not None and outcomes[1].error.exception_type == "ZeroDivisionError"
    assert outcomes[2] == AnswerOutcome(value=2.0)


def test_a_malicious_pickle_is_refused_without_running(tmp_path: Path) -> None:
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (os.mkdir, (str(marker),))

    with (tmp_path / "out.pt").open("wb") as handle:
        pickle.dump(("answers", [("value", Payload())]), handle)
    with pytest.raises(ExchangeError, match="could not be read"):
        read_outcomes(tmp_path / "out.pt", 1)
    assert not marker.exists()


@pytest.mark.parametrize(
    "data",
    [
        ("answers", [("value", ("V", [1]), None)]),
        ("answers", [("value", ("Z", 1), None)]),
        ("answers", [("value", ("V", 1), 3)]),
        ("answers", [("error", "fatal", "E", "m", None)]),
        ("answers", [("value", ("V", 1), None), ("value", ("V", 2), None)]),
        ("answers", [("value", ("D", [[("L", []), ("V", 1)]]), None)]),
        ["answers"],
    ],
)
def test_anything_outside_the_format_is_refused(tmp_path: Path, data: object) -> None:
    torch.save(data, tmp_path / "out.pt")
    with pytest.raises(ExchangeError):
        read_outcomes(tmp_path / "out.pt", 1)


def test_errors_cross_as_plain_strings(tmp_path: Path) -> None:
    error = ("error", "error", "IndexError", "list index out of range", "line 3 in f: x[9]")
    torch.save(("answers", [error]), tmp_path / "out.pt")
    expected = AnswerError("error", "IndexError", "list index out of range", "line 3 in f: x[9]")
    assert read_outcomes(tmp_path / "out.pt", 1) == [AnswerOutcome(error=expected)]


def test_a_missing_or_oversized_answer_file_is_refused(tmp_path: Path, monkeypatch) -> None:
    with pytest.raises(ExchangeError, match="wrote no answers"):
        read_outcomes(tmp_path / "absent.pt", 1)
    torch.save(("answers", [("value", ("V", 1), None)]), tmp_path / "out.pt")
    monkeypatch.setattr("coursekit.grading.instructor.exchange.MAX_OUTCOME_BYTES", 10)
    with pytest.raises(ExchangeError, match="more than"):
        read_outcomes(tmp_path / "out.pt", 1)
