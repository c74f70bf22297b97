"""coursekit's scaled_dot_product_attention equals torch.nn.functional.scaled_dot_product_attention
in float64, outputs and gradients of query, key and value: boolean masks (True = attend) and
float masks of every broadcastable shape, broadcast batch and head dimensions, is_causal (also
with L != S), a custom scale; the weights it returns equal torch's output for V = identity; rows
whose every key is masked give zeros, as torch does since 2.5.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from recurrent_twins import one_torch_thread, weighted_sum  # noqa: F401 (autouse fixture)
from torch import Tensor
from torch.torch_version import TorchVersion

from coursekit.models.transformer.scaled_dot_product import (
    causal_allowed,
    scaled_dot_product_attention,
)

TORCH_ZEROES_EMPTY_ROWS = TorchVersion(torch.__version__) >= "2.5"


@st.composite
def attention_inputs(draw: st.DrawFn) -> dict[str, object]:
    """Query ``[*batch_q, L, E]``, key ``[*batch_k, S, E]``, value ``[*batch_k, S, E_v]`` whose
    batch shapes broadcast (some sizes 1), a mask of none / bool / float kind in a shape that
    broadcasts to the scores, or is_causal, and a scale.
    """
    batch = draw(st.lists(st.integers(1, 3), min_size=0, max_size=2))
    query_batch = [draw(st.sampled_from([size, 1])) for size in batch]
    key_batch = [draw(st.sampled_from([size, 1])) for size in batch]
    length, key_length = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    features, value_features = draw(st.integers(1, 6)), draw(st.integers(1, 4))
    generator = torch.Generator().manual_seed(draw(st.integers(0, 2**16)))

    def tensor(*shape: int) -> Tensor:
        return torch.randn(*shape, generator=generator, dtype=torch.float64, requires_grad=True)

    scores_batch = [max(q, k) for q, k in zip(query_batch, key_batch, strict=True)]
    mask_kind = draw(st.sampled_from(["none", "bool", "float", "causal"]))
    mask_batch = [draw(st.sampled_from([size, 1])) for size in scores_batch]
    mask_batch = mask_batch[draw(st.integers(0, len(mask_batch))) :]  # fewer leading dims
    mask_shape = (*mask_batch, draw(st.sampled_from([length, 1])), key_length)
    attn_mask = None
    if mask_kind == "bool":
        attn_mask = torch.rand(mask_shape, generator=generator) < 0.7
        attn_mask[..., 0] = True  # every query keeps a key (empty rows are tested apart)
    elif mask_kind == "float":
        attn_mask = torch.randn(mask_shape, generator=generator, dtype=torch.float64)
    return {
        "query": tensor(*query_batch, length, features),
        "key": tensor(*key_batch, key_length, features),
        "value": tensor(*key_batch, key_length, value_features),
        "attn_mask": attn_mask,
        "is_causal": mask_kind == "causal",
        "scale": draw(st.sampled_from([None, 0.3, 2.0])),
    }


@settings(max_examples=150, deadline=None)
@given(attention_inputs())
def test_output_and_gradients_equal_torch_sdpa(inputs: dict[str, object]) -> None:
    tensors = [inputs["query"], inputs["key"], inputs["value"]]
    ours = scaled_dot_product_attention(**inputs)
    theirs = F.scaled_dot_product_attention(**inputs)
    torch.testing.assert_close(ours, theirs)
    our_gradients = torch.autograd.grad(weighted_sum([ours], 1), tensors)
    their_gradients = torch.autograd.grad(weighted_sum([theirs], 1), tensors)
    torch.testing.assert_close(our_gradients, their_gradients)


@settings(max_examples=60, deadline=None)
@given(attention_inputs())
def test_returned_weights_equal_torch_output_for_identity_values(inputs: dict[str, object]) -> None:
    query, key = inputs["query"], inputs["key"]
    output, weights = scaled_dot_product_attention(**inputs, need_weights=True)
    key_length = key.shape[-2]
    identity = torch.eye(key_length, dtype=torch.float64).expand(*key.shape[:-2], -1, -1)
    options = {name: inputs[name] for name in ("attn_mask", "is_causal", "scale")}
    torch.testing.assert_close(
        weights, F.scaled_dot_product_attention(query, key, identity, **options)
    )
    torch.testing.assert_close(output, weights @ inputs["value"])
    torch.testing.assert_close(output, scaled_dot_product_attention(**inputs))


def test_scaling_by_one_over_square_root_of_d_k_is_the_default() -> None:
    generator = torch.Generator().manual_seed(0)
    query, key, value = (torch.randn(2, 3, 16, generator=generator) for _ in range(3))
    default = scaled_dot_product_attention(query, key, value)
    torch.testing.assert_close(default, scaled_dot_product_attention(query, key, value, scale=0.25))
    assert not torch.allclose(default, scaled_dot_product_attention(query, key, value, scale=1.0))


@pytest.mark.parametrize("query_length, key_length", [(3, 3), (2, 5), (5, 2)])
def test_is_causal_is_the_top_left_lower_triangle_as_in_torch(
    query_length: int, key_length: int
) -> None:
    generator = torch.Generator().manual_seed(1)
    query = torch.randn(2, query_length, 4, generator=generator, dtype=torch.float64)
    key, value = (
        torch.randn(2, key_length, 4, generator=generator, dtype=torch.float64) for _ in range(2)
    )
    allowed = causal_allowed(query_length, key_length)
    assert allowed.tolist() == [[j <= i for j in range(key_length)] for i in range(query_length)]
    ours = scaled_dot_product_attention(query, key, value, is_causal=True)
    torch.testing.assert_close(
        ours, F.scaled_dot_product_attention(query, key, value, is_causal=True)
    )
    torch.testing.assert_close(
        ours, F.scaled_dot_product_attention(query, key, value, attn_mask=allowed)
    )


@pytest.mark.parametrize("mask_kind", ["bool", "float"])
def test_a_query_whose_every_key_is_masked_gets_zeros_and_zero_gradients(mask_kind: str) -> None:
    generator = torch.Generator().manual_seed(2)
    query, key, value = (
        torch.randn(2, 4, 3, generator=generator, dtype=torch.float64, requires_grad=True)
        for _ in range(3)
    )
    allowed = torch.ones(4, 4, dtype=torch.bool)
    allowed[1] = False  # query 1 may attend no key
    mask = (
        allowed
        if mask_kind == "bool"
        else torch.zeros(4, 4, dtype=torch.float64).masked_fill(~allowed, float("-inf"))
    )
    output, weights = scaled_dot_product_attention(query, key, value, mask, need_weights=True)
    assert not output[:, 1].any() and not weights[:, 1].any()
    assert torch.isfinite(output).all()
    gradients = torch.autograd.grad(weighted_sum([output], 3), [query, key, value])
    assert not gradients[0][:, 1].any()
    assert all(torch.isfinite(gradient).all() for gradient in gradients)
    theirs = F.scaled_dot_product_attention(query, key, value, mask)
    if TORCH_ZEROES_EMPTY_ROWS:  # torch < 2.5 returned NaN in such rows
        torch.testing.assert_close(output, theirs)
        their_gradients = torch.autograd.grad(weighted_sum([theirs], 3), [query, key, value])
        torch.testing.assert_close(gradients, their_gradients)
    torch.testing.assert_close(output[:, [0, 2, 3]], theirs[:, [0, 2, 3]])


def test_dropout_zeroes_weights_and_rescales_the_others_by_one_over_one_minus_p() -> None:
    generator = torch.Generator().manual_seed(4)
    query, key, value = (
        torch.randn(3, 5, 4, generator=generator, dtype=torch.float64) for _ in range(3)
    )
    _, weights = scaled_dot_product_attention(query, key, value, need_weights=True)
    torch.manual_seed(0)
    output, dropped = scaled_dot_product_attention(
        query, key, value, dropout_p=0.4, need_weights=True
    )
    kept = dropped != 0
    assert 0 < kept.float().mean() < 1
    torch.testing.assert_close(dropped[kept], weights[kept] / 0.6)
    torch.testing.assert_close(output, dropped @ value)


def test_float_masks_of_another_float_dtype_are_cast_to_the_query_dtype() -> None:
    generator = torch.Generator().manual_seed(5)
    query, key, value = (
        torch.randn(2, 3, 4, generator=generator, dtype=torch.float64) for _ in range(3)
    )
    mask = torch.randn(3, 3, generator=generator)
    ours = scaled_dot_product_attention(query, key, value, mask)
    assert ours.dtype == torch.float64
    torch.testing.assert_close(
        ours, F.scaled_dot_product_attention(query, key, value, mask.double())
    )


@pytest.mark.parametrize(
    "change, error, message",
    [
        ({"key": torch.randn(2, 5, 3)}, ValueError, r"same number of features d_k"),
        ({"value": torch.randn(2, 4, 3)}, ValueError, r"same length S"),
        ({"key": torch.randn(2, 5, 4, dtype=torch.float64)}, TypeError, r"share a dtype"),
        ({"query": torch.randn(3, 3, 4)}, ValueError, r"batch dimensions .* do not broadcast"),
        ({"query": torch.randn(4)}, ValueError, r"query must be a floating-point tensor"),
        (
            {"attn_mask": torch.ones(3, 5, dtype=torch.long)},
            TypeError,
            r"boolean \(True = attend\)",
        ),
        ({"attn_mask": torch.ones(4, 5, dtype=torch.bool)}, ValueError, r"broadcast to the scores"),
        (
            {"attn_mask": torch.ones(3, 5, dtype=torch.bool), "is_causal": True},
            ValueError,
            r"not both",
        ),
        ({"dropout_p": 1.0}, ValueError, r"dropout_p is a dropout probability"),
        ({"scale": "1/8"}, TypeError, r"scale must be a number"),
    ],
)
def test_wrong_arguments_are_rejected_with_a_message(
    change: dict[str, object], error: type[Exception], message: str
) -> None:
    arguments = {
        "query": torch.randn(2, 3, 4),
        "key": torch.randn(2, 5, 4),
        "value": torch.randn(2, 5, 2),
    }
    with pytest.raises(error, match=message):
        scaled_dot_product_attention(**{**arguments, **change})
