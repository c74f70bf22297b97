"""Chapter 4, Seq2seq and attention: the graded questions of
``exercises/04-seq2seq-attention.ipynb``.

Questions 1-3 transcribe equations the chapter prints (Bahdanau's additive attention, Luong's
general score with the attentional state, Luong's local-p weights) and are graded against the
modules of ``coursekit.models`` loaded with the case's weights. Questions 4 and 5 ask for
variants the chapter does not print: one step of beam search that never repeats a bigram (the
chapter prints ``beam_step`` without the constraint), and greedy pointer decoding that never
points twice at the same input (the chapter's pointer network may). Question 6 is an
experiment: the smallest scale of the scores at which softmax attention puts a given weight on
its best key, found by search. Attention questions are mostly padded, and padding holds large
values, so that a missing mask costs almost every test. A case built to catch one mistake says
so in its description, which the report prints when the case fails. Numbers are float64, so
the default tolerance is that of ``torch.testing.assert_close``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

import torch
import torch.nn.functional as F
from torch import Tensor

from coursekit.generate.search import beam_search, beam_step, gnmt_length_penalty, only_eos
from coursekit.grading.bank.draws import float64_normal, torch_generator
from coursekit.grading.questions import Case, Question, register
from coursekit.models.seq2seq.attention import (
    AdditiveAttention,
    Attention,
    DotAttention,
    GeneralAttention,
    masked_softmax,
)
from coursekit.models.seq2seq.decoders import LuongDecoder
from coursekit.models.seq2seq.local_attention import LocalAttention
from coursekit.models.seq2seq.pointer import PointerNetwork
from coursekit.text import padding_mask

#: The size of the noise in padded encoder states: a missing mask lets it in.
PADDING_SCALE = 1000.0
#: What every masked case says about its padding.
PADDED = (
    f"padding: noise of size {PADDING_SCALE:g}, True in the mask (a missing mask reads it); "
    "each row of weights sums to 1 over the real positions"
)


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
            description=f"{about}: lengths {lengths} padded to {steps}, Dq={query_size}, "
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
            description=f"{about}: lengths {lengths} padded to {steps}, T={target_steps}, H={hidden}, "
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
LOCAL_PADDED = (
    f"padding: {PADDING_SCALE:g} * sign(s_t), all the weight of a window not cut at the source's "
    "length S_b; p_t uses S_b, not the padded width"
)
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
            description=f"{about}: lengths {lengths} padded to {steps}, H={hidden}, D={half_width}, "
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


# ch04.q4: one step of beam search that never repeats a bigram ---------------------------------


def repeated_bigrams(history: Tensor, vocab_size: int) -> Tensor:
    """``[B, k, V]``, True where token ``v`` after the beam's last token ``a`` would repeat a
    bigram ``(a, v)`` already in its ``history [B, k, t]``."""
    follows_last = history[..., :-1] == history[..., -1:]  # history[s] = a, [B, k, t - 1]
    next_tokens = F.one_hot(history[..., 1:], vocab_size).bool()  # history[s + 1], one-hot
    return (next_tokens & follows_last.unsqueeze(-1)).any(dim=2)


def _no_repeat_reference(
    log_prob_sums: Tensor,
    lengths: Tensor,
    finished: Tensor,
    log_probs: Tensor,
    history: Tensor,
    eos: int,
    alpha: float,
) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    """``coursekit.generate.search.beam_step`` on the log-probabilities of an unfinished beam
    with every token that would repeat one of its bigrams set to ``-inf`` (a finished beam's one
    continuation, eos at no cost, is unchanged), and the histories ``[B, k, t + 1]`` of the kept
    beams: the history of the beam each continues, then its new token. A kept candidate whose sum
    is -inf is finished, as in ``beam_step``; no case keeps one, since which of the equal -inf
    candidates fill the places is a tie that ``topk`` and ``sort`` break differently."""
    banned = repeated_bigrams(history, log_probs.shape[-1]) & ~finished.unsqueeze(-1)
    step = beam_step(
        log_probs.masked_fill(banned, -math.inf), log_prob_sums, lengths, finished, eos, alpha
    )
    kept = history.gather(1, step.origin.unsqueeze(-1).expand(-1, -1, history.shape[-1]))
    new_history = torch.cat([kept, step.tokens.unsqueeze(-1)], dim=-1)
    return step.log_prob_sums, step.lengths, step.finished, step.tokens, new_history


def _random_log_probs(generator: torch.Generator, *shape: int) -> Tensor:
    """Log-probabilities ``log_softmax(z)`` of random logits ``z ~ N(0, 2^2)``, last dim V."""
    return torch.log_softmax(float64_normal(generator, *shape, scale=2.0), dim=-1)


#: The notes of the cases that catch one mistake each (the bank's tests use them).
BIGRAM_BANNED = "the best continuation of each unfinished beam repeats one of its bigrams"
FINISHED_STAY = "finished beams keep competing: their one continuation is eos at no cost"
BAN_BEFORE_EOS_ONLY = (
    "a finished beam's bigrams ban nothing: its history ends eos, eos, so a ban applied after "
    "its row is set to eos-only removes its one continuation"
)
HISTORY_FOLLOWS = "the kept beams come from other beams: each history follows its beam"
RANKED_NORMALISED = (
    "alpha=1: rank by log P / ((5 + n) / 6), not by log P: the short finished beams lead by log P "
    "alone"
)
LAST_BIGRAM = "a history ending a, a: the bigram (a, a) is already in it, so a may not follow"
#: (B, k, V, t, eos, alpha, share of finished beams, what the case exercises)
NO_REPEAT_SETTINGS = [
    (2, 3, 6, 4, 0, 0.0, 0.0, f"{BIGRAM_BANNED}; alpha=0"),
    (3, 3, 7, 5, 1, 0.6, 0.0, f"{HISTORY_FOLLOWS}; no beam finished"),
    (2, 4, 6, 5, 2, 0.0, 0.5, f"{FINISHED_STAY}; {BAN_BEFORE_EOS_ONLY}; alpha=0"),
    (3, 4, 6, 6, 0, 1.0, 0.25, RANKED_NORMALISED),
    (2, 5, 8, 7, 3, 0.6, 0.4, "finished and unfinished beams, long histories"),
    (4, 1, 6, 4, 1, 0.0, 0.0, f"one beam: greedy decoding, {BIGRAM_BANNED}"),
    (2, 3, 9, 3, 4, 2.0, 0.4, "short histories: at most two bigrams each, some finished; alpha=2"),
    (3, 3, 6, 5, 1, 0.6, 0.0, f"{LAST_BIGRAM}, and a is each beam's favourite; no beam finished"),
]


def _ahead_by_log_p_only(
    sums: Tensor,
    lengths: Tensor,
    finished: Tensor,
    log_probs: Tensor,
    history: Tensor,
    alpha: float,
) -> Tensor:
    """``sums`` with each finished beam's sum ``L`` between ``c`` and ``c lp(n) / lp(t + 1)``,
    ``c`` the k-th best sum of its input's allowed unfinished candidates (length ``t + 1``): by
    ``L`` alone the finished beam is kept, by ``L / lp(n)`` it is not."""
    banned = repeated_bigrams(history, log_probs.shape[-1]) | finished.unsqueeze(-1)
    unfinished = (sums.unsqueeze(-1) + log_probs).masked_fill(banned, -math.inf)
    kth_best = unfinished.flatten(1).topk(sums.shape[1], dim=-1).values[:, -1:]  # [B, 1]
    grown = gnmt_length_penalty(torch.full_like(sums, history.shape[-1] + 1), alpha)
    ratio = gnmt_length_penalty(lengths.to(sums.dtype), alpha) / grown
    return torch.where(finished, kth_best * (1 + ratio) / 2, sums)


def _random_history(
    rng: random.Random, tokens: list[int], steps: int, ends_twice: bool
) -> list[int]:
    """``steps`` tokens drawn from ``tokens``; with ``ends_twice``, a history that ends ``a, a``
    and holds ``a`` nowhere else, so that ``(a, a)`` is only its most recent bigram."""
    if not ends_twice:
        return rng.choices(tokens, k=steps)
    last = rng.choice(tokens)
    return rng.choices([token for token in tokens if token != last], k=steps - 2) + [last] * 2


def _no_repeat_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    for batch, beams, vocab, steps, eos, alpha, finished_share, about in NO_REPEAT_SETTINGS:
        tokens = [token for token in range(vocab) if token != eos]
        ends_twice = LAST_BIGRAM in about
        history = torch.tensor(
            [
                [_random_history(rng, tokens, steps, ends_twice) for _ in range(beams)]
                for _ in range(batch)
            ]
        )
        finished = torch.rand(batch, beams, generator=generator) < finished_share
        if finished_share > 0:
            finished[:, 0] = True  # at least one finished beam where asked
        lengths = torch.full((batch, beams), steps, dtype=torch.long)
        for b, i in finished.nonzero().tolist():  # it produced eos at step n, then eos again
            lengths[b, i] = rng.randint(2, steps - 1)
            history[b, i, lengths[b, i] - 1 :] = eos
        # finished beams are short but worse per token: raw sums favour them, lp(n) may not
        per_token = 0.45 + 0.1 * torch.rand(batch, beams, generator=generator) + 0.45 * finished
        sums = (-per_token * lengths).to(torch.float64)
        log_probs = _random_log_probs(generator, batch, beams, vocab)
        if BIGRAM_BANNED in about:  # make a banned token each unfinished beam's favourite
            banned = repeated_bigrams(history, vocab) & ~finished.unsqueeze(-1)
            log_probs = torch.where(banned, log_probs + 6.0, log_probs)
        if ends_twice:  # make the last token a, banned after a, each beam's favourite
            log_probs = log_probs + 6.0 * F.one_hot(history[..., -1], vocab)
        if about == RANKED_NORMALISED:
            sums = _ahead_by_log_p_only(sums, lengths, finished, log_probs, history, alpha)
        yield Case(
            (sums, lengths, finished, log_probs, history, eos, alpha),
            description=f"{about}; B={batch}, k={beams}, V={vocab}, t={steps}, eos={eos}",
        )


register(
    Question(
        id="ch04.q4",
        title="Beam search that never repeats a bigram",
        points=2,
        answer_name="beam_step_no_repeat",
        reference=_no_repeat_reference,
        make_cases=_no_repeat_cases,
        forbidden=(beam_search, beam_step, only_eos, gnmt_length_penalty, repeated_bigrams),
        output_names=("log_prob_sums", "lengths", "finished", "tokens", "history"),
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


#: What the decoder reads: the note of the cases that catch a wrong feedback.
FEEDS_BACK = "d_1 = start, then d_i = e_{C_{i-1}}: the state of the position chosen last"
#: (lengths, S, H, A, what the case exercises)
POINTER_SETTINGS = [
    ([5, 3, 4], 5, 4, 3, f"batch 3; {FEEDS_BACK}"),
    ([6, 2], 6, 5, 4, f"a sequence of length 2; {FEEDS_BACK}"),
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
            "; padding scores near the maximum (unmasked, it wins: choose among j < n_b only)"
            if min(lengths) < steps
            else ""
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
            description=f"{about}: lengths {lengths} padded to {steps}, H={hidden}, A={attention_size}; "
            f"a loud first word (unblocked, it wins again: each position is chosen once){padded}",
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


# ch04.q6: how sharp must attention be to act as a lookup (an experiment) ----------------------


def _largest_weight(query: Tensor, keys: Tensor, scale: float) -> float:
    """``max_j softmax_j(scale * q . k_j)``: the weight of the best-matching key."""
    return float(torch.softmax(scale * (keys @ query), dim=-1).max())


def _lookup_scale_reference(queries: Tensor, keys: Tensor, threshold: float) -> Tensor:
    """For each row ``b``, the smallest scale ``c >= 0`` with ``max_j softmax_j(c q_b . k_bj)
    >= threshold``: 0 when uniform weights already reach it (``1 / n >= threshold``), ``inf``
    when no scale does (``m`` keys tie for the largest score, so the weights tend to ``1 / m <
    threshold``); otherwise found by bisection (the largest weight grows with ``c``) to a
    relative width of 1e-12."""
    scales = []
    for query, row_keys in zip(queries, keys, strict=True):
        scores = row_keys @ query
        ties = int((scores == scores.max()).sum())
        if 1 / len(scores) >= threshold:
            scales.append(0.0)
            continue
        if 1 / ties < threshold:
            scales.append(math.inf)
            continue
        low, high = 0.0, 1.0
        while _largest_weight(query, row_keys, high) < threshold:
            low, high = high, 2 * high
        while high - low > 1e-12 * high:
            middle = (low + high) / 2
            low, high = (
                (middle, high)
                if _largest_weight(query, row_keys, middle) < threshold
                else (low, middle)
            )
        scales.append((low + high) / 2)
    return torch.tensor(scales, dtype=torch.float64)


#: The keys and values of the chapter's worked example (section 4.7): keys 3 and 4 are equal.
EXAMPLE_KEYS = [[10.0, 0, 0], [0, 10, 0], [0, 0, 10], [0, 0, 10]]
#: (what the case exercises, threshold): no threshold is 1/m for m keys tied for the largest
#: score (nor 1/n, where all n tie at scale 0), the limit of the largest weight, which in floating
#: point is reached or not by rounding.
LOOKUP_SETTINGS = [
    ("the chapter's worked example, queries [0, 10, 0] and [0, 0, 10]", 0.99),
    ("random queries and keys, n = 6, d = 4", 0.9),
    ("random queries and keys, n = 10, d = 8", 0.5),
    ("a threshold below 1/n = 0.2: uniform weights reach it, scale 0", 0.15),
    ("random queries and keys, n = 3, d = 2, a threshold close to 1", 0.999),
]


def _lookup_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    for about, threshold in LOOKUP_SETTINGS:
        if about.startswith("the chapter"):
            keys = torch.tensor([EXAMPLE_KEYS, EXAMPLE_KEYS], dtype=torch.float64)
            queries = torch.tensor([[0.0, 10, 0], [0, 0, 10]], dtype=torch.float64)
            about += ": keys 3 and 4 tie for the second query, whose weights tend to 1/2"
        elif about.startswith("a threshold"):
            keys, queries = float64_normal(generator, 3, 5, 4), float64_normal(generator, 3, 4)
        else:
            size, width = (6, 4) if "n = 6" in about else (10, 8) if "n = 10" in about else (3, 2)
            keys = float64_normal(generator, 4, size, width)
            queries = float64_normal(generator, 4, width)
        yield Case(
            (queries, keys, threshold),
            description=f"{about}; threshold {threshold:g}",
            rtol=1e-6,
            atol=1e-9,
        )


register(
    Question(
        id="ch04.q6",
        title="How sharp attention must be to act as a lookup",
        points=2,
        answer_name="lookup_scale",
        reference=_lookup_scale_reference,
        make_cases=_lookup_cases,
    )
)
