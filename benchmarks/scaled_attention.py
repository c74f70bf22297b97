"""Row: a forward and backward pass of ``coursekit.models.ScaledDotAttention`` against
``torch.nn.functional.scaled_dot_product_attention`` on the same padded batch, float32 on CPU.

Both compute softmax(Q K^T / sqrt(d_k)) V with the same key padding mask (torch's boolean mask
is True where attention is allowed, ours True on padding); the row first checks that the
contexts agree, then times them alternately and reports the medians.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor

from benchmarks.registry import Row, alternating_median_times, benchmark
from coursekit.models.seq2seq.attention import ScaledDotAttention
from coursekit.text.masks import padding_mask

# (batch, target steps, source positions, size)
FULL_SIZES = (64, 128, 128, 64)
QUICK_SIZES = (4, 16, 16, 8)


def backward_pass(
    attend: Callable[[Tensor, Tensor, Tensor], Tensor], inputs: tuple[Tensor, Tensor, Tensor]
) -> Callable[[], None]:
    """One forward and backward pass of ``attend`` on ``inputs``; the gradients are dropped."""

    def run() -> None:
        attend(*inputs).sum().backward()
        for tensor in inputs:
            tensor.grad = None

    return run


@benchmark
def scaled_dot_attention_vs_torch(quick: bool) -> Row:
    """softmax(Q K^T / sqrt(d_k)) V with a key padding mask, forward and backward."""
    batch, steps, positions, size = QUICK_SIZES if quick else FULL_SIZES
    generator = torch.Generator().manual_seed(0)
    inputs = tuple(
        torch.randn(batch, length, size, generator=generator, requires_grad=True)
        for length in (steps, positions, positions)
    )
    lengths = torch.randint(1, positions + 1, (batch,), generator=generator)
    mask = padding_mask(lengths, max_len=positions)
    attention = ScaledDotAttention()

    def ours(query: Tensor, keys: Tensor, values: Tensor) -> Tensor:
        return attention(query, keys, values, mask)[0]

    def reference(query: Tensor, keys: Tensor, values: Tensor) -> Tensor:
        return F.scaled_dot_product_attention(query, keys, values, attn_mask=~mask.unsqueeze(1))

    with torch.no_grad():
        torch.testing.assert_close(ours(*inputs), reference(*inputs), rtol=1e-4, atol=1e-5)
    ours_seconds, reference_seconds = alternating_median_times(
        backward_pass(ours, inputs), backward_pass(reference, inputs), repeat=1 if quick else 10
    )
    return Row(
        name=f"scaled dot attention fwd+bwd, B={batch} T={steps} S={positions} d={size}",
        ours="coursekit.models.ScaledDotAttention",
        reference=f"F.scaled_dot_product_attention {torch.__version__}",
        ours_seconds=ours_seconds,
        reference_seconds=reference_seconds,
    )
