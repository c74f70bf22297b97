"""What every chapter bank from Chapter 2 on guarantees: 5 to 8 registered questions, those of its
solutions notebook, with plain, float64, described cases; references and solutions score full
marks; exercise stubs report "not implemented"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest
import torch
from test_grading_bank_ch01 import is_plain_data, notebook_functions

from coursekit.grading import all_questions, generate_cases, get_question, run_question

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = {
    "ch02": "02-rnn-bptt.ipynb",
    "ch03": "03-lstm-gru.ipynb",
    "ch04": "04-seq2seq-attention.ipynb",
    "ch05": "05-transformers.ipynb",
    "ch06": "06-bert.ipynb",
    "ch07": "07-transformer-xl-xlnet.ipynb",
}


def answered_questions(name: str) -> list[str]:
    """The question ids of the answer cells of ``solutions/<name>``, in order."""
    notebook = nbformat.read(ROOT / "solutions" / name, as_version=4)
    marks = [cell.metadata.get("coursekit", {}) for cell in notebook.cells]
    return [mark["question"] for mark in marks if mark.get("role") == "answer"]


CHAPTER_QUESTIONS = {chapter: answered_questions(name) for chapter, name in NOTEBOOKS.items()}
QUESTIONS = [question for questions in CHAPTER_QUESTIONS.values() for question in questions]


@pytest.fixture(scope="module")
def solutions() -> dict[str, dict[str, Any]]:
    return {
        chapter: notebook_functions(ROOT / "solutions" / name)
        for chapter, name in NOTEBOOKS.items()
    }


@pytest.fixture(scope="module")
def stubs() -> dict[str, dict[str, Any]]:
    return {
        chapter: notebook_functions(ROOT / "exercises" / name)
        for chapter, name in NOTEBOOKS.items()
    }


def float_tensors(value: Any) -> list[torch.Tensor]:
    """Every floating-point tensor inside nested lists and tuples."""
    if isinstance(value, torch.Tensor):
        return [value] if value.is_floating_point() else []
    if isinstance(value, (list, tuple)):
        return [tensor for item in value for tensor in float_tensors(item)]
    return []


@pytest.mark.parametrize("chapter", NOTEBOOKS)
def test_each_chapter_registers_the_questions_of_its_notebook(chapter: str) -> None:
    """5 to 8 questions, numbered from 1, each answered in the notebook."""
    registered = [
        question.id for question in all_questions() if question.id.startswith(f"{chapter}.")
    ]
    assert 5 <= len(registered) <= 8
    assert registered == [f"{chapter}.q{number}" for number in range(1, len(registered) + 1)]
    assert CHAPTER_QUESTIONS[chapter] == registered


@pytest.mark.parametrize("question_id", QUESTIONS)
def test_cases_are_plain_float64_data_with_descriptions(question_id: str) -> None:
    cases = generate_cases(get_question(question_id))
    assert len(cases) >= 4
    for case in cases:
        assert is_plain_data(list(case.args)) and is_plain_data(case.kwargs)
        assert case.description
        assert all(tensor.dtype == torch.float64 for tensor in float_tensors(case.args))
    assert len({case.description for case in cases}) == len(cases)


@pytest.mark.parametrize("question_id", QUESTIONS)
def test_the_reference_scores_full_marks_against_itself(question_id: str) -> None:
    question = get_question(question_id)
    assert run_question(question, question.reference).status == "passed"


@pytest.mark.parametrize("question_id", QUESTIONS)
def test_the_solution_scores_full_marks(
    question_id: str, solutions: dict[str, dict[str, Any]]
) -> None:
    question = get_question(question_id)
    answer = solutions[question_id.split(".")[0]][question.answer_name]
    result = run_question(question, answer)
    assert result.status == "passed", [case.message for case in result.cases]
    assert result.points_earned == question.points


@pytest.mark.parametrize("question_id", QUESTIONS)
def test_the_exercise_stub_is_not_implemented(
    question_id: str, stubs: dict[str, dict[str, Any]]
) -> None:
    question = get_question(question_id)
    stub = stubs[question_id.split(".")[0]][question.answer_name]
    assert run_question(question, stub).status == "not implemented"


MISTAKES = [
    (question.id, index) for question in all_questions() for index in range(len(question.mistakes))
]


@pytest.mark.parametrize(("question_id", "index"), MISTAKES)
def test_a_named_mistake_loses_points_and_check_names_it_and_no_other(
    question_id: str, index: int
) -> None:
    question = get_question(question_id)
    mistake = question.mistakes[index]
    result = run_question(question, mistake.answer)
    assert result.points_earned < question.points
    hints = [note for case in result.cases if not case.passed for note in case.mistakes]
    assert any(mistake.note in hint for hint in hints)
    for other in question.mistakes:
        if other is not mistake:
            assert not any(other.note in hint for hint in hints), other.note


def shifted_by_one(value: Any) -> Any:
    """The reference's result plus 1: wrong everywhere, and none of the named mistakes."""
    if isinstance(value, tuple):
        return tuple(map(shifted_by_one, value))
    return value + 1


@pytest.mark.parametrize("question_id", sorted({question_id for question_id, _ in MISTAKES}))
def test_a_wrong_answer_that_is_no_named_mistake_gets_no_mistake_note(question_id: str) -> None:
    question = get_question(question_id)

    def shifted(*args: Any, **kwargs: Any) -> Any:
        return shifted_by_one(question.reference(*args, **kwargs))

    result = run_question(question, shifted)
    assert result.passed_count == 0
    assert not any(case.mistakes for case in result.cases)


def test_a_mistake_an_answer_matches_on_one_test_only_is_not_named() -> None:
    """A zero gradient equals "h_0 taken as zero" on the single step from h_0 (that mistake's
    gradient is zero there too) and on no other test: check names no mistake."""
    question = get_question("ch02.q3")
    cases = generate_cases(question)
    by_chance = [
        bool(
            question.mistakes_made(case, torch.zeros_like(case.args[3]), question.expected(case))[0]
        )
        for case in cases
    ]
    assert any(by_chance) and not all(by_chance)

    def zeros(X: Any, Y: Any, W_hx: Any, W_hh: Any, W_qh: Any, h0: Any) -> Any:
        return torch.zeros_like(W_hh)

    result = run_question(question, zeros)
    assert result.passed_count == 0
    assert not any(case.mistakes for case in result.cases)
