"""Searching for the most probable output: greedy decoding and beam search (Chapter 4,
Seq2seq and attention).

Greedy decoding takes the single most probable token at each step,

    y_t = argmax_v log P(y_t = v | y_<t, x),   t = 1, 2, ... until y_t = <eos> or t = max_len:

fast, but a choice is never revisited, so a first token that looks best can lead to a worse
sentence than a second-best start would have. Beam search keeps the k best partial outputs: at
step t each of the k hypotheses y_<t of an input is extended by every token v, scored by

    score(y_<t v) = log P(y_<t v | x) / lp(|y_<t v|),   log P(y | x) = sum_t log P(y_t | y_<t, x),
    lp(n) = ((5 + n) / 6) ** alpha                       (GNMT, Wu et al. 2016),

and the k best of the k * V candidates are kept. A hypothesis that has produced <eos> is
finished: it stops growing (its only continuation is itself, at no cost) but keeps its place
among the candidates, so a longer hypothesis must beat it to push it out. alpha = 0 ranks by
log-probability, which favours short outputs; alpha > 0 divides longer sums by more. One beam is
greedy decoding.

Both are batched: the k beams of the B inputs are the B * k rows of one call to the model's step
function per time step; no Python loop runs over hypotheses.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
from torch import Tensor

from coursekit.arguments import require_int, require_non_negative_number, require_positive_int
from coursekit.generate.step import (
    DecodingStep,
    Hypothesis,
    NestedTensors,
    as_hypotheses,
    checked_search,
    reorder_state,
    repeat_state,
)


def gnmt_length_penalty(lengths: Tensor, alpha: float) -> Tensor:
    """lp(n) = ((5 + n) / 6) ** alpha, GNMT's length normalisation (Chapter 4)."""
    return ((5.0 + lengths) / 6.0) ** alpha


def greedy_decode(
    step: DecodingStep, state: NestedTensors, bos: Tensor, eos: int, max_len: int
) -> list[Hypothesis]:
    """Greedy decoding of B inputs at once (Chapter 4): y_t = argmax_v log P(v | y_<t, x).

    ``step(tokens [N], state) -> (log_probs [N, V], state)`` is the model (see
    :class:`~coursekit.generate.step.DecodingStep`), ``state`` its initial state with the batch
    first, ``bos`` the ``[B]`` start tokens. Returns one :class:`Hypothesis` per input: its
    tokens (without bos, ending with eos unless ``max_len`` cut it) and the sum of their
    log-probabilities. A finished row is still fed to ``step`` (the batch moves together) but
    adds nothing. Equal to :func:`beam_search` with one beam.
    """
    step = checked_search(step, state, bos, eos, max_len)
    tokens, finished, lengths = bos, torch.zeros_like(bos, dtype=torch.bool), torch.zeros_like(bos)
    chosen, chosen_log_probs = [], []
    for _ in range(max_len):
        log_probs, state = step(tokens, state)
        best_log_prob, tokens = log_probs.max(dim=-1)
        chosen_log_probs.append(best_log_prob.masked_fill(finished, 0.0))
        lengths = lengths + (~finished).long()
        chosen.append(tokens)
        finished = finished | (tokens == eos)
        if bool(finished.all()):
            break
    scores = torch.stack(chosen_log_probs, dim=1).sum(dim=1)
    return as_hypotheses(torch.stack(chosen, dim=1), lengths, scores)


def only_eos(log_probs: Tensor, finished: Tensor, eos: int) -> Tensor:
    """``log_probs [B, k, V]`` where each finished beam may only repeat eos, at log-prob 0:
    its one continuation is the finished hypothesis itself.
    """
    stay = torch.full_like(log_probs, -math.inf)
    stay[..., eos] = 0.0
    return torch.where(finished.unsqueeze(-1), stay, log_probs)


def require_beam_arguments(beam_size: int, length_penalty: float, n_best: int) -> None:
    """Reject a ``beam_size`` below 1, ``n_best`` outside 1..beam_size, a negative alpha."""
    require_positive_int("beam_size", beam_size)
    require_int("n_best", n_best, minimum=1, maximum=beam_size)
    require_non_negative_number("length_penalty", length_penalty)


def best_hypotheses(
    tokens: Tensor, lengths: Tensor, scores: Tensor, n_best: int
) -> list[list[Hypothesis]]:
    """The ``n_best`` beams of each input (``tokens [B, k, L]``, ``lengths``, ``scores [B, k]``),
    best first, without the beams of probability 0.
    """
    results = []
    for beams, beam_lengths, beam_scores in zip(tokens, lengths, scores, strict=True):
        order = beam_scores.argsort(descending=True, stable=True)[:n_best]
        reachable = order[beam_scores[order] > -math.inf]
        results.append(
            as_hypotheses(beams[reachable], beam_lengths[reachable], beam_scores[reachable])
        )
    return results


class BeamStep(NamedTuple):
    """The k beams of each input after one step of beam search, best first (all ``[B, k]``):
    the beam each continues (``origin``), its new token, and its log-probability sum, length and
    finished flag."""

    origin: Tensor
    tokens: Tensor
    log_prob_sums: Tensor
    lengths: Tensor
    finished: Tensor


def beam_step(
    log_probs: Tensor,
    log_prob_sums: Tensor,
    lengths: Tensor,
    finished: Tensor,
    eos: int,
    alpha: float,
) -> BeamStep:
    """One step of beam search (Chapter 4): every beam i of input b with every token v is a
    candidate with sum ``log_prob_sums[b, i] + log_probs[b, i, v]`` and length ``lengths + 1``,
    except a finished beam, whose only candidate is eos at no cost (sum and length unchanged);
    the k candidates of largest ``sum / ((5 + length) / 6) ** alpha`` are kept, best first.
    A beam is finished once it produced eos, or when its probability is 0.
    """
    k, vocab_size = log_probs.shape[1], log_probs.shape[2]
    candidates = log_prob_sums.unsqueeze(-1) + only_eos(log_probs, finished, eos)  # [B, k, V]
    candidate_lengths = lengths + (~finished).long()  # finished beams do not grow
    penalty = gnmt_length_penalty(candidate_lengths.to(candidates.dtype), alpha)
    scores = candidates / penalty.unsqueeze(-1)
    best = scores.flatten(1).topk(k, dim=-1).indices  # [B, k], best first
    origin, tokens = best // vocab_size, best % vocab_size
    sums = candidates.flatten(1).gather(1, best)
    ended = finished.gather(1, origin) | (tokens == eos) | (sums == -math.inf)
    return BeamStep(origin, tokens, sums, candidate_lengths.gather(1, origin), ended)


def beam_search(
    step: DecodingStep,
    state: NestedTensors,
    bos: Tensor,
    eos: int,
    beam_size: int,
    max_len: int,
    length_penalty: float = 0.0,
    n_best: int = 1,
) -> list[list[Hypothesis]]:
    """Batched beam search over any model's ``step`` (Chapter 4, Seq2seq and attention).

    ``step(tokens [N], state) -> (log_probs [N, V], state)`` (see
    :class:`~coursekit.generate.step.DecodingStep`); every tensor of ``state`` has the batch
    first so that beams can be copied and reordered; ``bos`` is ``[B]``. Keeps ``beam_size``
    hypotheses per input for at most ``max_len`` steps, ranked by log P(y | x) / lp(|y|) with
    lp(n) = ((5 + n) / 6) ** length_penalty (|y| counts eos, not bos). Returns, for each input,
    its ``n_best`` hypotheses best first, each a :class:`Hypothesis` whose tokens omit bos and
    end with eos when it was produced. An input whose search space holds fewer than ``n_best``
    outputs of non-zero probability gets only those (a beam of probability 0 is dropped).
    """
    require_beam_arguments(beam_size, length_penalty, n_best)
    step = checked_search(step, state, bos, eos, max_len, beam_size)
    alpha = length_penalty
    batch_size, k = bos.shape[0], beam_size
    state = repeat_state(state, k)
    tokens = bos.repeat_interleave(k)
    log_prob_sums = torch.full((batch_size, k), -math.inf, device=bos.device)
    log_prob_sums[:, 0] = 0.0  # at first the k beams are copies of <bos>: keep only one
    lengths = torch.zeros_like(log_prob_sums, dtype=torch.long)
    finished = log_prob_sums == -math.inf  # an impossible beam is over: it never grows
    history = bos.new_empty(batch_size, k, 0)
    first_row_of_input = torch.arange(batch_size, device=bos.device).unsqueeze(1) * k
    for _ in range(max_len):
        log_probs, state = step(tokens, state)
        log_probs = log_probs.view(batch_size, k, -1)
        origin, tokens, log_prob_sums, lengths, finished = beam_step(
            log_probs, log_prob_sums, lengths, finished, eos, alpha
        )
        prefixes = history.gather(1, origin.unsqueeze(-1).expand_as(history))
        history = torch.cat([prefixes, tokens.unsqueeze(-1)], dim=-1)
        state = reorder_state(state, (first_row_of_input + origin).flatten())
        tokens = tokens.flatten()
        if bool(finished.all()):
            break
    scores = log_prob_sums / gnmt_length_penalty(lengths.to(log_prob_sums.dtype), alpha)
    return best_hypotheses(history, lengths, scores, n_best)
