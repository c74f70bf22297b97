"""The generation loop of Chapter 2: prompt read once, state carried, stop token, mixture."""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

import coursekit
from coursekit.generate import generate
from coursekit.models.recurrent.language_model import RecurrentLanguageModel

VOCAB = 7


class CountingModel(nn.Module):
    """A language model with certainties: after n tokens it predicts token n mod V.

    Its state is the number of tokens read, so it predicts correctly only when the state is
    carried from call to call; every call's input is recorded.
    """

    def __init__(self) -> None:
        super().__init__()
        self.anchor = nn.Parameter(torch.zeros(()))  # gives the model a device
        self.inputs: list[list[list[int]]] = []

    def forward(self, tokens: torch.Tensor, state: torch.Tensor | None = None):
        self.inputs.append(tokens.tolist())
        already_read = 0 if state is None else int(state)
        counts = already_read + torch.arange(1, tokens.shape[1] + 1)
        logits = 20.0 * nn.functional.one_hot(counts % VOCAB, VOCAB).float().unsqueeze(0)
        return logits + self.anchor, torch.tensor(already_read + tokens.shape[1])


class FixedDistributionModel(nn.Module):
    """Whatever it reads, the next token is 1 with probability 0.8 and 0 with probability 0.2."""

    def __init__(self) -> None:
        super().__init__()
        self.logits = nn.Parameter(torch.tensor([0.2, 0.8]).log())

    def forward(self, tokens: torch.Tensor, state: None = None):
        return self.logits.expand(*tokens.shape, 2), None


def small_language_model(cell: str = "gru", dropout: float = 0.0) -> RecurrentLanguageModel:
    torch.manual_seed(0)
    return RecurrentLanguageModel(12, 6, 8, num_layers=2, cell=cell, dropout=dropout)


def seeded(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def test_reads_the_prompt_once_then_feeds_back_one_token_per_step() -> None:
    model = CountingModel()
    new_tokens = generate(model, [5, 5, 5], 6, temperature=0)
    assert new_tokens == [3, 4, 5, 6, 0, 1]  # the state counts the tokens: 3, 4, 5, ...
    assert model.inputs[0] == [[5, 5, 5]]
    assert model.inputs[1:] == [[[token]] for token in new_tokens[:-1]]


def test_stops_after_the_stop_token_and_keeps_it() -> None:
    model = CountingModel()
    assert generate(model, [0], 20, temperature=0, stop_id=4) == [1, 2, 3, 4]
    assert len(model.inputs) == 4


def test_zero_new_tokens_gives_an_empty_list() -> None:
    assert generate(CountingModel(), [0, 1], 0) == []


@pytest.mark.parametrize("cell", ["rnn", "lstm", "gru"])
def test_greedy_probability_one_is_greedy_decoding(cell: str) -> None:
    model = small_language_model(cell)
    greedy = generate(model, [1, 2, 3], 15, temperature=0)
    mixed = generate(model, [1, 2, 3], 15, greedy_probability=1.0, generator=seeded(0))
    assert mixed == greedy


def test_greedy_probability_zero_is_plain_sampling_draw_for_draw() -> None:
    model = small_language_model()
    sampled = generate(model, [1], 25, temperature=2.0, generator=seeded(1))
    mixed = generate(model, [1], 25, temperature=2.0, greedy_probability=0.0, generator=seeded(1))
    assert mixed == sampled


def test_the_mixture_takes_the_argmax_with_probability_p_and_samples_otherwise() -> None:
    # P(token 1) = p * 1 + (1 - p) * 0.8 = 0.9 for p = 0.5
    draws = 3000
    tokens = generate(
        FixedDistributionModel(), [0], draws, greedy_probability=0.5, generator=seeded(2)
    )
    frequency = sum(tokens) / draws
    assert abs(frequency - 0.9) < 4 * math.sqrt(0.9 * 0.1 / draws)


def test_is_reproducible_with_a_seeded_generator() -> None:
    model = small_language_model("lstm")
    options = {"temperature": 1.5, "top_k": 8}
    first = generate(model, [3, 1], 30, generator=seeded(7), **options)
    assert first == generate(model, [3, 1], 30, generator=seeded(7), **options)
    assert first != generate(model, [3, 1], 30, generator=seeded(8), **options)


def test_runs_in_eval_mode_without_gradients_and_restores_the_mode() -> None:
    model = small_language_model(dropout=0.5).train()
    greedy = generate(model, [1, 2], 20, temperature=0)
    assert greedy == generate(model, [1, 2], 20, temperature=0)  # no dropout while generating
    assert model.training and all(module.training for module in model.modules())
    assert all(parameter.grad is None for parameter in model.parameters())


def test_works_with_the_model_on_the_course_device_and_a_cpu_generator() -> None:
    model = small_language_model().to(coursekit.get_device())
    tokens = generate(model, [1, 2], 10, top_p=0.9, generator=seeded(0))
    assert len(tokens) == 10 and all(isinstance(t, int) and 0 <= t < 12 for t in tokens)
    assert tokens == generate(model, [1, 2], 10, top_p=0.9, generator=seeded(0))


@pytest.mark.parametrize(
    ("arguments", "options", "message"),
    [
        (([], 5), {}, "prompt of at least one token"),
        (([1], -1), {}, "max_new_tokens must be a non-negative integer"),
        (([1], 2.0), {}, "max_new_tokens must be a non-negative integer"),
        (
            ([1], 5),
            {"greedy_probability": 1.5},
            "greedy_probability must be a number between 0 and 1",
        ),
        (([1], 5), {"temperature": -1.0}, "temperature must be"),
        (([1], 5), {"top_p": 0.0}, "top_p must be"),
    ],
)
def test_bad_arguments_are_explained_before_the_model_runs(
    arguments: tuple, options: dict, message: str
) -> None:
    model = CountingModel()
    with pytest.raises(ValueError, match=message):
        generate(model, *arguments, **options)
    assert model.inputs == []
