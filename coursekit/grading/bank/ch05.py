"""Chapter 5, Transformers: the graded questions of ``exercises/05-transformers.ipynb``.

Questions 1-3 transcribe what the chapter prints: masked scaled dot-product attention, the
sinusoidal positional encoding and multi-head self-attention, graded against
``coursekit.models.scaled_dot_product_attention``, ``sinusoidal_positional_encoding`` and
``MultiHeadAttention`` (itself equal to ``torch.nn.MultiheadAttention``). Questions 4-6 ask for
what it does not print: self-attention restricted to a neighbourhood of r positions (the last
row of the paper's Table 1, which the chapter only describes), the matrix that shifts the
*concatenated* encoding of tensor2tensor by k positions (the chapter derives it for the
interleaved layout), and an experiment: the mean entropy of the attention weights of random
queries and keys with and without the division by sqrt(d_k). The masks of question 1 follow
``torch.nn.functional.scaled_dot_product_attention`` (True = may attend) and those of question
3 follow ``torch.nn.MultiheadAttention`` (True = padding). A case built to catch one mistake
says so in its description, which the report prints beside a failure. Numbers are float64, so
the default tolerance is that of ``torch.testing.assert_close``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from coursekit.grading.bank.draws import float64_normal, torch_generator
from coursekit.grading.questions import Case, Question, register
from coursekit.models.seq2seq.attention import ScaledDotAttention
from coursekit.models.transformer.multihead_attention import MultiHeadAttention
from coursekit.models.transformer.positional_encoding import (
    SinusoidalPositionalEncoding,
    positional_shift_matrix,
    sine_cosine_indices,
    sinusoid_frequencies,
    sinusoidal_positional_encoding,
)
from coursekit.models.transformer.scaled_dot_product import (
    attention,
    causal_allowed,
    scaled_dot_product_attention,
    softmax_over_keys,
)
from coursekit.text import padding_mask

#: The size of the noise in padded positions: a missing or inverted mask lets it in.
PADDING_SCALE = 1000.0


def _with_padding_noise(
    generator: torch.Generator, tensor: Tensor, is_padding: Tensor, scale: float = PADDING_SCALE
) -> Tensor:
    """``tensor [B, ..., S, D]`` with N(0, scale^2) noise at the positions where ``is_padding``
    ``[B, S]`` is True (broadcast over the dimensions between B and S)."""
    noise = float64_normal(generator, *tensor.shape, scale=scale)
    where = is_padding.view(is_padding.shape[0], *([1] * (tensor.dim() - 3)), -1, 1)
    return torch.where(where, noise, tensor)


# ch05.q1: masked scaled dot-product attention -----------------------------------------------


def _masked_attention_reference(
    query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None
) -> tuple[Tensor, Tensor]:
    """``softmax(Q K^T / sqrt(d_k))`` with the scores of keys where ``attn_mask`` is False set
    to -inf before the softmax (a row with no allowed key gets zero weights), times V:
    ``coursekit.models.scaled_dot_product_attention`` with ``need_weights=True``."""
    output, weights = scaled_dot_product_attention(
        query, key, value, attn_mask=attn_mask, need_weights=True
    )
    return output, weights


def _causal_and_padding(lengths: list[int], steps: int) -> Tensor:
    """``[B, 1, L, L]``, True where query i may attend key j: j <= i and j a real token."""
    real = ~padding_mask(torch.tensor(lengths), max_len=steps)
    return causal_allowed(steps, steps) & real[:, None, None, :]


def _attention_case(
    generator: torch.Generator,
    batch: int,
    heads: int,
    queries: int,
    keys: int,
    d_k: int,
    d_v: int,
    mask: Tensor | None,
    description: str,
    padded_keys: Tensor | None = None,
) -> Case:
    """Q ``[B, h, L, d_k]``, K ``[B, h, S, d_k]``, V ``[B, h, S, d_v]`` drawn from N(0, 1), the
    keys and values of ``padded_keys [B, S]`` replaced by noise of size ``PADDING_SCALE``."""
    query = float64_normal(generator, batch, heads, queries, d_k)
    key = float64_normal(generator, batch, heads, keys, d_k)
    value = float64_normal(generator, batch, heads, keys, d_v)
    if padded_keys is not None:
        key = _with_padding_noise(generator, key, padded_keys)
        value = _with_padding_noise(generator, value, padded_keys)
    shape = "None" if mask is None else str(list(mask.shape))
    return Case(
        (query, key, value, mask),
        description=f"{description}; B={batch}, h={heads}, L={queries}, S={keys}, d_k={d_k}, "
        f"d_v={d_v}, mask {shape}",
    )


def _masked_attention_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    padded = "True = may attend; padded keys and values are noise of size 1000"
    yield _attention_case(
        generator, 2, 2, 5, 5, 4, 6, causal_allowed(5, 5),
        "causal mask [L, S], broadcast over batch and heads; d_k = 4 and d_v = 6 differ (if "
        "only such cases fail, look at the scale: sqrt(d_k), not sqrt(d_v))",
    )  # fmt: skip
    lengths = [6, 3, 4]
    yield _attention_case(
        generator, 3, 2, 3, 6, 5, 3, ~padding_mask(torch.tensor(lengths))[:, None, None, :],
        f"cross-attention over keys of lengths {lengths}, mask [B, 1, 1, S]; {padded}",
        padded_keys=padding_mask(torch.tensor(lengths)),
    )  # fmt: skip
    lengths = [5, 2]
    yield _attention_case(
        generator, 2, 3, 5, 5, 4, 4, _causal_and_padding(lengths, 5),
        f"causal and padding (lengths {lengths}) in one mask; {padded}",
        padded_keys=padding_mask(torch.tensor(lengths)),
    )  # fmt: skip
    lengths = [7, 4]
    yield _attention_case(
        generator, 2, 1, 4, 7, 64, 8, ~padding_mask(torch.tensor(lengths))[:, None, None, :],
        f"d_k = 64: without 1/sqrt(d_k) the softmax is almost one-hot; {padded}",
        padded_keys=padding_mask(torch.tensor(lengths)),
    )  # fmt: skip
    per_head = torch.rand(2, 2, 4, 6, generator=generator) < 0.6
    per_head[..., 0] = True  # every query keeps a key
    yield _attention_case(
        generator, 2, 2, 4, 6, 3, 5, per_head,
        "a different random mask per head [B, h, L, S], True = may attend",
    )  # fmt: skip
    no_key = causal_allowed(4, 6, offset=2).clone()
    no_key[1] = False
    yield _attention_case(
        generator, 1, 2, 4, 6, 4, 4, no_key,
        "query 1 may attend no key: its weights and output are 0 (not NaN, not uniform)",
    )  # fmt: skip
    lengths = [4, 1, 3]
    yield _attention_case(
        generator, 3, 4, 4, 4, 1, 2, _causal_and_padding(lengths, 4),
        f"d_k = 1; causal and padding (lengths {lengths}); {padded}",
        padded_keys=padding_mask(torch.tensor(lengths)),
    )  # fmt: skip
    yield _attention_case(generator, 2, 2, 3, 5, 6, 4, None, "attn_mask=None: no mask")


register(
    Question(
        id="ch05.q1",
        title="Masked scaled dot-product attention",
        points=2,
        answer_name="masked_attention",
        reference=_masked_attention_reference,
        make_cases=_masked_attention_cases,
        forbidden=(
            scaled_dot_product_attention,
            attention,
            softmax_over_keys,
            ScaledDotAttention,
            MultiHeadAttention,
            F.scaled_dot_product_attention,
        ),
        output_names=("output", "weights"),
    )
)


# ch05.q2: the sinusoidal positional encoding ------------------------------------------------


def _encoding_reference(num_positions: int, d_model: int, offset: int) -> Tensor:
    """``PE(pos, 2i) = sin(pos / 10000^{2i/d})``, ``PE(pos, 2i+1) = cos(pos / 10000^{2i/d})`` for
    ``pos = offset .. offset + num_positions - 1``, float64 ``[num_positions, d_model]``:
    ``coursekit.models.sinusoidal_positional_encoding``."""
    return sinusoidal_positional_encoding(
        num_positions, d_model, offset=offset, dtype=torch.float64
    )


#: (positions, d_model, offset, what the case exercises)
ENCODING_SETTINGS = [
    (
        10,
        8,
        0,
        "10 positions, d=8: sines in the even features, cosines in the odd ones, the pair "
        "(2i, 2i + 1) sharing the exponent 2i/d (not i/d, and not (2i + 1)/d for the cosine)",
    ),
    (4, 2, 0, "d=2: a single frequency, 1"),
    (6, 16, 100, "offset 100: positions 100 .. 105, where a cache continues"),
    (3, 32, 5000, "positions near 5000: angles computed in float32 are off by about 1e-4"),
    (1, 6, 7, "a single position, 7"),
    (50, 4, 0, "50 positions, d=4"),
    (5, 512, 0, "d_model=512, the paper's: the slowest wavelength is almost 10000 * 2 pi"),
]


def _encoding_cases(rng: random.Random) -> Iterator[Case]:
    for positions, d_model, offset, about in ENCODING_SETTINGS:
        yield Case((positions, d_model, offset), description=about)


register(
    Question(
        id="ch05.q2",
        title="The sinusoidal positional encoding",
        points=1,
        answer_name="sinusoidal_encoding",
        reference=_encoding_reference,
        make_cases=_encoding_cases,
        forbidden=(
            sinusoidal_positional_encoding,
            SinusoidalPositionalEncoding,
            sinusoid_frequencies,
            sine_cosine_indices,
        ),
    )
)


# ch05.q3: multi-head self-attention ---------------------------------------------------------


def _multi_head_reference(
    x: Tensor,
    in_proj_weight: Tensor,
    in_proj_bias: Tensor,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor,
    num_heads: int,
    key_padding_mask: Tensor,
) -> tuple[Tensor, Tensor]:
    """``Concat(head_1..head_h) W^O + b^O`` with ``head_i = softmax(Q_i K_i^T / sqrt(d_k) + M)
    V_i`` and per-head weights ``[B, h, T, T]``: ``coursekit.models.MultiHeadAttention``
    (batch first) holding ``torch.nn.MultiheadAttention``'s parameters, with
    ``average_attn_weights=False``; ``key_padding_mask`` is True on padding."""
    embed_dim = x.shape[-1]
    module = MultiHeadAttention(embed_dim, num_heads, batch_first=True).double()
    module.load_state_dict(
        {
            "in_proj_weight": in_proj_weight,
            "in_proj_bias": in_proj_bias,
            "out_proj.weight": out_proj_weight,
            "out_proj.bias": out_proj_bias,
        }
    )
    with torch.no_grad():
        output, weights = module(
            x, x, x, key_padding_mask, need_weights=True, average_attn_weights=False
        )
    assert weights is not None  # need_weights=True returns them
    return output, weights


#: The note of the case that catches a wrong scale (the bank's tests use it).
SCALE_NOTE = (
    "no padding, 4 heads of d_k = 2 (if the mask and the heads' layout are right and this case "
    "fails, look at the scale: each head's scores are divided by sqrt(d_k) = sqrt(E / h), not by "
    "sqrt(E))"
)
#: The note of the case that names the heads' layout (the bank's tests use it).
SPLIT_NOTE = (
    "no padding, 2 heads of d_k = 3, T = 4: head i reads features i d_k .. (i + 1) d_k - 1 "
    "(view [B, T, E] as [B, T, h, d_k], then transpose to [B, h, T, d_k]; merge by the inverse)"
)
#: The mask's note in the cases without padding (the bank's tests use it).
NO_PADDING_MASK = (
    "; key_padding_mask all False (True on padding: a mask read the other way blocks every real "
    "key)"
)
#: (lengths, T, E, h, what the case exercises)
MULTI_HEAD_SETTINGS = [
    ([5, 3], 5, 8, 2, "2 heads of d_k = 4"),
    ([6, 2, 4], 6, 12, 3, "3 heads of d_k = 4"),
    ([3, 5], 5, 4, 4, "4 heads of d_k = 1"),
    ([1, 4, 2], 4, 16, 4, "a sequence of length 1; 4 heads of d_k = 4"),
    ([6, 1], 7, 6, 2, "padded beyond the longest sequence; 2 heads of d_k = 3"),
    ([5], 7, 6, 1, "one head: d_k = E"),
    ([4, 4], 4, 8, 4, SCALE_NOTE),
    ([4, 4], 4, 6, 2, SPLIT_NOTE),
]


def _multi_head_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    for lengths, steps, embed_dim, heads, about in MULTI_HEAD_SETTINGS:
        mask = padding_mask(torch.tensor(lengths), max_len=steps)
        x = _with_padding_noise(
            generator, float64_normal(generator, len(lengths), steps, embed_dim), mask, 30.0
        )
        padded = "; padded tokens are noise of size 30" if bool(mask.any()) else ""
        mask_note = "; key_padding_mask True = padding" if bool(mask.any()) else NO_PADDING_MASK
        yield Case(
            (
                x,
                float64_normal(generator, 3 * embed_dim, embed_dim, scale=embed_dim**-0.5),
                float64_normal(generator, 3 * embed_dim, scale=0.1),
                float64_normal(generator, embed_dim, embed_dim, scale=embed_dim**-0.5),
                float64_normal(generator, embed_dim, scale=0.1),
                heads,
                mask,
            ),
            description=f"{about}: lengths {lengths}, T={steps}, E={embed_dim}{mask_note}{padded}",
        )


register(
    Question(
        id="ch05.q3",
        title="Multi-head self-attention",
        points=2,
        answer_name="multi_head_self_attention",
        reference=_multi_head_reference,
        make_cases=_multi_head_cases,
        forbidden=(MultiHeadAttention, nn.MultiheadAttention, F.multi_head_attention_forward),
        output_names=("output", "weights"),
    )
)


# ch05.q4: self-attention restricted to a neighbourhood of r positions ------------------------


def _local_attention_reference(
    query: Tensor, key: Tensor, value: Tensor, radius: int, lengths: Tensor
) -> tuple[Tensor, Tensor]:
    """``softmax(Q K^T / sqrt(d_k) + M) V`` with ``M[b, i, j] = 0`` where ``|i - j| <= r`` and
    key j is a real token of sequence b (``j < lengths[b]``), ``-inf`` elsewhere; a query with
    no allowed key gets zero weights and a zero output. One head: Q, K ``[B, T, d_k]``, V
    ``[B, T, d_v]``; returns the output ``[B, T, d_v]`` and the weights ``[B, T, T]``."""
    steps = query.shape[-2]
    positions = torch.arange(steps)
    band = (positions[:, None] - positions[None, :]).abs() <= radius  # [T, T]
    real = ~padding_mask(lengths, max_len=steps)  # [B, T]
    allowed = band & real[:, None, :]  # [B, T, T]
    output, weights = scaled_dot_product_attention(
        query, key, value, attn_mask=allowed, need_weights=True
    )
    return output, weights


#: The notes of the cases that catch one mistake each (the bank's tests use them).
WINDOW_EDGE = "r = 1: query i sees keys i - 1, i and i + 1 (|i - j| <= r, on both sides)"
FAR_PADDING = (
    "a padded query farther than r from every real token sees no key: zero weights and output"
)
#: (lengths, T, d_k, d_v, r, what the case exercises)
LOCAL_SETTINGS = [
    ([6, 6], 6, 4, 3, 1, WINDOW_EDGE),
    (
        [7, 5],
        7,
        3,
        2,
        2,
        "r = 2; d_k = 3 and d_v = 2 differ (the scale is sqrt(d_k), not sqrt(d_v))",
    ),
    ([5, 5], 5, 4, 4, 0, "r = 0: each query sees only its own key"),
    ([6, 3, 2], 6, 5, 2, 10, "r beyond the length: every real key of the sequence"),
    ([8, 3], 8, 4, 3, 1, FAR_PADDING),
    ([4, 6], 6, 2, 5, 3, "r = 3: the windows are cut at both ends of the sequence"),
    ([9, 7], 9, 6, 4, 2, "r = 2 in longer sequences"),
]


def _local_attention_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    for lengths, steps, d_k, d_v, radius, about in LOCAL_SETTINGS:
        is_padding = padding_mask(torch.tensor(lengths), max_len=steps)
        query = float64_normal(generator, len(lengths), steps, d_k)
        key = _with_padding_noise(
            generator, float64_normal(generator, len(lengths), steps, d_k), is_padding
        )
        value = _with_padding_noise(
            generator, float64_normal(generator, len(lengths), steps, d_v), is_padding
        )
        padded = "; padded keys and values are noise of size 1000" if bool(is_padding.any()) else ""
        yield Case(
            (query, key, value, radius, torch.tensor(lengths)),
            description=f"{about}: lengths {lengths}, T={steps}, d_k={d_k}, d_v={d_v}{padded}",
        )


register(
    Question(
        id="ch05.q4",
        title="Self-attention restricted to a neighbourhood",
        points=2,
        answer_name="local_self_attention",
        reference=_local_attention_reference,
        make_cases=_local_attention_cases,
        forbidden=(scaled_dot_product_attention, attention, softmax_over_keys, causal_allowed),
        output_names=("output", "weights"),
    )
)


# ch05.q5: the matrix that shifts the concatenated encoding -----------------------------------


def _shift_reference(k: int, d_model: int) -> Tensor:
    """The ``[d, d]`` matrix ``M_k`` with ``PE(pos + k) = M_k PE(pos)`` for every ``pos`` in
    tensor2tensor's concatenated layout (``sin(pos w_i)`` in feature i, ``cos(pos w_i)`` in
    feature d/2 + i): the pair (i, d/2 + i) is rotated by k w_i, ``[[cos, sin], [-sin, cos]]``;
    ``coursekit.models.positional_shift_matrix(k, d, layout="concatenated")``."""
    return positional_shift_matrix(k, d_model, layout="concatenated", dtype=torch.float64)


#: The note of the case that catches float32 angles (the bank's tests use it).
LARGE_K = "k=1000: the angles k w_i, computed in float32, are off by about 1e-4"
#: (k, d_model, what the case exercises)
SHIFT_SETTINGS = [
    (1, 8, "k=1, d=8: sines in features 0-3, cosines in 4-7"),
    (5, 4, "k=5, d=4"),
    (0, 6, "k=0: the identity"),
    (-3, 8, "k=-3: a shift back, the inverse of M_3"),
    (20, 16, "k=20, d=16"),
    (2, 2, "d=2: one rotation by the angle k"),
    (1000, 12, LARGE_K),
]


def _shift_cases(rng: random.Random) -> Iterator[Case]:
    for k, d_model, about in SHIFT_SETTINGS:
        yield Case((k, d_model), description=about)


register(
    Question(
        id="ch05.q5",
        title="The matrix that shifts the concatenated encoding",
        points=1,
        answer_name="concatenated_shift_matrix",
        reference=_shift_reference,
        make_cases=_shift_cases,
        forbidden=(
            positional_shift_matrix,
            sinusoid_frequencies,
            sine_cosine_indices,
            sinusoidal_positional_encoding,
        ),
    )
)


# ch05.q6: how peaked the attention is, with and without 1/sqrt(d_k) (an experiment) ----------


def _mean_entropy(scores: Tensor) -> Tensor:
    """The mean over the rows of ``H(p) = -sum_j p_j ln p_j`` (nats) for ``p = softmax(row)``,
    with ``0 ln 0 = 0``."""
    return torch.special.entr(torch.softmax(scores, dim=-1)).sum(dim=-1).mean()


def _entropy_reference(queries: Tensor, keys: Tensor) -> Tensor:
    """``[H_scaled, H_unscaled]`` (float64, nats): the mean entropy of the attention weights
    ``softmax(e_n)`` with ``e_n = K_n q_n / sqrt(d_k)`` and with ``e_n = K_n q_n``;
    ``queries [N, d_k]``, ``keys [N, S, d_k]``."""
    scores = (keys @ queries.unsqueeze(-1)).squeeze(-1)  # [N, S]
    scaled = _mean_entropy(scores / math.sqrt(queries.shape[-1]))
    return torch.stack([scaled, _mean_entropy(scores)])


#: The note of the case where the scale makes no difference (the bank's tests use it).
NO_DIFFERENCE = "d_k = 1: dividing by sqrt(1) changes nothing, so both entropies are equal"
#: (d_k, what the case exercises)
ENTROPY_SETTINGS = [
    (1, NO_DIFFERENCE),
    (4, "d_k = 4"),
    (16, "d_k = 16"),
    (64, "d_k = 64, the paper's: unscaled scores have a standard deviation of 8"),
    (256, "d_k = 256"),
    (1024, "d_k = 1024: the unscaled weights are almost one-hot, an entropy near 0"),
]


#: The note of the case whose weights underflow to exactly 0 (the bank's tests use it).
ZERO_WEIGHTS = (
    "d_k = 4, three keys of each query at -1000 q: scores thousands of nats apart, so their "
    "weights are exactly 0 in float64 and need 0 ln 0 = 0"
)


def _entropy_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    rows, keys = 64, 8
    for d_k, about in ENTROPY_SETTINGS:
        yield Case(
            (float64_normal(generator, rows, d_k), float64_normal(generator, rows, keys, d_k)),
            description=f"{about}; N={rows} queries of {keys} keys, entries N(0, 1); the "
            f"entropy of uniform weights over {keys} keys is ln {keys} = {math.log(keys):.3f} nats",
        )
    queries = float64_normal(generator, rows, 4)
    far_keys = float64_normal(generator, rows, keys, 4)
    far_keys[:, :3] = -1000.0 * queries[:, None, :]  # scores about -4000: weights of 0.0
    yield Case((queries, far_keys), description=f"{ZERO_WEIGHTS}; N={rows} queries of {keys} keys")


register(
    Question(
        id="ch05.q6",
        title="How peaked attention is, with and without 1/sqrt(d_k)",
        points=1,
        answer_name="attention_entropies",
        reference=_entropy_reference,
        make_cases=_entropy_cases,
    )
)
