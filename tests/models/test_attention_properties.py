"""Properties every attention module of Chapter 4 must have: weights sum to 1 over the unmasked
keys and are exactly 0 on the masked ones; padding a batch does not change the real rows; a
one-step query equals the T = 1 slice of the all-steps form. Then what local and hard attention
add: the window, the Gaussian, the one-hot choice.
"""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import Tensor

import coursekit.models.seq2seq.attention as attention_modules
from coursekit.models.seq2seq.local_attention import LocalAttention, hard_attention
from coursekit.text.masks import padding_mask

SIZE = 4  # query and key size: every module accepts it
MODULES = {
    "dot": lambda: attention_modules.DotAttention(),
    "scaled_dot": lambda: attention_modules.ScaledDotAttention(),
    "general": lambda: attention_modules.GeneralAttention(SIZE, SIZE),
    "additive": lambda: attention_modules.AdditiveAttention(SIZE, SIZE, 5),
    "concat": lambda: attention_modules.ConcatAttention(SIZE, SIZE, 5),
    "cosine": lambda: attention_modules.CosineAttention(strength=3.0),
    "location": lambda: attention_modules.LocationAttention(SIZE, max_source_length=9),
    "local_monotonic": lambda: LocalAttention(
        attention_modules.GeneralAttention(SIZE, SIZE), half_width=1
    ),
}


def build(name: str) -> torch.nn.Module:
    torch.manual_seed(0)
    return MODULES[name]().double()


def random_batch(
    seed: int, batch: int, steps: int, positions: int
) -> tuple[Tensor, Tensor, Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return tuple(
        torch.randn(batch, length, SIZE, generator=generator, dtype=torch.float64)
        for length in (steps, positions, positions)
    )


@pytest.mark.parametrize("name", list(MODULES))
@settings(max_examples=15, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 7), min_size=1, max_size=4),
    steps=st.integers(1, 4),
    seed=st.integers(0, 1000),
)
def test_weights_sum_to_one_over_real_keys_and_are_exactly_zero_on_padding(
    name: str, lengths: list[int], steps: int, seed: int
) -> None:
    module = build(name)
    query, keys, values = random_batch(seed, len(lengths), steps, max(lengths))
    mask = padding_mask(lengths)
    context, weights = module(query, keys, values, mask)
    assert weights.shape == (len(lengths), steps, max(lengths))
    assert context.shape == (len(lengths), steps, SIZE)
    assert torch.all(weights.masked_select(mask.unsqueeze(1).expand_as(weights)) == 0)
    torch.testing.assert_close(weights.sum(-1), torch.ones_like(weights[..., 0]))
    assert torch.all(weights >= 0)


@pytest.mark.parametrize("name", list(MODULES))
@settings(max_examples=10, deadline=None)
@given(lengths=st.lists(st.integers(1, 7), min_size=2, max_size=4), seed=st.integers(0, 1000))
def test_padding_a_batch_does_not_change_the_real_rows(
    name: str, lengths: list[int], seed: int
) -> None:
    module = build(name)
    longest = max(lengths) + 2  # even the longest row is padded
    query, keys, values = random_batch(seed, len(lengths), 3, longest)
    context, weights = module(query, keys, values, padding_mask(lengths, max_len=longest))
    for row, length in enumerate(lengths):
        alone_context, alone_weights = module(
            query[row : row + 1], keys[row : row + 1, :length], values[row : row + 1, :length]
        )
        torch.testing.assert_close(context[row], alone_context[0])
        torch.testing.assert_close(weights[row, :, :length], alone_weights[0])


@pytest.mark.parametrize("name", list(MODULES))
@settings(max_examples=10, deadline=None)
@given(lengths=st.lists(st.integers(1, 7), min_size=1, max_size=3), seed=st.integers(0, 1000))
def test_one_step_query_equals_the_first_step_of_all_steps(
    name: str, lengths: list[int], seed: int
) -> None:
    module = build(name)
    query, keys, values = random_batch(seed, len(lengths), 1, max(lengths))
    mask = padding_mask(lengths)
    extra = {"step": 0} if name == "local_monotonic" else {}
    step_context, step_weights = module(query[:, 0], keys, values, mask, **extra)
    all_context, all_weights = module(query, keys, values, mask)
    assert step_context.shape == (len(lengths), SIZE) and step_weights.dim() == 2
    torch.testing.assert_close(step_context, all_context[:, 0])
    torch.testing.assert_close(step_weights, all_weights[:, 0])


def test_monotonic_window_is_centred_on_t_and_stays_on_the_source() -> None:
    module = LocalAttention(attention_modules.DotAttention(), half_width=1)
    query, keys, values = random_batch(0, 2, 6, 5)
    lengths = [5, 3]
    _, weights = module(query, keys, values, padding_mask(lengths))
    positions = torch.arange(5)
    for row, length in enumerate(lengths):
        for t in range(6):
            centre = min(t, length - 1)
            outside = ((positions - centre).abs() > 1) | (positions >= length)
            assert torch.all(weights[row, t][outside] == 0)
            assert torch.all(weights[row, t][~outside] > 0)
    # a one-step query at step t is row t of the all-steps form, with t per row or shared
    step_context, step_weights = module(query[:, 3], keys, values, padding_mask(lengths), step=3)
    torch.testing.assert_close(step_weights, weights[:, 3])
    mixed_query = torch.stack([query[0, 2], query[1, 4]])
    per_row = module(mixed_query, keys, values, padding_mask(lengths), step=torch.tensor([2, 4]))
    torch.testing.assert_close(per_row[1], torch.stack([weights[0, 2], weights[1, 4]]))


def test_predictive_weights_are_the_window_softmax_times_the_gaussian() -> None:
    torch.manual_seed(3)
    half_width = 2
    module = LocalAttention(
        attention_modules.GeneralAttention(SIZE, SIZE),
        half_width,
        mode="predictive",
        query_size=SIZE,
        hidden_size=6,
    ).double()
    query, keys, values = random_batch(1, 2, 3, 7)
    lengths = torch.tensor([7, 4])
    context, weights = module(query, keys, values, padding_mask(lengths))
    energy = (
        torch.tanh(query @ module.position_projection.weight.T) @ module.position_energy.weight.T
    )
    centres = lengths[:, None] * torch.sigmoid(
        energy[..., 0]
    )  # p_t = S sigmoid(v_p^T tanh(W_p s_t))
    distance = torch.arange(7, dtype=torch.float64) - centres[..., None]
    scores = query @ module.content.key_projection(keys).transpose(1, 2)
    outside = (distance.abs() > half_width) | padding_mask(lengths)[:, None, :]
    aligned = torch.softmax(scores.masked_fill(outside, -math.inf), dim=-1)
    expected = aligned * torch.exp(-(distance**2) / (2 * (half_width / 2) ** 2))
    torch.testing.assert_close(weights, expected)
    torch.testing.assert_close(context, expected @ values)
    assert torch.all(weights.sum(-1) <= 1 + 1e-12)  # Luong's local-p weights need not sum to 1


def test_hard_attention_returns_the_value_of_the_most_attended_key() -> None:
    query, keys, values = random_batch(5, 3, 4, 6)
    mask = padding_mask([6, 2, 4])
    soft_context, soft_weights = attention_modules.DotAttention()(query, keys, values, mask)
    context, weights = hard_attention(attention_modules.DotAttention(), query, keys, values, mask)
    choice = soft_weights.argmax(-1)
    torch.testing.assert_close(weights, torch.nn.functional.one_hot(choice, 6).double())
    expected = torch.stack([values[b, choice[b]] for b in range(3)])
    torch.testing.assert_close(context, expected)
    one_step, one_step_weights = hard_attention(
        attention_modules.DotAttention(), query[:, 1], keys, values, mask
    )
    torch.testing.assert_close(one_step, context[:, 1])
    torch.testing.assert_close(one_step_weights, weights[:, 1])


def test_sampled_hard_attention_follows_the_soft_weights_and_never_picks_padding() -> None:
    query, keys, values = random_batch(7, 1, 1, 4)
    query = query.expand(4000, -1, -1) / 3  # a flatter distribution: every real key is drawn
    keys, values = keys.expand(4000, -1, -1), values.expand(4000, -1, -1)
    mask = padding_mask([3] * 4000, max_len=4)
    _, soft = attention_modules.DotAttention()(query, keys, values, mask)
    generator = torch.Generator().manual_seed(0)
    _, weights = hard_attention(
        attention_modules.DotAttention(),
        query,
        keys,
        values,
        mask,
        sample=True,
        generator=generator,
    )
    frequencies = weights[:, 0].mean(0)
    probabilities = soft[0, 0]
    spread = (probabilities * (1 - probabilities) / 4000).sqrt()
    assert torch.all((frequencies - probabilities).abs() <= 4 * spread + 1e-12)
    assert frequencies[3] == 0


def test_hard_attention_passes_no_gradient_to_the_scores() -> None:
    query, keys, values = (tensor.requires_grad_() for tensor in random_batch(2, 2, 3, 5))
    context, _ = hard_attention(
        attention_modules.GeneralAttention(SIZE, SIZE).double(), query, keys, values
    )
    context.sum().backward()
    assert query.grad is None or torch.all(query.grad == 0)
    assert values.grad is not None and values.grad.abs().sum() > 0
