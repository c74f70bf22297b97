"""Chapter 4, Seq2seq and attention: the graded questions of
``exercises/04-seq2seq-attention.ipynb``.

Questions 1-3 transcribe equations the chapter prints (Bahdanau's additive attention, Luong's
general score with the attentional state, Luong's local-p weights) and are graded against the
modules of ``coursekit.models`` loaded with the case's weights. Questions 4-6 ask for what the
chapter only describes: one step of batched beam search over finished and unfinished hypotheses,
greedy pointer decoding that never points twice at the same input, and the alignment accuracy of
attention measured on the true alignments of the ``numbers`` data. Attention questions are
mostly padded, and padding holds large values, so that a missing mask costs almost every test.
Numbers are float64, so the default tolerance is that of ``torch.testing.assert_close``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

import torch
from torch import Tensor

from coursekit.generate.search import beam_search, beam_step, gnmt_length_penalty, only_eos
from coursekit.generate.step import reorder_state, repeat_state
from coursekit.grading.bank.ch02 import float64_normal, torch_generator
from coursekit.grading.questions import Case, Question, register
from coursekit.models.attention import (
    AdditiveAttention,
    Attention,
    DotAttention,
    GeneralAttention,
    masked_softmax,
)
from coursekit.models.attention_decoders import LuongDecoder
from coursekit.models.local_attention import LocalAttention
from coursekit.models.pointer import PointerNetwork
from coursekit.text import padding_mask

#: The size of the noise in padded encoder states: a missing mask lets it in.
PADDING_SCALE = 1000.0
#: What every masked case says about its padding.
PADDED = f"padding: noise of size {PADDING_SCALE:g}, True in the mask (a missing mask reads it)"


def _padded_memory(
    generator: torch.Generator, lengths: list[int], steps: int, width: int
) -> tuple[Tensor, Tensor]:
    """Encoder states ``[B, S, width]``, N(0, 1) on real steps and N(0, PADDING_SCALE^2) on
    padded ones, and the ``key_padding_mask [B, S]``, True on padding."""
    mask = padding_mask(torch.tensor(lengths), max_len=steps)
    states = float64_normal(generator, len(lengths), steps, width)
    noise = float64_normal(generator, len(lengths), steps, width, scale=PADDING_SCALE)
    return torch.where(mask.unsqueeze(-1), noise, states), mask


# ch04.q1: Bahdanau's additive attention -----------------------------------------------------


def _additive_reference(
    query: Tensor, keys: Tensor, key_padding_mask: Tensor, W_q: Tensor, W_k: Tensor, v: Tensor
) -> tuple[Tensor, Tensor]:
    """``e_j = v^T tanh(W_q s + W_k h_j)``, ``alpha = softmax(e)`` over the unpadded ``j``,
    ``c = sum_j alpha_j h_j``: ``coursekit.models.AdditiveAttention`` holding ``W_q``, ``W_k``
    and ``v``, with the encoder states as keys and values."""
    hidden_size, query_size = W_q.shape
    attention = AdditiveAttention(query_size, W_k.shape[1], hidden_size).double()
    weights = {
        "query_projection.weight": W_q,
        "key_projection.weight": W_k,
        "energy.weight": v.unsqueeze(0),
    }
    attention.load_state_dict(weights)
    with torch.no_grad():
        return attention(query, keys, keys, key_padding_mask)


#: (lengths, S, Dq, Dk, A, weight scale, what the case exercises)
ADDITIVE_SETTINGS = [
    ([5, 3, 2], 5, 4, 6, 5, 0.5, "query and keys of different sizes"),
    ([4, 1], 4, 3, 3, 3, 0.5, "a source of length 1: all the weight on its one word"),
    ([2, 6, 4, 6], 6, 5, 4, 7, 0.5, "the longest source not first"),
    ([3, 2], 6, 4, 4, 4, 0.5, "padded beyond the longest source; Dq = Dk = A"),
    ([6, 5, 3], 6, 2, 5, 3, 2.0, "large weights: tanh saturates, one word takes most weight"),
    ([1, 3, 2, 4, 2], 4, 3, 2, 6, 0.5, "batch of 5"),
    ([4, 4, 4], 4, 5, 3, 4, 0.5, "no padding"),
]


def _additive_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    for lengths, steps, query_size, key_size, hidden, scale, about in ADDITIVE_SETTINGS:
        keys, mask = _padded_memory(generator, lengths, steps, key_size)
        padded = f"; {PADDED}" if min(lengths) < steps else ""
        yield Case(
            (
                float64_normal(generator, len(lengths), query_size),
                keys,
                mask,
                float64_normal(generator, hidden, query_size, scale=scale),
                float64_normal(generator, hidden, key_size, scale=scale),
                float64_normal(generator, hidden),
            ),
            description=f"{about}: lengths {lengths}, S={steps}, Dq={query_size}, "
            f"Dk={key_size}, A={hidden}{padded}",
        )


register(
    Question(
        id="ch04.q1",
        title="Bahdanau's additive attention",
        points=2,
        answer_name="additive_attention",
        reference=_additive_reference,
        make_cases=_additive_cases,
        forbidden=(AdditiveAttention, Attention, masked_softmax),
        output_names=("context", "weights"),
    )
)


# ch04.q2: Luong's general score and the attentional state -----------------------------------


def _luong_reference(
    decoder_states: Tensor,
    encoder_states: Tensor,
    key_padding_mask: Tensor,
    W_a: Tensor,
    W_c: Tensor,
) -> tuple[Tensor, Tensor]:
    """``e_{t,j} = s_t^T W_a h_j``, ``alpha_t = softmax(e_t)`` over the unpadded ``j``,
    ``c_t = sum_j alpha_{t,j} h_j`` and ``s~_t = tanh(W_c [c_t; s_t])`` for every step ``t``:
    ``coursekit.models.GeneralAttention`` holding ``W_a``, then the attentional state of
    ``coursekit.models.LuongDecoder``."""
    query_size, key_size = W_a.shape
    attention = GeneralAttention(query_size, key_size).double()
    attention.load_state_dict({"key_projection.weight": W_a})
    with torch.no_grad():
        context, weights = attention(
            decoder_states, encoder_states, encoder_states, key_padding_mask
        )
        attentional = torch.tanh(torch.cat([context, decoder_states], dim=-1) @ W_c.T)
    return attentional, weights


#: (lengths, S, T, H, D, what the case exercises)
LUONG_SETTINGS = [
    ([5, 3, 4], 5, 4, 3, 6, "decoder size H != encoder size D"),
    ([4, 2, 3], 4, 4, 5, 5, "H = D: W_a and its transpose both fit, only one is right"),
    ([2, 6, 5], 6, 1, 4, 2, "one decoder step"),
    ([3, 1], 5, 5, 3, 4, "a source of length 1; padded beyond the longest source"),
    ([6, 4, 6, 2], 6, 3, 2, 3, "the longest source not first"),
    ([4, 3, 4], 4, 6, 4, 4, "T=6 steps, H = D"),
    ([5, 5], 5, 4, 3, 5, "no padding"),
]


def _luong_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    for lengths, steps, target_steps, hidden, width, about in LUONG_SETTINGS:
        encoder_states, mask = _padded_memory(generator, lengths, steps, width)
        padded = f"; {PADDED}" if min(lengths) < steps else ""
        yield Case(
            (
                float64_normal(generator, len(lengths), target_steps, hidden),
                encoder_states,
                mask,
                float64_normal(generator, hidden, width, scale=0.5),
                float64_normal(generator, hidden, width + hidden, scale=0.5),
            ),
            description=f"{about}: lengths {lengths}, S={steps}, T={target_steps}, H={hidden}, "
            f"D={width}{padded}",
        )


register(
    Question(
        id="ch04.q2",
        title="Luong's general score and the attentional state",
        points=2,
        answer_name="luong_attention",
        reference=_luong_reference,
        make_cases=_luong_cases,
        forbidden=(GeneralAttention, Attention, masked_softmax, LuongDecoder),
        output_names=("attentional_states", "weights"),
    )
)


# ch04.q3: the weights of local-p attention --------------------------------------------------


def _local_p_reference(
    query: Tensor,
    encoder_states: Tensor,
    lengths: Tensor,
    W_p: Tensor,
    v_p: Tensor,
    half_width: int,
) -> tuple[Tensor, Tensor]:
    """Luong's predictive local attention with the dot score: ``p_t = n_b sigmoid(v_p^T
    tanh(W_p s_t))`` and ``a_t(s) = softmax(s_t^T h_s over the window |s - p_t| <= D, s < n_b)
    * exp(-(s - p_t)^2 / (2 (D/2)^2))``, 0 elsewhere: ``coursekit.models.LocalAttention``."""
    hidden_size, query_size = W_p.shape
    local = LocalAttention(DotAttention(), half_width, "predictive", query_size, hidden_size)
    local = local.double()
    local.load_state_dict(
        {"position_projection.weight": W_p, "position_energy.weight": v_p.unsqueeze(0)}
    )
    mask = padding_mask(lengths, max_len=encoder_states.shape[1])
    with torch.no_grad():
        _, weights = local(query, encoder_states, encoder_states, mask)
        centres = local.window_centres(query.unsqueeze(1), lengths, None).squeeze(1)
    return centres, weights


#: What the padded cases of local-p attention say about their padding.
LOCAL_PADDED = f"padding: {PADDING_SCALE:g} * sign(s_t), all the weight of a window not cut at n_b"
#: (lengths, S, H, A, D, where the windows sit, what the case exercises): "random" v_p, "edges"
#: a large random v_p (p_t near 0 or n_b), "end" v_p aligned with every query (p_t near n_b,
#: the window reaching past the source's last word).
LOCAL_SETTINGS = [
    ([9, 6, 8], 9, 4, 3, 2, "random", "D=2"),
    ([10, 4], 10, 3, 5, 1, "random", "D=1: at most 3 positions in the window"),
    ([7, 9, 5], 9, 5, 4, 3, "edges", "sigmoid saturated: windows at the start or end"),
    ([12, 8, 11, 5], 12, 4, 4, 2, "end", "windows at the end of each source, reaching past it"),
    ([6, 3], 8, 3, 3, 4, "random", "D=4 wider than the short source; padded beyond the longest"),
    ([5, 9, 7], 9, 4, 3, 3, "end", "windows at the end of each source, reaching past it"),
    ([8, 8, 8], 8, 4, 4, 2, "random", "no padding"),
]


def _position_weights(
    generator: torch.Generator, queries: Tensor, W_p: Tensor, placement: str
) -> Tensor:
    """``v_p`` for the placement of the windows: random, large (p_t near 0 or n_b), or along
    the mean of ``tanh(W_p s_t)`` over the batch, so that every ``p_t`` is close to ``n_b``."""
    if placement == "end":
        direction = torch.tanh(queries @ W_p.T).mean(dim=0)
        return 6.0 * direction / direction.norm() ** 2
    scale = 4.0 if placement == "edges" else 0.5
    return float64_normal(generator, W_p.shape[0], scale=scale)


def _local_p_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    for lengths, steps, hidden, position_size, half_width, placement, about in LOCAL_SETTINGS:
        encoder_states, mask = _padded_memory(generator, lengths, steps, hidden)
        queries = float64_normal(generator, len(lengths), hidden)
        if placement == "end":
            queries = queries[:1] + 0.1 * queries  # similar queries, so one v_p suits them all
        # padded states along each query: a missing mask gives them all the weight
        along_query = PADDING_SCALE * torch.sign(queries).unsqueeze(1).expand_as(encoder_states)
        encoder_states = torch.where(mask.unsqueeze(-1), along_query, encoder_states)
        W_p = float64_normal(generator, position_size, hidden)
        padded = f"; {LOCAL_PADDED}" if min(lengths) < steps else ""
        yield Case(
            (
                queries,
                encoder_states,
                torch.tensor(lengths),
                W_p,
                _position_weights(generator, queries, W_p, placement),
                half_width,
            ),
            description=f"{about}: lengths {lengths}, S={steps}, H={hidden}, D={half_width}, "
            f"sigma = D/2 = {half_width / 2:g}{padded}",
        )


register(
    Question(
        id="ch04.q3",
        title="The weights of local-p attention",
        points=2,
        answer_name="local_p_weights",
        reference=_local_p_reference,
        make_cases=_local_p_cases,
        forbidden=(LocalAttention, Attention, masked_softmax),
        output_names=("centres", "weights"),
    )
)


# ch04.q4: one step of beam search -----------------------------------------------------------


def _beam_step_reference(
    log_prob_sums: Tensor,
    lengths: Tensor,
    finished: Tensor,
    log_probs: Tensor,
    state: Tensor,
    eos: int,
    alpha: float,
) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    """The k best of each input's candidates by ``log P / ((5 + n) / 6) ** alpha``, best first:
    an unfinished beam ``i`` extended by every token ``v`` (sum ``+ log_probs[b, i, v]``,
    length ``+ 1``), a finished beam only by eos at no cost (sum and length unchanged). The
    state's rows follow their beams: new row ``b k + i`` is old row ``b k + origin``. The
    ranking and the finished beams are those of ``coursekit.generate.search.beam_step``."""
    batch_size, beams, _ = log_probs.shape
    step = beam_step(log_probs, log_prob_sums, lengths, finished, eos, alpha)
    rows = torch.arange(batch_size).unsqueeze(1) * beams + step.origin
    return (
        step.log_prob_sums,
        step.lengths,
        step.finished,
        step.tokens,
        state.index_select(0, rows.flatten()),
    )


def _random_log_probs(generator: torch.Generator, *shape: int) -> Tensor:
    """Log-probabilities ``log_softmax(z)`` of random logits ``z ~ N(0, 2^2)``, last dim V."""
    return torch.log_softmax(float64_normal(generator, *shape, scale=2.0), dim=-1)


#: (B, k, V, eos, alpha, fraction of finished beams, first step?, what the case exercises)
BEAM_SETTINGS = [
    (2, 3, 6, 0, 0.0, 0.0, True, "first step: only beam 0 holds <bos> (the others are -inf)"),
    (3, 3, 7, 1, 0.6, 0.0, False, "no beam finished: the state's rows follow their beams"),
    (2, 4, 5, 2, 0.6, 0.5, False, "finished beams keep competing: only eos, at no cost"),
    (3, 4, 6, 0, 1.0, 0.5, False, "alpha=1: rank by log P / ((5 + n) / 6), not by log P"),
    (2, 5, 8, 3, 0.6, 0.4, False, "finished and unfinished beams of very different lengths"),
    (2, 5, 5, 4, 1.0, 1.0, False, "every beam finished: none grows, they are only re-sorted"),
    (3, 4, 6, 5, 2.0, 0.25, False, "alpha=2: long hypotheses favoured"),
    (4, 1, 6, 1, 0.0, 0.25, False, "one beam: greedy decoding"),
]


def _beam_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    for batch, beams, vocab, eos, alpha, finished_share, first, about in BEAM_SETTINGS:
        if first:
            sums = torch.full((batch, beams), -math.inf, dtype=torch.float64)
            sums[:, 0] = 0.0
            lengths = torch.zeros(batch, beams, dtype=torch.long)
            finished = torch.zeros(batch, beams, dtype=torch.bool)
        else:  # short and long hypotheses, about 0.5 to 1 nat per token
            lengths = torch.randint(2, 15, (batch, beams), generator=generator)
            per_token = 0.5 + 0.5 * torch.rand(batch, beams, generator=generator)
            sums = (-per_token * lengths).to(torch.float64)
            finished = torch.rand(batch, beams, generator=generator) < finished_share
            finished[:, 0] = finished_share > 0  # at least one finished beam where asked
        yield Case(
            (
                sums,
                lengths,
                finished,
                _random_log_probs(generator, batch, beams, vocab),
                float64_normal(generator, batch * beams, 3),
                eos,
                alpha,
            ),
            description=f"{about}; B={batch}, k={beams}, V={vocab}, eos={eos}, alpha={alpha:g}",
        )


register(
    Question(
        id="ch04.q4",
        title="One step of beam search",
        points=2,
        answer_name="beam_step",
        reference=_beam_step_reference,
        make_cases=_beam_cases,
        forbidden=(
            beam_search,
            beam_step,
            only_eos,
            gnmt_length_penalty,
            reorder_state,
            repeat_state,
        ),
        output_names=("log_prob_sums", "lengths", "finished", "tokens", "state"),
    )
)


# ch04.q5: greedy pointer decoding without repeats -------------------------------------------


def _pointer_decode_reference(
    encoder_states: Tensor, lengths: Tensor, start: Tensor, W_1: Tensor, W_2: Tensor, v: Tensor
) -> Tensor:
    """Greedy decoding over input positions: ``C_i = argmax_j u^i_j`` over the positions
    ``j < n_b`` not chosen before, ``u^i_j = v^T tanh(W_1 e_j + W_2 d_i)``, ``d_1 = start``
    and ``d_i = e_{C_{i-1}}``; ``n_b`` steps, then -1 (a LongTensor ``[B, S]``)."""
    batch_size, steps, _ = encoder_states.shape
    keys = encoder_states @ W_1.T  # W_1 e_j, [B, S, A]
    unavailable = padding_mask(lengths, max_len=steps)
    positions = torch.full((batch_size, steps), -1, dtype=torch.long)
    decoder_state = start.expand(batch_size, -1)
    rows = torch.arange(batch_size)
    for step in range(steps):
        scores = torch.tanh(keys + (decoder_state @ W_2.T).unsqueeze(1)) @ v  # u^i, [B, S]
        choice = scores.masked_fill(unavailable, -math.inf).argmax(dim=-1)
        active = step < lengths
        positions[active, step] = choice[active]
        unavailable = unavailable.clone()
        unavailable[rows[active], choice[active]] = True
        decoder_state = encoder_states[rows, choice]
    return positions


def _pointer_padding(W_1: Tensor, v: Tensor, size: float = 20.0) -> Tensor:
    """An encoder state ``e`` with ``W_1 e = size * sign(v)``: ``tanh`` of it is close to
    ``sign(v)`` whatever the decoder adds, so its score is close to the largest possible,
    ``|v|_1``, and a decoder that does not mask the padding points at it."""
    return torch.linalg.pinv(W_1) @ (size * torch.sign(v))


#: (lengths, S, H, A, what the case exercises)
POINTER_SETTINGS = [
    ([5, 3, 4], 5, 4, 3, "batch 3"),
    ([6, 2], 6, 5, 4, "a sequence of length 2"),
    ([3, 7, 5], 7, 3, 3, "the longest sequence not first"),
    ([4, 1, 3], 6, 4, 2, "a sequence of length 1; padded beyond the longest"),
    ([8, 6], 8, 6, 5, "S=8"),
    ([5, 5, 5], 5, 4, 3, "no padding: every position exactly once"),
]


def _pointer_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    for lengths, steps, hidden, attention_size, about in POINTER_SETTINGS:
        W_1 = float64_normal(generator, attention_size, hidden)
        v = float64_normal(generator, attention_size)
        encoder_states, mask = _padded_memory(generator, lengths, steps, hidden)
        encoder_states[mask] = _pointer_padding(W_1, v)
        encoder_states[:, 0] *= 3.0  # a loud first word, which an unmasked decoder repeats
        padded = (
            "; padding scores near the maximum (unmasked, it wins)" if min(lengths) < steps else ""
        )
        yield Case(
            (
                encoder_states,
                torch.tensor(lengths),
                float64_normal(generator, hidden),
                W_1,
                float64_normal(generator, attention_size, hidden),
                v,
            ),
            description=f"{about}: lengths {lengths}, S={steps}, H={hidden}, A={attention_size}; "
            f"a loud first word (unblocked, it wins again){padded}",
        )


register(
    Question(
        id="ch04.q5",
        title="Pointer decoding without repeats",
        points=2,
        answer_name="pointer_decode",
        reference=_pointer_decode_reference,
        make_cases=_pointer_cases,
        forbidden=(PointerNetwork,),
    )
)


# ch04.q6: how often attention points at the aligned word (a measurement) --------------------


def _alignment_accuracy_reference(weights: Tensor, alignments: list[list[list[int]]]) -> float:
    """The share of aligned target words whose attention peaks on a source word they align
    with: over the target steps ``i`` of example ``b`` with ``A_b(i)`` not empty,
    ``argmax_j weights[b, i, j] in A_b(i)``, pooled over the batch (not averaged per example).
    Target steps past ``len(alignments[b])`` are padding."""
    correct = counted = 0
    for weight_rows, alignment in zip(weights, alignments, strict=False):
        peaks = weight_rows[: len(alignment)].argmax(dim=-1).tolist()
        for peak, aligned in zip(peaks, alignment, strict=True):
            if aligned:
                counted += 1
                correct += peak in aligned
    return correct / counted


def _attention_like(
    generator: torch.Generator,
    alignments: list[list[list[int]]],
    source_lengths: list[int],
    hit_rate: float,
) -> Tensor:
    """Attention weights ``[B, T, S]`` (T, S the longest target and source) for the aligned
    pairs: each real target step peaks on the last of its aligned words with probability
    ``hit_rate`` ("vingt" of "quatre vingt" for "eighty"), on a uniformly drawn source word
    otherwise; rows sum to 1 over the real source words, 0 on padded ones; padded target steps
    hold uniform weights over all S."""
    batch, steps, positions = len(alignments), max(map(len, alignments)), max(source_lengths)
    weights = torch.full((batch, steps, positions), 1 / positions, dtype=torch.float64)
    for b, (alignment, length) in enumerate(zip(alignments, source_lengths, strict=True)):
        for i, aligned in enumerate(alignment):
            hit = aligned and float(torch.rand(1, generator=generator)) < hit_rate
            peak = aligned[-1] if hit else int(torch.randint(length, (1,), generator=generator))
            scores = float64_normal(generator, length)
            scores[peak] = scores.max() + 1.0 + float(torch.rand(1, generator=generator))
            weights[b, i] = 0.0
            weights[b, i, :length] = torch.softmax(scores, dim=-1)
    return weights


#: (source language, number of pairs, hit rate, what the case exercises)
ALIGNMENT_SETTINGS = [
    ("de", 6, 0.8, "German -> English: units before tens, the alignments cross"),
    ("fr", 6, 0.7, "French -> English: 'quatre vingt dix' aligns with 'ninety', any word counts"),
    ("fr", 10, 0.5, "10 pairs of very different lengths: pool the counts, do not average"),
    ("fr", 4, 0.9, "4 pairs"),
    ("de", 3, 0.3, "3 pairs, attention mostly elsewhere"),
    ("fr", 8, 0.6, "8 pairs"),
]


def _alignment_cases(rng: random.Random) -> Iterator[Case]:
    from coursekit.data import load

    generator = torch_generator(rng)
    for language, size, hit_rate, about in ALIGNMENT_SETTINGS:
        pairs = load(
            "numbers", split="test", n=size, seed=rng.randrange(10**6), source=language,
            target="en", alignments=True,
        )  # fmt: skip
        alignments = [pair.alignment for pair in pairs]
        source_lengths = [len(pair.source.split()) for pair in pairs]
        unaligned = sum(not aligned for alignment in alignments for aligned in alignment)
        yield Case(
            (_attention_like(generator, alignments, source_lengths, hit_rate), alignments),
            description=f"{about}; {unaligned} target words ('and', ...) align with nothing: "
            "leave them out",
        )


register(
    Question(
        id="ch04.q6",
        title="How often attention points at the aligned word",
        points=1,
        answer_name="alignment_accuracy",
        reference=_alignment_accuracy_reference,
        make_cases=_alignment_cases,
    )
)
