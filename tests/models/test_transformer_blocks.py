"""The building blocks of Chapter 5: LayerNorm equals torch.nn.LayerNorm in float64 (outputs and
the gradients of the input, gamma and beta; any normalized shape, eps, with and without affine
parameters or bias); the position-wise feed-forward network is max(0, x W1 + b1) W2 + b2 (or the
exact GELU) and treats each position alone; token embeddings are scaled by sqrt(d_model).
"""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from recurrent_twins import one_torch_thread  # noqa: F401 (autouse fixture)
from torch import nn
from transformer_twins import check_outputs_and_gradients, torch_twin

from coursekit.models.transformer.embedding import TokenEmbedding, TransformerEmbedding
from coursekit.models.transformer.feed_forward import PositionwiseFeedForward, activation_name
from coursekit.models.transformer.layer_norm import LayerNorm
from coursekit.models.transformer.positional_encoding import sinusoidal_positional_encoding


@settings(max_examples=60, deadline=None)
@given(
    leading=st.lists(st.integers(1, 3), min_size=0, max_size=2),
    normalized=st.lists(st.integers(1, 5), min_size=1, max_size=2),
    eps=st.sampled_from([1e-5, 1e-12, 0.1]),
    affine=st.booleans(),
    bias=st.booleans(),
    seed=st.integers(0, 1000),
)
def test_layer_norm_equals_torch_outputs_and_gradients(
    leading: list[int], normalized: list[int], eps: float, affine: bool, bias: bool, seed: int
) -> None:
    theirs = torch_twin(
        nn.LayerNorm(normalized, eps=eps, elementwise_affine=affine, bias=bias), seed
    )
    ours = LayerNorm.from_torch(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    generator = torch.Generator().manual_seed(seed)
    x = 3 * torch.randn(*leading, *normalized, generator=generator, dtype=torch.float64) + 1
    x.requires_grad_()
    check_outputs_and_gradients(ours, theirs, [ours(x)], [theirs(x)], [x], seed)


def test_layer_norm_normalises_each_position_to_mean_zero_and_variance_one() -> None:
    x = torch.randn(4, 6, 32, dtype=torch.float64) * 5 + 2
    y = LayerNorm(32, eps=1e-12).double()(x)
    torch.testing.assert_close(y.mean(dim=-1), torch.zeros(4, 6, dtype=torch.float64))
    torch.testing.assert_close(y.var(dim=-1, correction=0), torch.ones(4, 6, dtype=torch.float64))


def test_layer_norm_from_torch_without_parameters_and_its_errors() -> None:
    ours = LayerNorm.from_torch(nn.LayerNorm(5, elementwise_affine=False))
    assert ours.weight is None and ours.bias is None and not list(ours.parameters())
    with pytest.raises(ValueError, match=r"normalized_shape=\(5,\)"):
        ours(torch.randn(2, 4))
    with pytest.raises(ValueError, match="eps must be > 0"):
        LayerNorm(5, eps=0.0)


@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_feed_forward_is_max_0_x_w1_plus_b1_w2_plus_b2(activation: str) -> None:
    torch.manual_seed(0)
    ffn = PositionwiseFeedForward(6, 24, activation=activation).double()
    x = torch.randn(2, 5, 6, dtype=torch.float64)
    inner = x @ ffn.linear1.weight.T + ffn.linear1.bias
    if activation == "relu":
        inner = torch.clamp(inner, min=0.0)
    else:  # the exact GELU: x * Phi(x), Phi the standard normal CDF
        inner = inner * 0.5 * (1 + torch.erf(inner / math.sqrt(2)))
    torch.testing.assert_close(ffn(x), inner @ ffn.linear2.weight.T + ffn.linear2.bias)


def test_feed_forward_treats_every_position_alone() -> None:
    torch.manual_seed(1)
    ffn = PositionwiseFeedForward(4, 8).double()
    row = torch.randn(4, dtype=torch.float64)
    x = torch.randn(3, 7, 4, dtype=torch.float64)
    x[1, 2] = x[0, 5] = row
    y = ffn(x)
    torch.testing.assert_close(y[1, 2], y[0, 5])
    torch.testing.assert_close(y[1, 2], ffn(row))


def test_feed_forward_rejects_other_activations_and_names_torchs() -> None:
    with pytest.raises(ValueError, match=r"activation must be one of \['gelu', 'relu'\]"):
        PositionwiseFeedForward(4, 8, activation="tanh")
    assert activation_name(nn.functional.relu) == activation_name(nn.ReLU()) == "relu"
    assert activation_name(nn.functional.gelu) == activation_name(nn.GELU()) == "gelu"
    with pytest.raises(ValueError, match="only the activations relu and exact gelu"):
        activation_name(nn.GELU(approximate="tanh"))


def test_token_embedding_is_the_embedding_row_times_sqrt_d_model() -> None:
    torch.manual_seed(2)
    embedding = TokenEmbedding(11, 16, padding_idx=0)
    tokens = torch.tensor([[3, 0, 7]])
    torch.testing.assert_close(embedding(tokens), embedding.weight[tokens] * 4.0)
    assert not embedding.weight[0].any()
    embedding(tokens).sum().backward()
    assert not embedding.weight.grad[0].any() and embedding.weight.grad[3].any()
    with torch.no_grad():
        scaled = TokenEmbedding(5000, 64)(torch.arange(5000))
    assert 0.9 < float(scaled.std()) < 1.1  # unit variance, the scale of the positions


def test_transformer_embedding_adds_positions_after_the_offset() -> None:
    torch.manual_seed(3)
    embedding = TransformerEmbedding(20, 8, max_len=50, dropout=0.5).eval()
    tokens = torch.randint(0, 20, (2, 6))
    expected = embedding.token(tokens) + sinusoidal_positional_encoding(6, 8, offset=4)
    torch.testing.assert_close(embedding(tokens, offset=4), expected)
    embedding.train()
    assert not torch.equal(embedding(tokens, offset=4), expected)
