"""The permutation sampler of XLNet and what two-stream attention guarantees with its masks: the
query stream of a target never sees the target's own token, the content stream always does, and
each target sees the context and the targets before it in the order.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import Tensor

from coursekit.models.xlnet.model import XLNetLMHeadModel, XLNetModel
from coursekit.models.xlnet.permutation import (
    independent_targets,
    permutation_masks,
    sample_permutation,
)

VOCAB = 17


def reference_perm_mask(order: list[int], cut: int) -> list[list[int]]:
    """perm_mask[i][j] = 1 unless i may see j, written out from the rule: the context (the first
    ``cut`` positions of the order) sees the context; a target sees the context and the targets
    before it in the order.
    """
    rank = {position: t for t, position in enumerate(order)}
    context = set(order[:cut])

    def sees(i: int, j: int) -> bool:
        if j in context:
            return True
        return i not in context and rank[j] < rank[i]

    return [[0 if sees(i, j) else 1 for j in range(len(order))] for i in range(len(order))]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), length=st.integers(2, 7), batch_size=st.integers(1, 3))
def test_masks_follow_the_order_and_the_cut(
    data: st.DataObject, length: int, batch_size: int
) -> None:
    cut = data.draw(st.integers(1, length - 1))
    orders = [data.draw(st.permutations(range(length))) for _ in range(batch_size)]
    prediction = permutation_masks(torch.tensor(orders), cut, dtype=torch.float64)
    assert prediction.perm_mask.dtype == torch.float64
    for row, order in enumerate(orders):
        assert prediction.perm_mask[row].long().tolist() == reference_perm_mask(order, cut)
        targets = prediction.target_mapping[row].argmax(-1).tolist()
        assert targets == list(order[cut:])
        assert prediction.target_mapping[row].sum(-1).tolist() == [1.0] * (length - cut)


def test_sampler_draws_reproducible_permutations_with_a_generator() -> None:
    first = sample_permutation(4, 6, 2, generator=torch.Generator().manual_seed(3))
    second = sample_permutation(4, 6, 2, generator=torch.Generator().manual_seed(3))
    assert torch.equal(first.order, second.order)
    assert first.perm_mask.shape == (4, 6, 6) and first.target_mapping.shape == (4, 4, 6)
    assert sorted(first.order[0].tolist()) == list(range(6))
    assert torch.equal(first.perm_mask, permutation_masks(first.order, 2).perm_mask)


def test_the_sampler_draws_every_order_of_three_tokens() -> None:
    orders = sample_permutation(300, 3, 1, generator=torch.Generator().manual_seed(0)).order
    assert len({tuple(order) for order in orders.tolist()}) == 6


@pytest.mark.parametrize(
    ("order", "cut", "message"),
    [
        ([[0, 1, 2]], 0, "at least one context token"),
        ([[0, 1, 2]], 3, "at least one target"),
        ([[0, 0, 2]], 1, "permutation of 0 .. 2"),
        ([0, 1, 2], 1, r"\[B, T\] integer tensor"),
    ],
)
def test_bad_orders_and_cuts_are_rejected(order: list, cut: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        permutation_masks(torch.tensor(order), cut)


def small_model(n_layer: int, seed: int, mem_len: int | None = None) -> XLNetLMHeadModel:
    """A float64 XLNet language model in eval mode."""
    torch.manual_seed(seed)
    model = XLNetLMHeadModel(
        VOCAB, d_model=8, n_layer=n_layer, n_head=2, d_inner=16, dropout=0.0, mem_len=mem_len
    )
    return model.double().eval()


def with_token(tokens: Tensor, row: int, position: int) -> Tensor:
    """``tokens`` with the token at (row, position) replaced by another one."""
    changed = tokens.clone()
    changed[row, position] = (tokens[row, position] + 1) % VOCAB
    return changed


@settings(max_examples=25, deadline=None)
@given(
    data=st.data(),
    length=st.integers(2, 7),
    n_layer=st.integers(1, 3),
    seed=st.integers(0, 1000),
    with_memory=st.booleans(),
)
def test_the_query_stream_of_a_target_never_depends_on_its_own_token(
    data: st.DataObject, length: int, n_layer: int, seed: int, with_memory: bool
) -> None:
    model = small_model(n_layer, seed, mem_len=3)
    generator = torch.Generator().manual_seed(seed)
    mems = None
    if with_memory:
        mems = model(torch.randint(0, VOCAB, (2, 3), generator=generator)).mems
    tokens = torch.randint(0, VOCAB, (2, length), generator=generator)
    cut = data.draw(st.integers(1, length - 1))
    prediction = sample_permutation(2, length, cut, generator=generator, dtype=torch.float64)
    inputs = {"perm_mask": prediction.perm_mask, "target_mapping": prediction.target_mapping}
    logits = model(tokens, mems=mems, **inputs).logits
    for row in range(2):
        for number, position in enumerate(prediction.order[row, cut:].tolist()):
            changed = model(with_token(tokens, row, position), mems=mems, **inputs).logits
            torch.testing.assert_close(changed[row, number], logits[row, number], rtol=0, atol=0)
            later = list(range(number + 1, length - cut))
            if later:  # the targets after it in the order do see it
                assert not torch.allclose(changed[row, later], logits[row, later])


@settings(max_examples=25, deadline=None)
@given(length=st.integers(2, 7), n_layer=st.integers(1, 3), seed=st.integers(0, 1000))
def test_the_content_stream_sees_its_own_token_and_every_target_sees_the_context(
    length: int, n_layer: int, seed: int
) -> None:
    model = small_model(n_layer, seed)
    generator = torch.Generator().manual_seed(seed)
    tokens = torch.randint(0, VOCAB, (1, length), generator=generator)
    prediction = sample_permutation(1, length, 1, generator=generator, dtype=torch.float64)
    content = model.transformer(tokens, perm_mask=prediction.perm_mask).last_hidden_state
    for position in range(length):
        changed = model.transformer(with_token(tokens, 0, position), perm_mask=prediction.perm_mask)
        assert not torch.allclose(changed.last_hidden_state[0, position], content[0, position])
    inputs = {"perm_mask": prediction.perm_mask, "target_mapping": prediction.target_mapping}
    logits = model(tokens, **inputs).logits
    context = int(prediction.order[0, 0])
    changed = model(with_token(tokens, 0, context), **inputs).logits
    assert all(not torch.allclose(changed[0, p], logits[0, p]) for p in range(length - 1))


def test_xlnet_model_rejects_inputs_of_the_wrong_shape() -> None:
    model = XLNetModel(VOCAB, d_model=8, n_layer=1, n_head=2, d_inner=8)
    tokens = torch.randint(0, VOCAB, (2, 4))
    with pytest.raises(ValueError, match=r"perm_mask must be 1 where i may not see j.*\[2, 4, 4\]"):
        model(tokens, perm_mask=torch.zeros(2, 4))
    with pytest.raises(ValueError, match=r"target_mapping .*\[2, P, 4\], got \(2, 4\)"):
        model(tokens, target_mapping=torch.zeros(2, 4))
    with pytest.raises(TypeError, match="token_type_ids must be integer segment ids"):
        model(tokens, token_type_ids=torch.zeros(2, 4))
    with pytest.raises(ValueError, match=r"mems\[0\] must be \[B, M, d_model\]"):
        model(tokens, mems=(torch.zeros(3, 2, 8),))
    with pytest.raises(ValueError, match="divisible by n_head=3"):
        XLNetModel(VOCAB, d_model=8, n_head=3)


def test_independent_targets_hide_every_target_from_every_position() -> None:
    """The masked LM's masks: the targets and the order stay, each target sees the context only,
    so its query stream gives the same prediction whatever the other targets' tokens.
    """
    order = torch.tensor([[4, 0, 2, 1, 3, 5]])
    sequential = permutation_masks(order, cut=3)
    independent = independent_targets(sequential)
    assert torch.equal(independent.target_mapping, sequential.target_mapping)
    assert torch.equal(independent.order, order)
    targets = torch.tensor([False, True, False, True, False, True])
    assert torch.equal(independent.perm_mask[0], targets.float().expand(6, -1))
    torch.manual_seed(0)
    model = XLNetLMHeadModel(VOCAB, d_model=16, n_layer=2, n_head=2, d_inner=32, dropout=0.0)
    tokens = torch.randint(0, VOCAB, (1, 6))
    changed = tokens.clone()
    changed[0, [1, 3, 5]] = (tokens[0, [1, 3, 5]] + 1) % VOCAB
    masks = dict(perm_mask=independent.perm_mask, target_mapping=independent.target_mapping)
    with torch.no_grad():
        assert torch.allclose(model(tokens, **masks).logits, model(changed, **masks).logits)
