"""Transformer-XL's segment-level recurrence, its memories, its mask and its four score terms,
checked against direct recomputation. (Equality with Hugging Face's Transfo-XL is proven in the
legacy lane, tests/legacy, which has transformers 4.37.)
"""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import Tensor

from coursekit.models.transformer_xl.layers import transformer_xl_mask
from coursekit.models.transformer_xl.model import TransfoXLLMHeadModel, TransfoXLModel
from coursekit.models.transformer_xl.relative_position import (
    relative_distances,
    relative_position_encoding,
)

VOCAB = 19


def small_model(seed: int = 0, **arguments: Any) -> TransfoXLModel:
    """A float64 Transformer-XL in eval mode (dropout off), small unless told otherwise."""
    torch.manual_seed(seed)
    sizes = {"d_model": 8, "n_head": 2, "d_head": 3, "d_inner": 10, "n_layer": 2, "dropout": 0.0}
    return TransfoXLModel(VOCAB, **{**sizes, **arguments}).double().eval()


def read_in_segments(model: TransfoXLModel, tokens: Tensor, lengths: list[int]) -> Tensor:
    """The last states of ``tokens`` read in segments of the given lengths, carrying memories."""
    outputs, mems = [], None
    for segment in tokens.split(lengths, dim=1):
        hidden, mems = model(segment, mems)
        outputs.append(hidden)
    return torch.cat(outputs, dim=1)


@settings(max_examples=30, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 4), min_size=1, max_size=4),
    pre_lnorm=st.booleans(),
    untie_r=st.booleans(),
    clamp_len=st.sampled_from([0, 2]),
    same_length=st.booleans(),
    seed=st.integers(0, 1000),
)
def test_reading_in_segments_equals_reading_at_once_when_the_memory_covers_the_text(
    lengths: list[int],
    pre_lnorm: bool,
    untie_r: bool,
    clamp_len: int,
    same_length: bool,
    seed: int,
) -> None:
    model = small_model(
        seed, mem_len=sum(lengths), pre_lnorm=pre_lnorm, untie_r=untie_r, clamp_len=clamp_len,
        same_length=same_length,
    )  # fmt: skip
    tokens = torch.randint(0, VOCAB, (2, sum(lengths)), generator=torch.Generator().manual_seed(1))
    whole = model(tokens).last_hidden_state
    torch.testing.assert_close(read_in_segments(model, tokens, lengths), whole)


def test_memories_hold_the_inputs_of_each_layer_for_the_last_mem_len_positions() -> None:
    model = small_model(mem_len=3, n_layer=2)
    first_layer_only = small_model(mem_len=3, n_layer=1)
    first_layer_only.load_state_dict(model.state_dict(), strict=False)
    tokens = torch.randint(0, VOCAB, (2, 5))
    _, mems = model(tokens[:, :2])
    _, mems = model(tokens[:, 2:], mems)
    assert [tuple(memory.shape) for memory in mems] == [(2, 3, 8), (2, 3, 8)]
    torch.testing.assert_close(mems[0], model.word_emb(tokens)[:, -3:])
    torch.testing.assert_close(mems[1], first_layer_only(tokens).last_hidden_state[:, -3:])
    assert not any(memory.requires_grad for memory in mems)
    assert small_model(mem_len=0)(tokens).mems is None


def test_the_memory_is_read_but_never_trained_through() -> None:
    model = small_model(mem_len=4).train()
    memory = tuple(torch.randn(1, 4, 8, dtype=torch.float64, requires_grad=True) for _ in "ab")
    model(torch.randint(0, VOCAB, (1, 3)), memory).last_hidden_state.sum().backward()
    assert all(m.grad is None for m in memory)
    assert model.word_emb.weight.grad is not None


@pytest.mark.parametrize("n_layer", [1, 2, 3])
def test_the_longest_dependency_grows_with_depth_one_segment_per_layer(n_layer: int) -> None:
    segment, model = 3, small_model(seed=n_layer, mem_len=3, n_layer=n_layer)
    tokens = torch.randint(0, VOCAB, (1, segment * (n_layer + 2)))
    last = read_in_segments(model, tokens, [segment] * (n_layer + 2))[:, -segment:]

    def last_segment_after_changing(position: int) -> Tensor:
        changed = tokens.clone()
        changed[0, position] = (changed[0, position] + 1) % VOCAB
        return read_in_segments(model, changed, [segment] * (n_layer + 2))[:, -segment:]

    # N segments back is within reach of N layers; one more segment back is not.
    reachable, unreachable = segment, 0
    assert not torch.allclose(last_segment_after_changing(reachable), last)
    torch.testing.assert_close(last_segment_after_changing(unreachable), last, rtol=0, atol=0)


@pytest.mark.parametrize("same_length", [False, True])
def test_each_query_sees_the_keys_up_to_itself_and_with_same_length_only_mem_len_of_them(
    same_length: bool,
) -> None:
    queries, memory, mem_len = 4, 3, 5
    blocked = transformer_xl_mask(queries, memory, same_length, mem_len)
    seen = (~blocked).sum(-1).tolist()
    expected = [min(i + memory + 1, mem_len) if same_length else i + memory + 1 for i in range(4)]
    assert seen == expected
    assert not blocked[torch.arange(queries), torch.arange(queries) + memory].any()


def test_the_four_terms_rebuild_the_output_of_the_attention_layer() -> None:
    model = small_model(mem_len=3)
    tokens = torch.randint(0, VOCAB, (2, 4))
    _, mems = model(tokens[:, :3])
    new = tokens[:, 3:]
    attention = model.layers[1].attention
    hidden, position_encoding, blocked = model.inputs(new, 3)
    hidden = model.layers[0](hidden, position_encoding, blocked, mems[0])  # layer 1's input
    terms = model.score_terms(new, mems, layer=1)
    scores = sum(terms[1:], terms[0]) * attention.scale
    weights = torch.softmax(scores.masked_fill(blocked, -torch.inf), dim=-1)
    values = attention.project(torch.cat([mems[1], hidden], 1), 1, position_encoding)[2]
    heads = (weights @ values).transpose(1, 2).flatten(2)
    expected = attention.norm(hidden + attention.output(heads))
    torch.testing.assert_close(attention(hidden, position_encoding, blocked, mems[1]), expected)


def test_relative_encodings_of_the_model_cover_the_distances_k_minus_1_down_to_0() -> None:
    model = small_model(mem_len=3, clamp_len=2)
    _, position_encoding, _ = model.inputs(torch.zeros(1, 2, dtype=torch.long), 3)
    distances = relative_distances(2, 5, clamp_len=2, dtype=torch.float64)
    assert distances.tolist() == [2, 2, 2, 1, 0]
    torch.testing.assert_close(position_encoding, relative_position_encoding(distances, 8))


def test_wrong_arguments_are_rejected_with_the_fix() -> None:
    model = small_model(mem_len=3)
    tokens = torch.randint(0, VOCAB, (2, 4))
    hugging_face_layout = tuple(torch.zeros(3, 2, 8, dtype=torch.float64) for _ in "ab")
    with pytest.raises(ValueError, match=r"transpose Hugging Face's \[M, B, d_model\]"):
        model(tokens, hugging_face_layout)
    with pytest.raises(ValueError, match="one \\[B, M, d_model\\] tensor per layer \\(2\\)"):
        model(tokens, hugging_face_layout[:1])
    with pytest.raises(ValueError, match="token ids must lie in 0 .. 18"):
        model(tokens + VOCAB)
    with pytest.raises(ValueError, match="layer must be in 0 .. 1"):
        model.score_terms(tokens, layer=2)
    with pytest.raises(ValueError, match="needs mem_len >= 1"):
        TransfoXLModel(VOCAB, mem_len=0, same_length=True)
    with pytest.raises(ValueError, match="d_model must be even"):
        TransfoXLModel(VOCAB, d_model=7)
    with pytest.raises(TypeError, match="expects a Hugging Face TransfoXLLMHeadModel"):
        TransfoXLLMHeadModel.from_hf(model)


def test_language_model_scores_are_log_probabilities_with_tied_embeddings() -> None:
    torch.manual_seed(0)
    model = TransfoXLLMHeadModel(VOCAB, d_model=8, n_head=2, d_head=4, d_inner=8, n_layer=1)
    scores, mems = model(torch.randint(0, VOCAB, (3, 5)))
    assert scores.shape == (3, 5, VOCAB) and len(mems) == 1
    torch.testing.assert_close(scores.exp().sum(-1), torch.ones(3, 5))
    assert model.output_layer.weight is model.transformer.word_emb.weight
    untied = TransfoXLLMHeadModel(VOCAB, tie_weights=False, d_model=8, n_head=2, d_head=4)
    assert untied.output_layer.weight is not untied.transformer.word_emb.weight
