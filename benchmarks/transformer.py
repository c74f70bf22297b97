"""Rows of Chapter 5 (Transformers), on CPU in float32:

- a training step (forward and backward) of ``coursekit.models.MultiHeadAttention`` against
  ``torch.nn.MultiheadAttention`` with the same weights, on the fused path (``need_weights=False``,
  both through ``F.scaled_dot_product_attention``) and on the explicit path (``need_weights=True``,
  the weights computed and returned);
- a training step of ``TransformerEncoderLayer`` against ``torch.nn.TransformerEncoderLayer``;
- greedy generation with ``coursekit.generate.generate`` by a ``TransformerLanguageModel`` that
  keeps its key-value cache, against the same model re-reading the whole prefix at every step,
  both on one thread (a step of one token is made of operations too small for a thread pool,
  whose synchronisation then costs more than it saves, and far more on a busy machine).

Each row first checks that both sides give the same result, then times them alternately (after
one untimed run each) and reports the medians.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import torch
from torch import Tensor, nn

from benchmarks.registry import Row, alternating_median_times, benchmark
from coursekit.generate import generate
from coursekit.models.transformer.language_model import TransformerLanguageModel
from coursekit.models.transformer.layers import TransformerEncoderLayer
from coursekit.models.transformer.multihead_attention import MultiHeadAttention

# (batch, length, d_model, heads)
FULL_SIZES = (32, 128, 256, 8)
QUICK_SIZES = (4, 16, 32, 4)
# (tokens generated, d_model, layers)
FULL_GENERATION = (512, 128, 2)
QUICK_GENERATION = (32, 32, 2)


def forward(module: nn.Module, x: Tensor, **options: object) -> Tensor:
    """The output of ``module`` on ``x``: self-attention (query = key = value = x) for an
    attention module, whose attention weights are dropped.
    """
    if isinstance(module, (MultiHeadAttention, nn.MultiheadAttention)):
        return module(x, x, x, **options)[0]
    return module(x)


def training_step(module: nn.Module, x: Tensor, **options: object) -> Callable[[], None]:
    """Forward ``module`` on ``x``, backward from the sum of the output, drop the gradients."""

    def step() -> None:
        forward(module, x, **options).sum().backward()
        module.zero_grad(set_to_none=True)

    return step


def training_step_row(
    title: str, ours: nn.Module, reference: nn.Module, quick: bool, **options: object
) -> Row:
    """Check that ``ours`` and its torch twin give the same output, then time a training step
    of each on the same input ``[B, T, d]``.
    """
    batch, length, d_model, heads = QUICK_SIZES if quick else FULL_SIZES
    x = torch.randn(batch, length, d_model, requires_grad=True)
    with torch.no_grad():
        expected = forward(reference, x, **options)
        torch.testing.assert_close(forward(ours, x, **options), expected, rtol=1e-4, atol=1e-5)
    ours_seconds, reference_seconds = alternating_median_times(
        training_step(ours, x, **options),
        training_step(reference, x, **options),
        repeat=1 if quick else 15,
    )
    return Row(
        name=f"{title} fwd+bwd, B={batch} T={length} d={d_model} h={heads}",
        ours=f"coursekit.models.{type(ours).__name__}",
        reference=f"torch.nn.{type(reference).__name__} {torch.__version__}",
        ours_seconds=ours_seconds,
        reference_seconds=reference_seconds,
    )


def attention_row(need_weights: bool, quick: bool) -> Row:
    """The row of one path of multi-head self-attention."""
    _, _, d_model, heads = QUICK_SIZES if quick else FULL_SIZES
    torch.manual_seed(0)
    reference = nn.MultiheadAttention(d_model, heads, batch_first=True)
    path = "explicit (need_weights=True)" if need_weights else "fused (need_weights=False)"
    return training_step_row(
        f"MultiHeadAttention {path}",
        MultiHeadAttention.from_torch(reference),
        reference,
        quick,
        need_weights=need_weights,
    )


@benchmark
def multihead_attention_fused_vs_torch(quick: bool) -> Row:
    """Self-attention without weights: both sides run torch's fused SDPA kernel."""
    return attention_row(need_weights=False, quick=quick)


@benchmark
def multihead_attention_explicit_vs_torch(quick: bool) -> Row:
    """Self-attention returning the head-averaged weights: softmax(Q K^T / sqrt(d_k)) computed."""
    return attention_row(need_weights=True, quick=quick)


@benchmark
def encoder_layer_vs_torch(quick: bool) -> Row:
    """A post-norm encoder layer (d_ff = 4 d_model, dropout 0) in training mode."""
    _, _, d_model, heads = QUICK_SIZES if quick else FULL_SIZES
    torch.manual_seed(0)
    reference = nn.TransformerEncoderLayer(
        d_model, heads, 4 * d_model, dropout=0.0, batch_first=True
    )
    ours = TransformerEncoderLayer.from_torch(reference)
    return training_step_row("TransformerEncoderLayer", ours, reference, quick)


@contextmanager
def one_thread() -> Iterator[None]:
    """Run the block with one torch thread, then restore the thread count."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


class PrefixRecomputingModel(nn.Module):
    """A language model that keeps no cache: its state is the prefix read so far, and every call
    runs ``model`` over the whole prefix again, as a decoder without a key-value cache must.
    """

    def __init__(self, model: TransformerLanguageModel) -> None:
        super().__init__()
        self.model = model

    def forward(self, tokens: Tensor, state: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """Logits of the new tokens, computed from the whole prefix; the prefix as the state."""
        prefix = tokens if state is None else torch.cat([state, tokens], dim=1)
        logits, _ = self.model(prefix)
        return logits[:, -tokens.shape[1] :], prefix


@benchmark
def kv_cache_generation_vs_recomputation(quick: bool) -> Row:
    """Greedy generation from a one-token prompt, with the cache and without."""
    new_tokens, d_model, num_layers = QUICK_GENERATION if quick else FULL_GENERATION
    torch.manual_seed(0)
    model = TransformerLanguageModel(
        vocab_size=1000, d_model=d_model, nhead=4, num_layers=num_layers,
        dim_feedforward=4 * d_model, max_len=new_tokens,
    )  # fmt: skip
    without_cache = PrefixRecomputingModel(model)
    with one_thread():
        cached_tokens = generate(model, [1], new_tokens, temperature=0)
        if cached_tokens != generate(without_cache, [1], new_tokens, temperature=0):
            raise AssertionError("generation with the cache differs from recomputing the prefix")
        ours_seconds, reference_seconds = alternating_median_times(
            lambda: generate(model, [1], new_tokens, temperature=0),
            lambda: generate(without_cache, [1], new_tokens, temperature=0),
            repeat=1 if quick else 2,
        )
    speedup = reference_seconds / ours_seconds
    return Row(
        name=f"generate {new_tokens} tokens, LM d={d_model} L={num_layers}: KV cache",
        ours="TransformerLanguageModel, KV cache",
        reference="same model, prefix recomputed",
        ours_seconds=ours_seconds,
        reference_seconds=reference_seconds,
        notes=(
            f"KV cache: generating {new_tokens} tokens (one thread) is {speedup:.1f}x faster "
            "than recomputing the prefix at every step",
        ),
    )
