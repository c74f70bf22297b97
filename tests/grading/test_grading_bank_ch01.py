"""Chapter 1's questions: plain-data cases, the solutions score full marks, wrong ideas do not."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest
import torch
from IPython.core.inputtransformer2 import TransformerManager

from coursekit.grading import all_questions, generate_cases, get_question, run_question

ROOT = Path(__file__).resolve().parents[2]
CHAPTER_1 = [f"ch01.q{number}" for number in range(1, 6)]


def notebook_functions(path: Path) -> dict[str, Any]:
    """Run every code cell of a notebook except the check cells; return what they define."""
    namespace: dict[str, Any] = {}
    transform = TransformerManager().transform_cell
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "code" and cell.metadata.get("coursekit", {}).get("role") != "check":
            exec(compile(transform(cell.source), f"{path.name}:{cell.id}", "exec"), namespace)
    return namespace


@pytest.fixture(scope="module")
def solutions() -> dict[str, Any]:
    return notebook_functions(ROOT / "solutions/01-text.ipynb")


@pytest.fixture(scope="module")
def stubs() -> dict[str, Any]:
    return notebook_functions(ROOT / "exercises/01-text.ipynb")


def is_plain_data(value: Any) -> bool:
    if value is None or type(value) in (int, float, bool, str) or type(value) is torch.Tensor:
        return True
    if type(value) in (list, tuple):
        return all(is_plain_data(item) for item in value)
    if type(value) is dict:
        return all(type(key) is str and is_plain_data(item) for key, item in value.items())
    return False


def test_chapter_1_registers_five_questions() -> None:
    assert [
        question.id for question in all_questions() if question.id.startswith("ch01.")
    ] == CHAPTER_1


@pytest.mark.parametrize("question_id", CHAPTER_1)
def test_cases_are_plain_data_with_descriptions(question_id: str) -> None:
    cases = generate_cases(get_question(question_id))
    assert len(cases) >= 4
    for case in cases:
        assert is_plain_data(list(case.args)) and is_plain_data(case.kwargs)
        assert case.description
    assert len({case.description for case in cases}) == len(cases)


@pytest.mark.parametrize("question_id", CHAPTER_1)
def test_the_solution_scores_full_marks(question_id: str, solutions: dict[str, Any]) -> None:
    question = get_question(question_id)
    result = run_question(question, solutions[question.answer_name])
    assert result.status == "passed", [case.message for case in result.cases]
    assert result.points_earned == question.points


@pytest.mark.parametrize("question_id", CHAPTER_1)
def test_the_exercise_stub_is_not_implemented(question_id: str, stubs: dict[str, Any]) -> None:
    question = get_question(question_id)
    assert run_question(question, stubs[question.answer_name]).status == "not implemented"


def test_known_values_from_the_literature() -> None:
    """Papineni et al. (2002): 'the' x 7 has clipped unigram precision 2/7; BP = exp(1 - r/c)."""
    precision = get_question("ch01.q3")
    papineni = generate_cases(precision)[0]
    assert precision.expected(papineni) == (2, 7)
    penalty = get_question("ch01.q4")
    for case in generate_cases(penalty):
        c, r = case.args
        expected = 1.0 if c >= r else (0.0 if c == 0 else math.exp(1 - r / c))
        assert penalty.expected(case) == pytest.approx(expected, rel=1e-12)


def vocab_in_first_seen_order(
    sentences: list[list[str]], min_freq: int, specials: list[str]
) -> list[str]:
    counts: dict[str, int] = {}
    for token in (token for sentence in sentences for token in sentence):
        counts[token] = counts.get(token, 0) + 1
    ranked = sorted(counts, key=lambda token: -counts[token])  # ties stay in first-seen order
    return specials + [t for t in ranked if counts[t] >= min_freq and t not in specials]


def mask_from_values(
    sequences: list[list[int]], padding_value: int
) -> tuple[torch.Tensor, torch.Tensor]:
    padded = torch.nn.utils.rnn.pad_sequence(
        [torch.tensor(s) for s in sequences], batch_first=True, padding_value=padding_value
    )
    return padded, padded == padding_value


def unclipped_precision(
    hypothesis: list[str], references: list[list[str]], n: int
) -> tuple[int, int]:
    grams = [tuple(hypothesis[i : i + n]) for i in range(len(hypothesis) - n + 1)]
    in_any = {tuple(r[i : i + n]) for r in references for i in range(len(r) - n + 1)}
    return sum(gram in in_any for gram in grams), len(grams)


def penalty_without_empty_case(hypothesis_length: int, reference_length: int) -> float:
    return (
        1.0
        if hypothesis_length >= reference_length
        else math.exp(1 - reference_length / hypothesis_length)
    )


def perplexity_ignoring_mask(nll: torch.Tensor, mask: torch.Tensor) -> float:
    return math.exp(nll.mean().item())


@pytest.mark.parametrize(
    ("question_id", "wrong_answer"),
    [
        ("ch01.q1", vocab_in_first_seen_order),
        ("ch01.q2", mask_from_values),
        ("ch01.q3", unclipped_precision),
        ("ch01.q4", penalty_without_empty_case),
        ("ch01.q5", perplexity_ignoring_mask),
    ],
)
def test_a_classic_mistake_loses_points(question_id: str, wrong_answer: Callable[..., Any]) -> None:
    result = run_question(get_question(question_id), wrong_answer)
    assert result.status in ("failed", "error")
    assert result.points_earned < get_question(question_id).points
