"""Generating text with a language model: greedy decoding and sampling (Chapter 2).

A language model gives scores (logits) o for the next token; dividing them by a temperature
tau > 0 before the softmax reshapes the distribution,

    P_tau(v) = exp(o_v / tau) / sum_w exp(o_w / tau),

sharper for tau < 1 (tau -> 0 is greedy decoding, the argmax) and flatter for tau > 1. Top-k
sampling keeps only the k most probable tokens; top-p (nucleus) sampling keeps the smallest set
of most probable tokens whose probabilities add up to at least p. Either way the kept
probabilities are renormalised before a token is drawn.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from coursekit.arguments import (
    require_fraction,
    require_non_negative_int,
    require_non_negative_number,
    require_positive_int,
)
from coursekit.runtime import evaluating, model_device


def require_sampling_arguments(temperature: float, top_k: int | None, top_p: float | None) -> None:
    """Reject a negative temperature, ``top_k < 1`` and ``top_p`` outside ``(0, 1]``."""
    require_non_negative_number("temperature", temperature)
    if top_k is not None:
        require_positive_int("top_k", top_k)
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError(f"top_p must be in (0, 1] (or None to keep every token), got {top_p!r}")


def require_logits(logits: Tensor) -> None:
    """Reject anything but floating-point scores of shape ``[V]`` or ``[B, V]``."""
    if logits.dim() not in (1, 2) or not logits.is_floating_point():
        raise ValueError(
            "logits must be floating-point scores of shape [V] or [B, V], got shape "
            f"{tuple(logits.shape)} and dtype {logits.dtype}; for a language model's output "
            "[B, T, V] pass the last step, logits[:, -1]"
        )


def top_k_filter(scores: Tensor, k: int) -> Tensor:
    """Keep the k largest scores of the last dimension and set the others to -inf.

    Scores tied with the k-th largest are kept too; ``k`` larger than the vocabulary keeps all.
    """
    k = min(k, scores.shape[-1])
    kth_largest = torch.topk(scores, k, dim=-1).values[..., -1:]
    return scores.masked_fill(scores < kth_largest, -math.inf)


def top_p_filter(scores: Tensor, p: float) -> Tensor:
    """Keep the smallest set of most probable tokens whose probabilities add up to >= p.

    With the probabilities sorted in decreasing order, q_(1) >= q_(2) >= ..., token (i) is kept
    when the mass before it, q_(1) + ... + q_(i-1), is still below p; the most probable token is
    always kept; p = 1 keeps every token. The other scores become -inf.
    """
    if p >= 1:
        return scores
    sorted_scores, order = torch.sort(scores, dim=-1, descending=True)
    sorted_probs = torch.softmax(sorted_scores, dim=-1)
    mass_before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
    drop_sorted = mass_before >= p
    drop_sorted[..., 0] = False
    drop = drop_sorted.scatter(-1, order, drop_sorted)
    return scores.masked_fill(drop, -math.inf)


def sampling_distribution(
    logits: Tensor,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
) -> Tensor:
    """The distribution a token is drawn from: softmax(o / tau), then top-k, then top-p.

    ``logits`` is ``[V]`` or ``[B, V]``; the result has the same shape, in float32 or wider,
    and sums to 1 over the last dimension. ``temperature=0`` is the limit tau -> 0: all the
    mass on the argmax.
    """
    require_sampling_arguments(temperature, top_k, top_p)
    require_logits(logits)
    scores = logits.to(torch.promote_types(logits.dtype, torch.float32))
    if temperature == 0:
        return nn.functional.one_hot(scores.argmax(dim=-1), scores.shape[-1]).to(scores.dtype)
    scores = scores / temperature
    if top_k is not None:
        scores = top_k_filter(scores, top_k)
    if top_p is not None:
        scores = top_p_filter(scores, top_p)
    return torch.softmax(scores, dim=-1)


def sample_next_token(
    logits: Tensor,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    generator: torch.Generator | None = None,
    greedy: bool = False,
) -> Tensor:
    """Draw the next token from :func:`sampling_distribution` (Chapter 2).

    ``greedy=True`` or ``temperature=0`` returns the argmax of ``logits`` instead. Returns a
    LongTensor of shape ``[]`` for logits ``[V]`` and ``[B]`` for logits ``[B, V]``, on the
    logits' device. Draws come from ``generator`` (on its own device) when one is given, so a
    seeded CPU generator repeats the same tokens wherever the model runs.
    """
    require_sampling_arguments(temperature, top_k, top_p)
    require_logits(logits)
    if greedy or temperature == 0:
        return logits.argmax(dim=-1)
    probabilities = sampling_distribution(logits, temperature, top_k, top_p)
    draw_device = probabilities.device if generator is None else generator.device
    rows = probabilities.reshape(-1, probabilities.shape[-1]).to(draw_device)
    tokens = torch.multinomial(rows, 1, generator=generator)
    return tokens.reshape(logits.shape[:-1]).to(logits.device)


def choose_greedy(greedy_probability: float, generator: torch.Generator | None) -> bool:
    """True with probability ``greedy_probability``: the coin of the greedy/sampling mixture.

    The coin is only tossed when 0 < p < 1, so p = 0 draws exactly the tokens plain sampling
    draws with the same generator.
    """
    if greedy_probability in (0.0, 1.0):
        return greedy_probability == 1.0
    device = None if generator is None else generator.device
    return bool(torch.rand((), generator=generator, device=device) < greedy_probability)


def generate(
    model: nn.Module,
    prompt_ids: list[int],
    max_new_tokens: int,
    *,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    greedy_probability: float = 0.0,
    generator: torch.Generator | None = None,
    stop_id: int | None = None,
) -> list[int]:
    """Continue ``prompt_ids`` with up to ``max_new_tokens`` tokens (Chapter 2).

    ``model(tokens [1, T], state) -> (logits [1, T, V], state)`` is any model with the interface of
    :class:`coursekit.models.recurrent.language_model.RecurrentLanguageModel`. The prompt is read
    once; then each new token x_t is drawn from the last logits (see :func:`sample_next_token`) and
    fed back alone together with the recurrent state, so each step costs one step of the network.
    With ``greedy_probability=p`` each step takes the argmax with probability p and samples
    otherwise (p = 1 is greedy decoding). Generation ends after ``stop_id``, which is kept as the
    last token so that a finished text can be told from one cut at ``max_new_tokens``. Returns the
    new tokens only; the model runs in eval mode without gradients and is given back in the mode it
    was in.
    """
    require_sampling_arguments(temperature, top_k, top_p)
    if len(prompt_ids) == 0:
        raise ValueError("generation needs a prompt of at least one token to condition on")
    require_non_negative_int("max_new_tokens", max_new_tokens)
    require_fraction("greedy_probability", greedy_probability)
    device = model_device(model)
    new_tokens: list[int] = []
    with evaluating(model):
        prompt = torch.tensor([prompt_ids], dtype=torch.long, device=device)
        logits, state = model(prompt, None)
        for _ in range(max_new_tokens):
            greedy = choose_greedy(greedy_probability, generator)
            token = sample_next_token(
                logits[0, -1], temperature, top_k, top_p, generator=generator, greedy=greedy
            )
            new_tokens.append(int(token))
            if new_tokens[-1] == stop_id or len(new_tokens) == max_new_tokens:
                break
            logits, state = model(token.reshape(1, 1), state)
    return new_tokens
