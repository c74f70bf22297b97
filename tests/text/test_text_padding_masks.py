"""pad_batch against torch's pad_sequence; masks against torch's attention conventions."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given
from hypothesis import strategies as st
from torch.nn.utils.rnn import pad_sequence

from coursekit.models.transformer.kv_cache import incremental_causal_mask
from coursekit.models.transformer.scaled_dot_product import causal_allowed
from coursekit.models.transformer_xl.layers import transformer_xl_mask
from coursekit.text import causal_mask, pad_batch, padding_mask

id_lists = st.lists(st.lists(st.integers(0, 50), min_size=1, max_size=7), min_size=1, max_size=6)


@given(id_lists, st.integers(-1, 3), st.booleans())
def test_pad_batch_equals_pad_sequence(
    sequences: list[list[int]], pad: int, batch_first: bool
) -> None:
    padded, lengths = pad_batch(sequences, padding_value=pad, batch_first=batch_first)
    tensors = [torch.tensor(sequence, dtype=torch.long) for sequence in sequences]
    expected = pad_sequence(tensors, batch_first=batch_first, padding_value=pad)
    assert padded.dtype == torch.long
    assert torch.equal(padded, expected)
    assert lengths.tolist() == [len(sequence) for sequence in sequences]


def test_pad_batch_keeps_the_dtype_of_tensor_input() -> None:
    sequences = [torch.tensor([1.5, 2.5]), torch.tensor([3.5])]
    padded, _ = pad_batch(sequences, padding_value=-1)
    assert padded.dtype == torch.float32
    assert torch.equal(padded, pad_sequence(sequences, batch_first=True, padding_value=-1))


def test_pad_batch_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="empty batch"):
        pad_batch([])
    with pytest.raises(ValueError, match="must be 1-D"):
        pad_batch([torch.zeros(2, 3, dtype=torch.long)])


def test_pad_batch_refuses_empty_sequences_and_says_which_and_what_to_do() -> None:
    with pytest.raises(ValueError) as error:
        pad_batch([[], [1, 2], torch.tensor([], dtype=torch.long)])
    message = str(error.value)
    assert "empty sequences (length 0) at positions [0, 2]" in message
    assert "drop the empty ones before batching" in message


def test_padding_mask_marks_positions_past_each_length() -> None:
    expected = torch.tensor([[False, False, False], [False, True, True], [True, True, True]])
    assert torch.equal(padding_mask([3, 1, 0]), expected)
    assert padding_mask(torch.tensor([2]), max_len=4).tolist() == [[False, False, True, True]]
    assert padding_mask([3, 1]).dtype == torch.bool


def test_padding_mask_rejects_bad_lengths() -> None:
    with pytest.raises(ValueError, match="shorter than the longest"):
        padding_mask([3, 5], max_len=4)
    with pytest.raises(ValueError, match="non-negative"):
        padding_mask([2, -1])
    with pytest.raises(ValueError, match="1-D"):
        padding_mask([[1, 2]])


def test_padding_mask_makes_attention_ignore_padding() -> None:
    torch.manual_seed(0)
    attention = torch.nn.MultiheadAttention(8, 2, batch_first=True).eval()
    short = torch.randn(1, 3, 8)
    garbage = torch.randn(1, 2, 8) * 100
    batch = torch.cat([torch.randn(1, 5, 8), torch.cat([short, garbage], dim=1)])
    mask = padding_mask([5, 3])
    with torch.no_grad():
        padded_out, _ = attention(batch, batch, batch, key_padding_mask=mask)
        alone_out, _ = attention(short, short, short)
    torch.testing.assert_close(padded_out[1, :3], alone_out[0])


@pytest.mark.parametrize("size", [0, 1, 5])
def test_causal_mask_is_the_boolean_form_of_torch_square_subsequent_mask(size: int) -> None:
    reference = torch.nn.Transformer.generate_square_subsequent_mask(size)
    mask = causal_mask(size)
    assert mask.dtype == torch.bool and mask.shape == (size, size)
    assert torch.equal(mask, torch.isinf(reference))


def test_causal_mask_in_attention_hides_the_future() -> None:
    torch.manual_seed(0)
    attention = torch.nn.MultiheadAttention(8, 2, batch_first=True).eval()
    x = torch.randn(1, 6, 8)
    changed_future = x.clone()
    changed_future[:, 4:] = torch.randn(1, 2, 8)
    float_mask = torch.nn.Transformer.generate_square_subsequent_mask(6)
    with torch.no_grad():
        out, _ = attention(x, x, x, attn_mask=causal_mask(6))
        out_changed, _ = attention(
            changed_future, changed_future, changed_future, attn_mask=causal_mask(6)
        )
        out_float, _ = attention(x, x, x, attn_mask=float_mask)
    torch.testing.assert_close(out[:, :4], out_changed[:, :4])
    torch.testing.assert_close(out, out_float)


def test_causal_mask_rejects_negative_size() -> None:
    with pytest.raises(ValueError, match="size must be a non-negative integer, got -1"):
        causal_mask(-1)
    with pytest.raises(ValueError, match="offset must be a non-negative integer, got -2"):
        causal_mask(3, offset=-2)


@pytest.mark.parametrize(
    ("size", "key_length", "offset"), [(3, 5, 0), (3, 5, 2), (4, 2, 0), (1, 6, 5)]
)
def test_a_rectangular_causal_mask_is_the_upper_triangle_above_the_offset(
    size: int, key_length: int, offset: int
) -> None:
    expected = torch.ones(size, key_length, dtype=torch.bool).triu(diagonal=offset + 1)
    assert torch.equal(causal_mask(size, key_length=key_length, offset=offset), expected)


@pytest.mark.parametrize(("size", "key_length"), [(3, 5), (5, 3), (4, 4)])
def test_causal_mask_means_what_is_causal_means_in_torch_sdpa(size: int, key_length: int) -> None:
    generator = torch.Generator().manual_seed(size * key_length)
    q = torch.randn(2, size, 4, generator=generator, dtype=torch.float64)
    k, v = (torch.randn(2, key_length, 4, generator=generator, dtype=torch.float64) for _ in "kv")
    allowed = ~causal_mask(size, key_length=key_length)
    torch.testing.assert_close(
        F.scaled_dot_product_attention(q, k, v, attn_mask=allowed),
        F.scaled_dot_product_attention(q, k, v, is_causal=True),
    )


def test_the_masks_of_chapters_5_and_7_are_causal_mask() -> None:
    assert torch.equal(causal_allowed(3, 7, offset=4), ~causal_mask(3, key_length=7, offset=4))
    assert torch.equal(incremental_causal_mask(3, 4), causal_mask(3, key_length=7, offset=4))
    assert torch.equal(transformer_xl_mask(3, 4), causal_mask(3, key_length=7, offset=4))
