"""Positional encodings of Chapter 5: the sinusoidal encoding is the paper's formula in both
layouts (interleaved sin/cos and tensor2tensor's concatenated halves); PE(pos + k) = M_k PE(pos)
with one fixed matrix M_k for all positions; the modules add the encoding after an offset;
learned positions stop at max_len with a clear error.
"""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from coursekit.models.transformer.positional_encoding import (
    LearnedPositionalEmbedding,
    SinusoidalPositionalEncoding,
    positional_encoding,
    positional_shift_matrix,
    sinusoidal_positional_encoding,
)


def formula(pos: int, feature: int, d_model: int, layout: str) -> float:
    """PE(pos, feature) from the paper's formula, with Python's math."""
    half = d_model // 2
    if layout == "interleaved":
        i, is_cosine = feature // 2, feature % 2 == 1
    else:
        i, is_cosine = feature % half, feature >= half
    angle = pos / 10000 ** (2 * i / d_model)
    return math.cos(angle) if is_cosine else math.sin(angle)


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
@pytest.mark.parametrize("d_model", [2, 8, 12])
def test_encoding_is_the_papers_formula(layout: str, d_model: int) -> None:
    encoding = sinusoidal_positional_encoding(40, d_model, layout, dtype=torch.float64)
    expected = [[formula(pos, f, d_model, layout) for f in range(d_model)] for pos in range(40)]
    torch.testing.assert_close(encoding, torch.tensor(expected, dtype=torch.float64))


def test_the_two_layouts_hold_the_same_values_in_another_order() -> None:
    interleaved = sinusoidal_positional_encoding(10, 6, "interleaved", dtype=torch.float64)
    concatenated = sinusoidal_positional_encoding(10, 6, "concatenated", dtype=torch.float64)
    torch.testing.assert_close(concatenated, interleaved[:, [0, 2, 4, 1, 3, 5]])


def test_offset_gives_the_later_rows() -> None:
    whole = sinusoidal_positional_encoding(30, 16, dtype=torch.float64)
    part = sinusoidal_positional_encoding(5, 16, offset=25, dtype=torch.float64)
    torch.testing.assert_close(part, whole[25:])


def test_wavelengths_grow_geometrically_from_two_pi() -> None:
    d_model = 16
    encoding = sinusoidal_positional_encoding(8, d_model, dtype=torch.float64)
    torch.testing.assert_close(encoding[:, 0], torch.sin(torch.arange(8, dtype=torch.float64)))
    last = 10000 ** ((d_model - 2) / d_model)  # wavelength 2 pi * last of the slowest pair
    positions = torch.arange(8, dtype=torch.float64)
    torch.testing.assert_close(encoding[:, -1], torch.cos(positions / last))


@settings(max_examples=40, deadline=None)
@given(
    k=st.integers(-50, 200),
    d_model=st.sampled_from([2, 4, 16, 64]),
    layout=st.sampled_from(["interleaved", "concatenated"]),
)
def test_a_shift_by_k_is_one_fixed_linear_map_of_the_encoding(
    k: int, d_model: int, layout: str
) -> None:
    shift = positional_shift_matrix(k, d_model, layout)
    positions = sinusoidal_positional_encoding(300, d_model, layout, dtype=torch.float64)
    shifted = sinusoidal_positional_encoding(300, d_model, layout, offset=k, dtype=torch.float64)
    torch.testing.assert_close(positions @ shift.T, shifted)  # PE(pos + k) = M_k PE(pos), all pos
    torch.testing.assert_close(shift @ shift.T, torch.eye(d_model, dtype=torch.float64))


def test_shift_matrices_compose_and_the_zero_shift_is_the_identity() -> None:
    torch.testing.assert_close(positional_shift_matrix(0, 8), torch.eye(8, dtype=torch.float64))
    torch.testing.assert_close(
        positional_shift_matrix(3, 8) @ positional_shift_matrix(4, 8), positional_shift_matrix(7, 8)
    )


def test_sinusoidal_module_adds_the_encoding_in_the_inputs_dtype_for_any_length() -> None:
    module = SinusoidalPositionalEncoding(8)
    assert not list(module.parameters()) and not list(module.buffers())
    x = torch.randn(2, 3000, 8, dtype=torch.float64)
    torch.testing.assert_close(
        module(x, offset=7) - x,
        sinusoidal_positional_encoding(3000, 8, offset=7, dtype=torch.float64).expand(2, -1, -1),
    )
    assert module(x.float()).dtype == torch.float32


def test_learned_positions_are_rows_of_a_matrix_up_to_max_len() -> None:
    torch.manual_seed(0)
    module = LearnedPositionalEmbedding(10, 4)
    x = torch.zeros(2, 3, 4)
    torch.testing.assert_close(module(x, offset=7), module.weight[7:10].expand(2, 3, 4))
    with pytest.raises(
        ValueError, match=r"positions 8 \.\. 10 do not fit the maximum length max_len=10"
    ):
        module(x, offset=8)


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: SinusoidalPositionalEncoding(7), r"d_model must be even"),
        (lambda: SinusoidalPositionalEncoding(8, layout="halves"), r"layout must be one of"),
        (lambda: sinusoidal_positional_encoding(4, 8, base=1.0), r"base must be > 1"),
        (lambda: positional_encoding("rotary", 8, 10), r"positional must be one of"),
        (lambda: LearnedPositionalEmbedding(0, 8), r"max_len must be a positive integer"),
    ],
)
def test_wrong_arguments_are_rejected(build: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build()
