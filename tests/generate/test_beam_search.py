"""Beam search and greedy decoding of Chapter 4: beam 1 is greedy, a beam as large as the
search space is exhaustive search, scores are the teacher-forced log-probabilities divided by
GNMT's length penalty, nested states are reordered with the beams, eos ends a hypothesis.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import pytest
import torch
from search_models import (
    MarkovChain,
    RandomRecurrentModel,
    all_outputs,
    gnmt_score,
    log,
    select_row,
    sequence_log_prob,
)

from coursekit.generate import Hypothesis, beam_search, greedy_decode, reorder_state, repeat_state


class RecurrentPair(NamedTuple):
    """A named state with a nested tuple and a list, as a model might carry."""

    layers: tuple[torch.Tensor, torch.Tensor]
    extra: list


VOCAB, EOS, BOS = 4, 1, 0


@pytest.mark.parametrize("lstm", [False, True], ids=["tensor_state", "nested_state"])
@pytest.mark.parametrize("seed", range(4))
def test_one_beam_is_greedy_decoding(lstm: bool, seed: int) -> None:
    model = RandomRecurrentModel(6, 5, seed, lstm)
    state = model.initial_state(5)
    bos = torch.full((5,), BOS)
    greedy = greedy_decode(model.step, state, bos, EOS, max_len=7)
    beams = beam_search(model.step, state, bos, EOS, beam_size=1, max_len=7)
    assert [output.tokens for output in greedy] == [best.tokens for (best,) in beams]
    assert [output.score for output in greedy] == pytest.approx([best.score for (best,) in beams])
    for output in greedy:
        assert EOS not in output.tokens[:-1] and (
            output.tokens[-1] == EOS or len(output.tokens) == 7
        )


@pytest.mark.parametrize("lstm", [False, True], ids=["tensor_state", "nested_state"])
@pytest.mark.parametrize("alpha", [0.0, 0.6, 2.0])
@pytest.mark.parametrize("seed", range(3))
def test_a_beam_as_large_as_the_search_space_is_exhaustive_search(
    lstm: bool, alpha: float, seed: int
) -> None:
    max_len, batch_size, n_best = 3, 3, 6
    model = RandomRecurrentModel(VOCAB, 4, seed, lstm)
    state = model.initial_state(batch_size)
    outputs = list(all_outputs(VOCAB, EOS, max_len))
    found = beam_search(
        model.step, state, torch.full((batch_size,), BOS), EOS, beam_size=len(outputs),
        max_len=max_len, length_penalty=alpha, n_best=n_best,
    )  # fmt: skip
    for row in range(batch_size):
        scored = [
            (gnmt_score(sequence_log_prob(model, select_row(state, row), BOS, y), len(y), alpha), y)
            for y in outputs
        ]
        best = sorted(scored, key=lambda pair: -pair[0])[:n_best]
        assert [hypothesis.tokens for hypothesis in found[row]] == [y for _, y in best]
        assert [hypothesis.score for hypothesis in found[row]] == pytest.approx(
            [s for s, _ in best]
        )


@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_scores_are_teacher_forced_log_probabilities_over_the_length_penalty(alpha: float) -> None:
    model = RandomRecurrentModel(7, 6, seed=11, lstm=True)
    state = model.initial_state(4)
    found = beam_search(
        model.step, state, torch.full((4,), BOS), EOS, beam_size=4, max_len=6,
        length_penalty=alpha, n_best=4,
    )  # fmt: skip
    for row, hypotheses in enumerate(found):
        assert len(hypotheses) == 4
        assert len({tuple(h.tokens) for h in hypotheses}) == 4  # distinct hypotheses
        scores = [h.score for h in hypotheses]
        assert scores == sorted(scores, reverse=True)
        for hypothesis in hypotheses:
            log_prob = sequence_log_prob(model, select_row(state, row), BOS, hypothesis.tokens)
            expected = gnmt_score(log_prob, len(hypothesis.tokens), alpha)
            assert hypothesis.score == pytest.approx(expected, rel=1e-9)


def test_length_penalty_changes_the_ranking_as_gnmt_says() -> None:
    chain = MarkovChain()
    start, state = torch.tensor([0]), torch.zeros(1, 1)
    run_of_b = sum(map(log, (0.5, 0.9, 0.9, 0.9)))  # [b, b, b, b], cut at max_len = 4
    for alpha, winner, score in [
        (0.0, [1], log(0.5)),
        (0.6, [1], log(0.5) / (6 / 6) ** 0.6),
        (1.0, [2, 2, 2, 2], run_of_b / (9 / 6)),
    ]:
        ((best,),) = beam_search(chain.step, state, start, 1, 3, max_len=4, length_penalty=alpha)
        assert best.tokens == winner
        assert best.score == pytest.approx(score)


def test_a_finished_hypothesis_stops_growing_and_keeps_its_place() -> None:
    chain = MarkovChain()
    found = beam_search(
        chain.step, torch.zeros(2, 1), torch.tensor([0, 0]), 1, beam_size=2, max_len=3, n_best=2
    )
    # [eos] (p 0.5), finished at step 1, still beats the best continuation of "b" at step 3
    for hypotheses in found:
        assert hypotheses == [
            Hypothesis([1], log(0.5)),
            Hypothesis([2, 2, 2], pytest.approx(log(0.5) + 2 * log(0.9))),
        ]
    # one model call per step for the two beams of both inputs
    assert chain.calls == [4, 4, 4]


class OnlyEos:
    """A model that can only say eos: one output, [eos], of probability 1."""

    def __init__(self) -> None:
        self.calls = 0

    def step(self, tokens: torch.Tensor, state: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        self.calls += 1
        log_probs = torch.full((tokens.shape[0], 3), -math.inf, dtype=torch.float64)
        log_probs[:, 1] = 0.0
        return log_probs, state


def test_an_input_with_fewer_reachable_outputs_than_n_best_gets_only_those() -> None:
    model = OnlyEos()
    (found,) = beam_search(model.step, torch.zeros(1, 1), torch.tensor([0]), 1, 3, 5, n_best=3)
    assert found == [Hypothesis([1], 0.0)]
    assert model.calls == 1  # every beam finished after the first step: the search stops


def test_greedy_decoding_is_batched_and_equals_one_input_at_a_time() -> None:
    model = RandomRecurrentModel(5, 4, seed=3, lstm=True)
    state = model.initial_state(6)
    bos = torch.full((6,), BOS)
    together = greedy_decode(model.step, state, bos, EOS, max_len=8)
    for row in range(6):
        (alone,) = greedy_decode(model.step, select_row(state, row), bos[:1], EOS, max_len=8)
        assert together[row].tokens == alone.tokens
        assert together[row].score == pytest.approx(alone.score)
        expected = sequence_log_prob(model, select_row(state, row), BOS, alone.tokens)
        assert alone.score == pytest.approx(expected)


def test_greedy_stops_each_row_at_eos() -> None:
    chain = MarkovChain()
    chain.table = torch.tensor([[-5.0, -9.0, -0.1], [0.0, 0.0, 0.0], [-9.0, -0.1, -5.0]])
    (output,) = greedy_decode(chain.step, torch.zeros(1, 1), torch.tensor([0]), 1, max_len=6)
    assert output.tokens == [2, 1]
    assert output.score == pytest.approx(-0.2)
    assert len(chain.calls) == 2


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"bos": torch.zeros(2, 1, dtype=torch.long)}, r"bos must be a \[B\] tensor of integer"),
        ({"bos": [0, 0]}, r"bos must be a \[B\] tensor"),
        ({"state": torch.zeros(3, 1)}, "first dimension, got a tensor of shape"),
        ({"state": (torch.zeros(2, 1), "memory")}, "must be a tensor, None or a"),
        ({"eos": -1}, "eos must be a non-negative integer"),
        ({"max_len": 0}, "max_len must be a positive integer"),
        ({"beam_size": 0}, "beam_size must be a positive integer"),
        ({"n_best": 4}, "n_best must be at most 3"),
        ({"length_penalty": -0.5}, "length_penalty must be a finite number >= 0"),
    ],
)
def test_search_arguments_are_checked(arguments: dict[str, object], message: str) -> None:
    chain = MarkovChain()
    given = {
        "state": torch.zeros(2, 1), "bos": torch.tensor([0, 0]), "eos": 1, "beam_size": 3,
        "max_len": 4, **arguments,
    }  # fmt: skip
    with pytest.raises((ValueError, TypeError), match=message):
        beam_search(chain.step, **given)


def test_a_step_returning_the_wrong_shape_is_reported() -> None:
    def wrong(tokens: torch.Tensor, state: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.zeros(tokens.shape[0] + 1, 3), state

    with pytest.raises(
        ValueError, match=r"step must return log-probabilities of shape \[N, V\] = \[6, V\]"
    ):
        beam_search(wrong, torch.zeros(2, 1), torch.tensor([0, 0]), 1, 3, 4)
    with pytest.raises(ValueError, match=r"= \[2, V\]"):
        greedy_decode(wrong, torch.zeros(2, 1), torch.tensor([0, 0]), 1, 4)


def test_reorder_and_repeat_follow_every_tensor_of_a_nested_state() -> None:
    hidden = torch.arange(6.0).view(3, 2)
    state = RecurrentPair((hidden, hidden + 10), [hidden[:, 0], None])
    reordered = reorder_state(state, torch.tensor([2, 0, 0]))
    assert isinstance(reordered, RecurrentPair) and isinstance(reordered.extra, list)
    assert torch.equal(reordered.layers[0], hidden[[2, 0, 0]])
    assert torch.equal(reordered.layers[1], hidden[[2, 0, 0]] + 10)
    assert torch.equal(reordered.extra[0], hidden[[2, 0, 0], 0]) and reordered.extra[1] is None
    repeated = repeat_state(state, 2)
    assert torch.equal(repeated.layers[0], hidden[[0, 0, 1, 1, 2, 2]])
    with pytest.raises(TypeError, match="must be a tensor, None or a"):
        reorder_state({"h": hidden}, torch.tensor([0]))
