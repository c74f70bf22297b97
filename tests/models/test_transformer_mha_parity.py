"""coursekit's MultiHeadAttention equals torch.nn.MultiheadAttention in float64: outputs,
head-averaged and per-head weights, and the gradients of the inputs and of every parameter, for
self- and cross-attention, kdim/vdim != embed_dim, with and without biases and add_bias_kv,
boolean and float masks in 2-D and 3-D (per-head) form, key padding, batch_first and unbatched
inputs, on the fused path (need_weights=False) and the explicit one. Torch's boolean masks are
True where attention is NOT allowed.

Random masks always leave each query a key (the behaviour of a query without keys is tested
apart: torch's explicit path gives NaN there). ``is_causal`` is drawn only for self-attention,
with torch's causal mask given too (torch requires it), and not with add_bias_kv, where torch's
own fused path (which then ignores the mask) and explicit path disagree.
"""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from recurrent_twins import one_torch_thread, weighted_sum  # noqa: F401 (autouse fixture)
from torch import Tensor, nn
from torch.torch_version import TorchVersion
from transformer_twins import (  # noqa: F401 (autouse fixture)
    check_outputs_and_gradients,
    quiet_torch_mask_warnings,
    torch_twin,
)

from coursekit.models.transformer.multihead_attention import MultiHeadAttention

EMBED_DIM = 8


def make_twins(seed: int = 0, **config: object) -> tuple[MultiHeadAttention, nn.MultiheadAttention]:
    """``(ours, theirs)``: a float64 torch module with random weights and coursekit's copy."""
    theirs = torch_twin(nn.MultiheadAttention(EMBED_DIM, **config), seed)
    return MultiHeadAttention.from_torch(theirs), theirs


@st.composite
def attention_cases(draw: st.DrawFn) -> dict[str, object]:
    """A module configuration, inputs and forward options (see the module's docstring)."""
    heads = draw(st.sampled_from([1, 2, 4]))
    other_dims = draw(st.booleans())
    config = {
        "num_heads": heads,
        "bias": draw(st.booleans()),
        "add_bias_kv": draw(st.booleans()),
        "batch_first": draw(st.booleans()),
        "kdim": 3 if other_dims else None,
        "vdim": 5 if other_dims else None,
    }
    kind = "distinct" if other_dims else draw(st.sampled_from(["self", "shared_kv", "distinct"]))
    batched = draw(st.booleans())
    batch = draw(st.integers(1, 3)) if batched else 1
    length = draw(st.integers(1, 4))
    key_length = length if kind == "self" else draw(st.integers(1, 5))
    generator = torch.Generator().manual_seed(draw(st.integers(0, 2**16)))

    def sequence(steps: int, features: int) -> Tensor:
        shape = (batch, steps, features) if config["batch_first"] else (steps, batch, features)
        x = torch.randn(shape, generator=generator, dtype=torch.float64)
        return (x if batched else x[0] if config["batch_first"] else x[:, 0]).requires_grad_()

    query = sequence(length, EMBED_DIM)
    if kind == "self":
        key = value = query
    else:
        key = sequence(key_length, config["kdim"] or EMBED_DIM)
        value = key if kind == "shared_kv" else sequence(key_length, config["vdim"] or EMBED_DIM)
    is_causal = kind == "self" and not config["add_bias_kv"] and draw(st.booleans())
    mask_kind = "causal" if is_causal else draw(st.sampled_from(["none", "bool", "float"]))
    attn_mask = None
    per_head = draw(st.booleans())
    mask_shape = (batch * heads, length, key_length) if per_head else (length, key_length)
    if mask_kind == "causal":
        attn_mask = torch.ones(length, length, dtype=torch.bool).triu(1)
        attn_mask = (
            attn_mask
            if draw(st.booleans())
            else nn.Transformer.generate_square_subsequent_mask(length, dtype=torch.float64)
        )
    elif mask_kind == "bool":
        attn_mask = torch.rand(mask_shape, generator=generator) < 0.4
        attn_mask[..., 0] = False
    elif mask_kind == "float":
        attn_mask = torch.randn(mask_shape, generator=generator, dtype=torch.float64)
    padding = draw(st.sampled_from(["none", "bool", "float"]))
    key_padding_mask = None
    if padding != "none":
        lengths = torch.randint(1, key_length + 1, (batch,), generator=generator)
        key_padding_mask = torch.arange(key_length) >= lengths.unsqueeze(1)
        if padding == "float":
            key_padding_mask = torch.zeros(key_padding_mask.shape, dtype=torch.float64).masked_fill(
                key_padding_mask, -1e4
            )
        key_padding_mask = key_padding_mask if batched else key_padding_mask[0]
    options = {
        "key_padding_mask": key_padding_mask,
        "need_weights": draw(st.booleans()),
        "attn_mask": attn_mask,
        "average_attn_weights": draw(st.booleans()),
        "is_causal": is_causal,
    }
    inputs = (
        [query] if kind == "self" else [query, key] if kind == "shared_kv" else [query, key, value]
    )
    return {
        "config": config,
        "query": query,
        "key": key,
        "value": value,
        "options": options,
        "inputs": inputs,
    }


@settings(max_examples=250, deadline=None)
@given(attention_cases(), st.integers(0, 100))
def test_outputs_weights_and_gradients_equal_torch(case: dict[str, object], seed: int) -> None:
    ours, theirs = make_twins(seed, **case["config"])
    arguments = (case["query"], case["key"], case["value"])
    our_output, our_weights = ours(*arguments, **case["options"])
    their_output, their_weights = theirs(*arguments, **case["options"])
    check_outputs_and_gradients(
        ours, theirs, [our_output, our_weights], [their_output, their_weights], case["inputs"], seed
    )


@settings(max_examples=80, deadline=None)
@given(attention_cases())
def test_fused_and_explicit_paths_agree_outputs_and_gradients(case: dict[str, object]) -> None:
    ours, _ = make_twins(**case["config"])
    arguments = (case["query"], case["key"], case["value"])
    options = {**case["options"], "need_weights": False}
    fused, no_weights = ours(*arguments, **options)
    explicit, weights = ours(*arguments, **{**options, "need_weights": True})
    assert no_weights is None and weights is not None
    torch.testing.assert_close(fused, explicit)
    tensors = [*case["inputs"], *ours.parameters()]
    fused_gradients = torch.autograd.grad(weighted_sum([fused], 2), tensors)
    explicit_gradients = torch.autograd.grad(weighted_sum([explicit], 2), tensors)
    torch.testing.assert_close(fused_gradients, explicit_gradients)


@pytest.mark.parametrize("batch_first", [False, True])
def test_weights_have_torchs_shapes(batch_first: bool) -> None:
    ours, _ = make_twins(num_heads=2, batch_first=batch_first)
    x = torch.randn((3, 4, EMBED_DIM) if batch_first else (4, 3, EMBED_DIM), dtype=torch.float64)
    output, averaged = ours(x, x, x)
    assert output.shape == x.shape and averaged.shape == (3, 4, 4)
    _, per_head = ours(x, x, x, average_attn_weights=False)
    assert per_head.shape == (3, 2, 4, 4)
    torch.testing.assert_close(per_head.mean(dim=1), averaged)
    torch.testing.assert_close(averaged.sum(dim=-1), torch.ones(3, 4, dtype=torch.float64))
    single = x[0] if batch_first else x[:, 0]  # one sequence [L, E]
    single_output, single_weights = ours(single, single, single, average_attn_weights=False)
    assert single_output.shape == (4, EMBED_DIM) and single_weights.shape == (2, 4, 4)


@pytest.mark.parametrize("need_weights", [False, True])
def test_is_causal_without_a_mask_builds_the_causal_mask_where_torch_requires_it(
    need_weights: bool,
) -> None:
    ours, theirs = make_twins(num_heads=2)
    x = torch.randn(5, 2, EMBED_DIM, dtype=torch.float64)
    causal = torch.ones(5, 5, dtype=torch.bool).triu(1)
    expected = theirs(x, x, x, attn_mask=causal, need_weights=need_weights)
    actual = ours(x, x, x, is_causal=True, need_weights=need_weights)
    torch.testing.assert_close(actual, expected)
    with pytest.raises(RuntimeError, match="Need attn_mask"):
        theirs(x, x, x, is_causal=True, need_weights=need_weights)


@pytest.mark.parametrize("mask_kind", ["attn_mask", "key_padding_mask"])
def test_a_query_without_any_key_gets_a_zero_head_on_both_paths(mask_kind: str) -> None:
    ours, theirs = make_twins(num_heads=2, batch_first=True)
    x = torch.randn(2, 3, EMBED_DIM, dtype=torch.float64, requires_grad=True)
    if mask_kind == "attn_mask":
        masks = {"attn_mask": torch.tensor([[False] * 3, [True] * 3, [False] * 3])}
        empty = (slice(None), 1)  # query 1 of both sequences
    else:
        masks = {"key_padding_mask": torch.tensor([[False] * 3, [True] * 3])}
        empty = (1, slice(None))  # every query of sequence 1
    fused, _ = ours(x, x, x, need_weights=False, **masks)
    explicit, weights = ours(x, x, x, need_weights=True, **masks)
    head_output_is_bias = ours.out_proj.bias.expand_as(fused)
    torch.testing.assert_close(fused[empty], head_output_is_bias[empty])
    torch.testing.assert_close(explicit, fused)
    assert not weights[empty].any()
    gradient = torch.autograd.grad(weighted_sum([explicit], 0), x)[0]
    assert torch.isfinite(gradient).all()
    their_fused, _ = theirs(x, x, x, need_weights=False, **masks)
    if TorchVersion(torch.__version__) >= "2.5":  # SDPA's zeros for empty rows
        torch.testing.assert_close(fused, their_fused)
    their_explicit, _ = theirs(x, x, x, need_weights=True, **masks)
    assert torch.isnan(their_explicit[empty]).all()  # torch's explicit path: NaN


def test_training_mode_dropout_zeroes_weights_and_rescales_the_rest() -> None:
    ours, _ = make_twins(num_heads=2, dropout=0.5, batch_first=True)
    x = torch.randn(3, 6, EMBED_DIM, dtype=torch.float64)
    _, weights = ours.eval()(x, x, x, average_attn_weights=False)
    torch.manual_seed(0)
    _, dropped = ours.train()(x, x, x, average_attn_weights=False)
    kept = dropped != 0
    assert 0.3 < kept.double().mean() < 0.7
    torch.testing.assert_close(dropped[kept], 2 * weights[kept])


@pytest.mark.parametrize(
    "config",
    [{}, {"bias": False}, {"add_bias_kv": True}, {"kdim": 3, "vdim": 5}, {"batch_first": True}],
    ids=["default", "no_bias", "bias_kv", "kdim_vdim", "batch_first"],
)
def test_parameter_names_are_torchs_and_a_torch_state_dict_loads_one_to_one(
    config: dict[str, object],
) -> None:
    theirs = torch_twin(nn.MultiheadAttention(EMBED_DIM, 2, **config))
    ours = MultiHeadAttention(EMBED_DIM, 2, **config).double()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict(theirs.state_dict())
    query = torch.randn(4, 2, EMBED_DIM, dtype=torch.float64)
    key = torch.randn(5, 2, config.get("kdim", EMBED_DIM), dtype=torch.float64)
    value = torch.randn(5, 2, config.get("vdim", EMBED_DIM), dtype=torch.float64)
    if config.get("batch_first"):
        query, key, value = (tensor.transpose(0, 1) for tensor in (query, key, value))
    torch.testing.assert_close(ours(query, key, value), theirs(query, key, value))


def test_initialisation_follows_torch() -> None:
    module = MultiHeadAttention(64, 4, add_bias_kv=True)
    assert not module.in_proj_bias.any() and not module.out_proj.bias.any()
    bound = math.sqrt(6 / (64 + 3 * 64))  # Xavier-uniform of the [3E, E] in_proj_weight
    assert module.in_proj_weight.abs().max() <= bound
    assert module.in_proj_weight.abs().max() > 0.9 * bound


def test_from_torch_keeps_dtype_and_rejects_add_zero_attn() -> None:
    theirs = nn.MultiheadAttention(EMBED_DIM, 2, dropout=0.25).double()
    ours = MultiHeadAttention.from_torch(theirs)
    assert ours.in_proj_weight.dtype == torch.float64 and ours.dropout == 0.25
    with pytest.raises(ValueError, match="add_zero_attn=True is not supported"):
        MultiHeadAttention.from_torch(nn.MultiheadAttention(EMBED_DIM, 2, add_zero_attn=True))
    with pytest.raises(TypeError, match="expects a torch.nn.MultiheadAttention"):
        MultiHeadAttention.from_torch(nn.Linear(2, 2))


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"embed_dim": 8, "num_heads": 3}, r"divisible by num_heads=3"),
        ({"embed_dim": 0, "num_heads": 1}, r"embed_dim must be a positive integer"),
        ({"embed_dim": 8, "num_heads": 2, "dropout": 1.0}, r"dropout is a dropout probability"),
    ],
)
def test_wrong_constructor_arguments_are_rejected(
    arguments: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        MultiHeadAttention(**arguments)


@pytest.mark.parametrize(
    "change, error, message",
    [
        ({"query": torch.randn(4, 2, 6)}, ValueError, r"query must have embed_dim=8 features"),
        ({"key": torch.randn(5, 3, 8)}, ValueError, r"same batch size in dimension 1"),
        ({"value": torch.randn(6, 2, 8)}, ValueError, r"same length S"),
        ({"query": torch.randn(2, 4, 2, 8)}, ValueError, r"query must be \[L, B, E\]"),
        ({"key": torch.randn(5, 8)}, ValueError, r"as many dimensions as query"),
        (
            {"key_padding_mask": torch.zeros(2, 4, dtype=torch.bool)},
            ValueError,
            r"key_padding_mask must have shape \(2, 5\)",
        ),
        (
            {"attn_mask": torch.zeros(5, 4, dtype=torch.bool)},
            ValueError,
            r"attn_mask must have shape \[L, S\] = \(4, 5\)",
        ),
        (
            {"attn_mask": torch.zeros(4, 5, dtype=torch.long)},
            TypeError,
            r"attn_mask must be boolean",
        ),
        ({"value": torch.randn(5, 2, 8, dtype=torch.float64)}, TypeError, r"value has dtype"),
    ],
)
def test_wrong_inputs_are_rejected_with_a_message(
    change: dict[str, object], error: type[Exception], message: str
) -> None:
    module = MultiHeadAttention(EMBED_DIM, 2)
    arguments = {
        "query": torch.randn(4, 2, 8),
        "key": torch.randn(5, 2, 8),
        "value": torch.randn(5, 2, 8),
    }
    with pytest.raises(error, match=message):
        module(**{**arguments, **change})
