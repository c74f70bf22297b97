"""The recurrent language model of Chapter 2: shapes, state carried across calls, torch parity."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from coursekit.models.recurrent import network as recurrent
from coursekit.models.recurrent.language_model import RecurrentLanguageModel

CELLS = ["rnn", "lstm", "gru"]
VOCAB, EMBEDDING, HIDDEN = 11, 5, 7
TORCH_LAYERS = {"rnn": nn.RNN, "lstm": nn.LSTM, "gru": nn.GRU}
COURSEKIT_LAYERS = {"rnn": recurrent.RNN, "lstm": recurrent.LSTM, "gru": recurrent.GRU}


def make_model(cell: str, num_layers: int = 2, dropout: float = 0.0) -> RecurrentLanguageModel:
    torch.manual_seed(0)
    model = RecurrentLanguageModel(VOCAB, EMBEDDING, HIDDEN, num_layers, cell, dropout)
    return model.double().eval()


def random_tokens(batch_size: int, length: int, seed: int = 1) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(0, VOCAB, (batch_size, length), generator=generator)


def hidden_of(state: torch.Tensor | tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
    return state[0] if isinstance(state, tuple) else state


@pytest.mark.parametrize("cell", CELLS)
def test_logits_are_batch_first_and_the_state_has_one_row_per_layer(cell: str) -> None:
    logits, state = make_model(cell, num_layers=2)(random_tokens(3, 4))
    assert logits.shape == (3, 4, VOCAB)
    assert hidden_of(state).shape == (2, 3, HIDDEN)
    if cell == "lstm":
        assert isinstance(state, tuple) and state[1].shape == (2, 3, HIDDEN)


@pytest.mark.parametrize("cell", CELLS)
def test_is_built_on_the_course_recurrent_networks_not_torch_nn(cell: str) -> None:
    model = make_model(cell)
    assert isinstance(model.recurrent, COURSEKIT_LAYERS[cell])
    assert not isinstance(model.recurrent, nn.RNNBase)
    assert model.recurrent.batch_first


@pytest.mark.parametrize("cell", CELLS)
def test_reading_in_two_halves_with_the_state_passed_on_equals_one_pass(cell: str) -> None:
    model = make_model(cell)
    tokens = random_tokens(2, 9)
    whole_logits, whole_state = model(tokens)
    first_logits, first_state = model(tokens[:, :4])
    second_logits, second_state = model(tokens[:, 4:], first_state)
    torch.testing.assert_close(torch.cat([first_logits, second_logits], dim=1), whole_logits)
    torch.testing.assert_close(second_state, whole_state)
    _, fresh_state = model(tokens[:, 4:])
    assert not torch.allclose(hidden_of(fresh_state), hidden_of(whole_state))


@pytest.mark.parametrize("cell", CELLS)
def test_equals_the_same_stack_built_from_torch_nn_with_the_same_weights(cell: str) -> None:
    model = make_model(cell)
    reference = TORCH_LAYERS[cell](EMBEDDING, HIDDEN, num_layers=2, batch_first=True).double()
    reference.load_state_dict(model.recurrent.state_dict())
    tokens = random_tokens(3, 6)
    expected_hidden, expected_state = reference(model.embedding(tokens))
    logits, state = model(tokens)
    torch.testing.assert_close(logits, model.output(expected_hidden))
    torch.testing.assert_close(state, expected_state)


def test_dropout_acts_only_in_training_mode() -> None:
    with_dropout = make_model("lstm", dropout=0.5)
    without_dropout = make_model("lstm", dropout=0.0)
    tokens = random_tokens(2, 5)
    torch.testing.assert_close(with_dropout(tokens)[0], without_dropout(tokens)[0])
    with_dropout.train()
    first, second = with_dropout(tokens)[0], with_dropout(tokens)[0]
    assert not torch.allclose(first, second)


@pytest.mark.parametrize("cell", CELLS)
def test_every_parameter_receives_a_gradient(cell: str) -> None:
    model = make_model(cell)
    logits, _ = model(random_tokens(2, 5))
    logits.logsumexp(dim=-1).sum().backward()
    for name, parameter in model.named_parameters():
        assert parameter.grad is not None and parameter.grad.abs().sum() > 0, name


@pytest.mark.parametrize(
    ("tokens", "message"),
    [
        (torch.zeros(2, 3), "integer ids"),
        (torch.zeros(3, dtype=torch.long), r"\[B, T\]"),
        (torch.tensor([[1, VOCAB]]), "must lie in 0 .. 10"),
        (torch.tensor([[-1, 2]]), "must lie in 0 .. 10"),
    ],
)
def test_bad_tokens_are_explained(tokens: torch.Tensor, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_model("rnn")(tokens)


def test_unknown_cell_names_the_choices() -> None:
    with pytest.raises(ValueError, match=r"unknown cell 'transformer'.*'gru', 'lstm', 'rnn'"):
        RecurrentLanguageModel(VOCAB, EMBEDDING, HIDDEN, cell="transformer")
