"""Relative distances, the encodings R_{i-j} and the relative shift (pad-and-reshape) of
Transformer-XL and XLNet, against direct definitions.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from coursekit.models.transformer.positional_encoding import sinusoidal_positional_encoding
from coursekit.models.transformer_xl.relative_attention import relative_score_terms, relative_scores
from coursekit.models.transformer_xl.relative_position import (
    relative_distances,
    relative_position_encoding,
    relative_shift,
)


def gathered(table: torch.Tensor, memory_length: int, key_length: int) -> torch.Tensor:
    """``table[..., i, (K - 1) - (i + M - j)]`` by an explicit index (gather); 0 where that
    column does not exist.
    """
    queries, distances = table.shape[-2:]
    rows = torch.arange(queries).unsqueeze(1)
    columns = (key_length - 1) - (rows + memory_length - torch.arange(key_length))
    exists = (columns >= 0) & (columns < distances)
    index = columns.clamp(0, distances - 1).expand(*table.shape[:-1], key_length)
    return torch.gather(table, -1, index) * exists


@settings(max_examples=80, deadline=None)
@given(
    queries=st.integers(1, 6),
    memory=st.integers(0, 6),
    bidirectional=st.booleans(),
    batch=st.lists(st.integers(1, 3), max_size=2),
    seed=st.integers(0, 2**16),
)
def test_the_pad_and_reshape_shift_equals_a_direct_gather(
    queries: int, memory: int, bidirectional: bool, batch: list[int], seed: int
) -> None:
    keys = memory + queries
    distances = relative_distances(queries, keys, bidirectional)
    generator = torch.Generator().manual_seed(seed)
    table = torch.randn(*batch, queries, len(distances), generator=generator, dtype=torch.float64)
    shifted = relative_shift(table, keys)
    expected = gathered(table, memory, keys)
    defined = torch.ones(queries, keys, dtype=torch.bool)
    if not bidirectional:  # only the future keys j > i + M have no column
        defined = torch.arange(keys) <= torch.arange(queries).unsqueeze(1) + memory
    assert shifted.shape == (*batch, queries, keys)
    torch.testing.assert_close(shifted[..., defined], expected[..., defined], rtol=0, atol=0)


@pytest.mark.parametrize("bidirectional", [False, True])
def test_the_shift_puts_distance_i_plus_m_minus_j_at_query_i_and_key_j(
    bidirectional: bool,
) -> None:
    queries, memory = 4, 3
    keys = queries + memory
    distances = relative_distances(queries, keys, bidirectional, dtype=torch.float64)
    assert distances[0] == keys - 1 and distances[-1] == (-(queries - 1) if bidirectional else 0)
    shifted = relative_shift(distances.expand(queries, -1), keys)
    expected = torch.arange(queries).unsqueeze(1) + memory - torch.arange(keys)
    allowed = expected >= 0 if not bidirectional else torch.ones_like(expected, dtype=torch.bool)
    assert torch.equal(shifted[allowed], expected[allowed].double())


def test_clamping_gives_every_farther_distance_the_encoding_of_clamp_len() -> None:
    distances = relative_distances(3, 8, bidirectional=True, clamp_len=2)
    assert distances.tolist() == [2, 2, 2, 2, 2, 2, 1, 0, -1, -2]


def test_relative_encodings_are_chapter_5_sinusoids_of_the_distance() -> None:
    d_model = 10
    distances = torch.arange(-5, 6, dtype=torch.float64)
    encoding = relative_position_encoding(distances, d_model)
    absolute = sinusoidal_positional_encoding(6, d_model, "concatenated", dtype=torch.float64)
    torch.testing.assert_close(encoding[5:], absolute)
    half = d_model // 2
    mirrored = encoding[:5].flip(0)  # R_{-k}: sines change sign, cosines do not
    torch.testing.assert_close(mirrored[:, :half], -absolute[1:, :half])
    torch.testing.assert_close(mirrored[:, half:], absolute[1:, half:])


def test_an_odd_model_size_is_rejected() -> None:
    with pytest.raises(ValueError, match="d_model must be even"):
        relative_position_encoding(torch.arange(3.0), 5)


@settings(max_examples=30, deadline=None)
@given(queries=st.integers(1, 5), memory=st.integers(0, 4), seed=st.integers(0, 2**16))
def test_the_four_terms_match_their_definitions_and_add_up_to_the_score(
    queries: int, memory: int, seed: int
) -> None:
    keys, heads, size = memory + queries, 2, 3
    generator = torch.Generator().manual_seed(seed)

    def draw(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=generator, dtype=torch.float64)

    q, k = draw(2, heads, queries, size), draw(2, heads, keys, size)
    by_distance, u, v = draw(heads, keys, size), draw(heads, size), draw(heads, size)
    terms = relative_score_terms(q, k, by_distance, u, v)
    for i in range(queries):
        for j in range(i + memory + 1):  # the keys query i may see
            r = by_distance[:, (keys - 1) - (i + memory - j)]  # r_{i-j} of each head
            expected = (
                (q[:, :, i] * k[:, :, j]).sum(-1),
                (q[:, :, i] * r).sum(-1),
                (u * k[:, :, j]).sum(-1),
                (v * r).sum(-1).expand(2, heads),
            )
            for term, value in zip(terms, expected, strict=True):
                torch.testing.assert_close(term[:, :, i, j], value)
    total = relative_scores(q, k, by_distance, u, v)
    torch.testing.assert_close(total, sum(terms[1:], terms[0]))
