"""Perplexity: how surprised a language model is by held-out text (Chapter 1, Text as sequences).

A language model assigns each token ``x_t`` a probability ``p(x_t | x_<t)``. Over ``N`` tokens
its negative log-likelihood (in nats) is ``NLL = -sum_t log p(x_t | x_<t)`` and its perplexity is

    PPL = exp(NLL / N),

the size of a uniform vocabulary that would be exactly as surprised: a model that spreads its
probability evenly over V words has PPL = V, a perfect model has PPL = 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from coursekit.runtime import evaluating, model_device, move_to_device

NLLFunction = Callable[[nn.Module, Any], tuple[torch.Tensor | float, int]]


def perplexity(total_nll: float | torch.Tensor, num_tokens: int) -> float:
    """``PPL = exp(NLL / N)`` from a summed negative log-likelihood in nats (Chapter 1).

    ``total_nll`` is ``-sum_t log p(x_t | x_<t)`` over ``num_tokens`` tokens (a float or a
    one-element tensor). Returns ``inf`` when the exponential overflows a float.
    """
    if num_tokens <= 0:
        raise ValueError(f"perplexity needs at least one token, got num_tokens={num_tokens}")
    nll = float(total_nll.detach()) if isinstance(total_nll, torch.Tensor) else float(total_nll)
    if math.isnan(nll) or nll < 0:
        raise ValueError(
            f"total_nll must be a negative log-likelihood (>= 0), got {nll}: pass -log p, not log p"
        )
    try:
        return math.exp(nll / num_tokens)
    except OverflowError:
        return math.inf


def perplexity_from_losses(token_losses: Sequence[float] | torch.Tensor) -> float:
    """``PPL = exp(mean_t loss_t)`` from the per-token losses ``-log p(x_t | x_<t)`` (Chapter 1).

    Pass the unreduced losses, e.g. ``F.cross_entropy(logits, targets, reduction="none")``.
    """
    losses = torch.as_tensor(token_losses, dtype=torch.float64).flatten()
    return perplexity(losses.sum(), losses.numel())


def token_nll(
    logits: torch.Tensor, targets: torch.Tensor, ignore_index: int | None = None
) -> tuple[torch.Tensor, int]:
    """The summed NLL ``-sum_t log softmax(logits_t)[y_t]`` and the number of tokens counted.

    Chapter 1, Text as sequences. ``logits`` has shape ``(..., V)`` and ``targets`` shape
    ``(...)``; targets equal to ``ignore_index`` (padding) add nothing to either number. This is
    the pair that :func:`evaluate_perplexity` sums over batches.
    """
    if logits.shape[:-1] != targets.shape:
        raise ValueError(
            f"logits of shape (..., V) need targets of shape (...): got logits "
            f"{tuple(logits.shape)} and targets {tuple(targets.shape)}"
        )
    flat_logits, flat_targets = logits.reshape(-1, logits.shape[-1]), targets.reshape(-1)
    if ignore_index is None:
        return F.cross_entropy(flat_logits, flat_targets, reduction="sum"), flat_targets.numel()
    summed = F.cross_entropy(flat_logits, flat_targets, reduction="sum", ignore_index=ignore_index)
    return summed, int((flat_targets != ignore_index).sum())


def evaluate_perplexity(
    model: nn.Module,
    batches: Iterable[Any],
    nll_fn: NLLFunction,
    *,
    device: torch.device | str | None = None,
) -> float:
    """Perplexity of ``model`` over ``batches``: ``exp(sum_b NLL_b / sum_b N_b)`` (Chapter 1).

    ``nll_fn(model, batch)`` returns a batch's summed NLL and its number of tokens, for instance
    ``lambda model, (x, y): token_nll(model(x), y, ignore_index=pad_id)``. Summing both over the
    batches before dividing weights every token equally, however the batches are padded. The
    model runs in eval mode without gradients and is given back in the mode it was in; batches
    are moved to ``device`` (default: the model's device).
    """
    device = model_device(model) if device is None else torch.device(device)
    total_nll, num_tokens = 0.0, 0
    with evaluating(model):
        for batch in batches:
            batch_nll, batch_tokens = nll_fn(model, move_to_device(batch, device))
            total_nll += float(batch_nll)
            num_tokens += int(batch_tokens)
    return perplexity(total_nll, num_tokens)
