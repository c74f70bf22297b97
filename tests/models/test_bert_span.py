"""best_span returns the span i..j (i <= j < i + max_answer_length, both ends allowed) of highest
start_i + end_j, the same as a brute-force search over every span, earliest span on ties."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from coursekit.models.bert.span import best_span


def brute_force(start: list[float], end: list[float], max_length: int, allowed: list[bool]):
    """(score, i, j) of the best span by trying every pair, earliest on ties; None if none."""
    best = None
    for i in range(len(start)):
        for j in range(i, min(len(start), i + max_length)):
            if allowed[i] and allowed[j] and (best is None or start[i] + end[j] > best[0]):
                best = (start[i] + end[j], i, j)
    return best


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_best_span_equals_brute_force(data: st.DataObject) -> None:
    batch, length = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 12))
    scores = st.lists(
        st.lists(st.integers(-5, 5).map(float), min_size=length, max_size=length),
        min_size=batch,
        max_size=batch,
    )
    start, end = data.draw(scores), data.draw(scores)
    allowed = data.draw(
        st.lists(
            st.lists(st.booleans(), min_size=length, max_size=length),
            min_size=batch,
            max_size=batch,
        )
    )
    max_length = data.draw(st.integers(1, 14))
    use_allowed = data.draw(st.booleans())
    found = best_span(
        torch.tensor(start, dtype=torch.float64),
        torch.tensor(end, dtype=torch.float64),
        max_length,
        torch.tensor(allowed) if use_allowed else None,
    )
    for row in range(batch):
        row_allowed = allowed[row] if use_allowed else [True] * length
        expected = brute_force(start[row], end[row], max_length, row_allowed)
        got = tuple(int(found[k][row]) for k in (0, 1)), float(found[2][row])
        if expected is None:
            assert got == ((0, 0), -math.inf)
        else:
            assert got == ((expected[1], expected[2]), expected[0])


def test_the_answer_may_not_end_before_it_starts_or_run_too_long() -> None:
    start = torch.tensor([[0.0, 0.0, 9.0, 0.0]])
    end = torch.tensor([[8.0, 0.0, 0.0, 5.0]])
    assert [int(t) for t in best_span(start, end, max_answer_length=2)[:2]] == [2, 3]
    assert [int(t) for t in best_span(start, end, max_answer_length=1)[:2]] == [2, 2]


def test_bad_arguments_are_rejected() -> None:
    scores = torch.zeros(2, 3)
    with pytest.raises(ValueError, match="must both be \\[B, T\\]"):
        best_span(scores, torch.zeros(2, 4))
    with pytest.raises(ValueError, match="max_answer_length must be >= 1"):
        best_span(scores, scores, 0)
    with pytest.raises(ValueError, match="allowed must be a BoolTensor"):
        best_span(scores, scores, 3, torch.ones(2, 3))
    with pytest.raises(TypeError, match="floating-point"):
        best_span(scores.long(), scores.long())
