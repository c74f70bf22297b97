"""The attention modules of Chapter 4 equal their references in float64, outputs and gradients:
dot and scaled dot against ``torch.nn.functional.scaled_dot_product_attention``; additive,
concat, general, cosine and location against the formulas written with einsum; Bahdanau's
additive form against Luong's concatenated one with W = [W_q W_k].
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import Tensor

from coursekit.models.seq2seq.attention import (
    AdditiveAttention,
    Attention,
    ConcatAttention,
    CosineAttention,
    DotAttention,
    GeneralAttention,
    LocationAttention,
    ScaledDotAttention,
)
from coursekit.text.masks import padding_mask

SETTINGS = settings(max_examples=25, deadline=None)


@st.composite
def batches(draw: st.DrawFn, equal_sizes: bool = False) -> dict[str, Tensor]:
    """A float64 batch: query [B, T, Dq], keys [B, S, Dk], values [B, S, Dv] and a padding mask
    (lengths between 1 and S, so some rows are padded and none is empty).
    """
    batch = draw(st.integers(1, 3))
    steps = draw(st.integers(1, 4))
    positions = draw(st.integers(1, 6))
    query_size = draw(st.integers(1, 5))
    key_size = query_size if equal_sizes else draw(st.integers(1, 5))
    value_size = draw(st.integers(1, 4))
    lengths = draw(st.lists(st.integers(1, positions), min_size=batch, max_size=batch))
    generator = torch.Generator().manual_seed(draw(st.integers(0, 2**16)))

    def tensor(*shape: int) -> Tensor:
        return torch.randn(*shape, generator=generator, dtype=torch.float64, requires_grad=True)

    return {
        "query": tensor(batch, steps, query_size),
        "keys": tensor(batch, positions, key_size),
        "values": tensor(batch, positions, value_size),
        "mask": padding_mask(lengths, max_len=positions),
    }


def gradients(output: Tensor, tensors: dict[str, Tensor]) -> dict[str, Tensor]:
    """d(sum of output * a fixed random weighting)/d(tensor) for each named tensor (zeros for a
    tensor the output does not depend on, like the values for the weights).
    """
    generator = torch.Generator().manual_seed(1)
    weighting = torch.randn(output.shape, generator=generator, dtype=output.dtype)
    grads = torch.autograd.grad(
        (output * weighting).sum(), list(tensors.values()), allow_unused=True, retain_graph=True
    )
    return {
        name: torch.zeros_like(tensor) if grad is None else grad
        for (name, tensor), grad in zip(tensors.items(), grads, strict=True)
    }


def assert_same_values_and_gradients(
    ours: Tensor, reference: Tensor, differentiable: dict[str, Tensor]
) -> None:
    """Equal outputs and equal gradients with respect to every named tensor."""
    torch.testing.assert_close(ours, reference)
    our_grads, reference_grads = (
        gradients(ours, differentiable),
        gradients(reference, differentiable),
    )
    for name in differentiable:
        torch.testing.assert_close(our_grads[name], reference_grads[name], msg=name)


def inputs_and_parameters(module: Attention, batch: dict[str, Tensor]) -> dict[str, Tensor]:
    """The query, keys, values and every parameter of ``module``, by name."""
    return {
        "query": batch["query"],
        "keys": batch["keys"],
        "values": batch["values"],
        **dict(module.named_parameters()),
    }


def masked_reference(scores: Tensor, values: Tensor, mask: Tensor) -> tuple[Tensor, Tensor]:
    """softmax(scores) over unmasked keys and the weighted sum of the values, with einsum."""
    weights = torch.softmax(scores.masked_fill(mask.unsqueeze(1), -math.inf), dim=-1)
    return torch.einsum("bts,bsd->btd", weights, values), weights


@pytest.mark.parametrize(
    ("module", "scale"),
    [(DotAttention(), lambda size: 1.0), (ScaledDotAttention(), lambda size: size**-0.5)],
    ids=["dot", "scaled_dot"],
)
@SETTINGS
@given(batch=batches(equal_sizes=True), one_step=st.booleans())
def test_dot_products_equal_torch_scaled_dot_product_attention(
    module: Attention, scale, batch: dict[str, Tensor], one_step: bool
) -> None:
    query = batch["query"][:, 0] if one_step else batch["query"]
    context, weights = module(query, batch["keys"], batch["values"], batch["mask"])
    allowed = ~batch["mask"].unsqueeze(1)  # torch's boolean mask is True where attention is allowed
    reference = F.scaled_dot_product_attention(
        batch["query"], batch["keys"], batch["values"], attn_mask=allowed,
        scale=scale(batch["keys"].shape[-1]),
    )  # fmt: skip
    reference = reference[:, 0] if one_step else reference
    differentiable = {name: batch[name] for name in ("query", "keys", "values")}
    assert_same_values_and_gradients(context, reference, differentiable)
    scores = batch["query"] @ batch["keys"].transpose(1, 2) * scale(batch["keys"].shape[-1])
    _, reference_weights = masked_reference(scores, batch["values"], batch["mask"])
    torch.testing.assert_close(weights, reference_weights[:, 0] if one_step else reference_weights)


def additive_scores(module: AdditiveAttention, query: Tensor, keys: Tensor) -> Tensor:
    """e_{t,s} = v^T tanh(W_q q_t + W_k k_s) with einsum."""
    hidden = torch.tanh(
        torch.einsum("hq,btq->bth", module.query_projection.weight, query).unsqueeze(2)
        + torch.einsum("hk,bsk->bsh", module.key_projection.weight, keys).unsqueeze(1)
    )
    return torch.einsum("h,btsh->bts", module.energy.weight[0], hidden)


def concat_scores(module: ConcatAttention, query: Tensor, keys: Tensor) -> Tensor:
    """e_{t,s} = v^T tanh(W [q_t; k_s]) with einsum, splitting W into its query and key columns."""
    query_part, key_part = module.projection.weight.split([query.shape[-1], keys.shape[-1]], dim=1)
    hidden = torch.tanh(
        torch.einsum("hq,btq->bth", query_part, query).unsqueeze(2)
        + torch.einsum("hk,bsk->bsh", key_part, keys).unsqueeze(1)
    )
    return torch.einsum("h,btsh->bts", module.energy.weight[0], hidden)


def general_scores(module: GeneralAttention, query: Tensor, keys: Tensor) -> Tensor:
    """e_{t,s} = q_t^T W_a k_s with einsum (``key_projection.weight`` is W_a, [Dq, Dk])."""
    return torch.einsum("btq,qk,bsk->bts", query, module.key_projection.weight, keys)


def cosine_scores(module: CosineAttention, query: Tensor, keys: Tensor) -> Tensor:
    """e_{t,s} = beta * cos(q_t, k_s) with torch's own cosine similarity."""
    return module.strength * F.cosine_similarity(query.unsqueeze(2), keys.unsqueeze(1), dim=-1)


def location_scores(module: LocationAttention, query: Tensor, keys: Tensor) -> Tensor:
    """e_{t,s} = (W_a q_t)_s for the first S positions."""
    return torch.einsum("sq,btq->bts", module.position_scores.weight[: keys.shape[1]], query)


PARAMETRIZED = [
    (lambda q, k: AdditiveAttention(q, k, 3), additive_scores, False),
    (lambda q, k: ConcatAttention(q, k, 4), concat_scores, False),
    (lambda q, k: GeneralAttention(q, k), general_scores, False),
    (lambda q, k: CosineAttention(strength=2.5), cosine_scores, True),
    (lambda q, k: LocationAttention(q, max_source_length=7), location_scores, False),
]


@pytest.mark.parametrize(
    ("build", "reference_scores", "equal_sizes"),
    PARAMETRIZED,
    ids=["additive", "concat", "general", "cosine", "location"],
)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_scores_equal_their_formula_outputs_and_gradients(
    build, reference_scores, equal_sizes: bool, data: st.DataObject
) -> None:
    batch = data.draw(batches(equal_sizes=equal_sizes))
    torch.manual_seed(data.draw(st.integers(0, 1000)))
    module = build(batch["query"].shape[-1], batch["keys"].shape[-1]).double()
    context, weights = module(batch["query"], batch["keys"], batch["values"], batch["mask"])
    scores = reference_scores(module, batch["query"], batch["keys"])
    reference_context, reference_weights = masked_reference(scores, batch["values"], batch["mask"])
    differentiable = inputs_and_parameters(module, batch)
    assert_same_values_and_gradients(context, reference_context, differentiable)
    assert_same_values_and_gradients(weights, reference_weights, differentiable)


@settings(max_examples=20, deadline=None)
@given(batch=batches(), hidden=st.integers(1, 6))
def test_additive_form_equals_the_concatenated_form_with_stacked_weights(
    batch: dict[str, Tensor], hidden: int
) -> None:
    query_size, key_size = batch["query"].shape[-1], batch["keys"].shape[-1]
    additive = AdditiveAttention(query_size, key_size, hidden).double()
    concat = ConcatAttention(query_size, key_size, hidden).double()
    with torch.no_grad():  # W = [W_q W_k], same v
        concat.projection.weight.copy_(
            torch.cat([additive.query_projection.weight, additive.key_projection.weight], dim=1)
        )
        concat.energy.weight.copy_(additive.energy.weight)
    arguments = (batch["query"], batch["keys"], batch["values"], batch["mask"])
    (additive_context, additive_weights), (concat_context, concat_weights) = (
        additive(*arguments),
        concat(*arguments),
    )
    torch.testing.assert_close(additive_weights, concat_weights)
    differentiable = {name: batch[name] for name in ("query", "keys", "values")}
    assert_same_values_and_gradients(additive_context, concat_context, differentiable)
