"""The language-modelling objective: predict every next token (Chapters 2, 3 and 5).

For a batch of inputs ``x_1..x_k`` and targets ``x_2..x_{k+1}`` a language model returns logits
``o_t`` for every position; the loss is the mean cross-entropy

    L = -(1 / (B k)) sum_{b, t} log softmax(o_{b,t})[x_{b,t+1}],

and perplexity (Chapter 1) is ``exp`` of the same sum divided by the number of predictions.
A target equal to :data:`IGNORED` (-100, ``F.cross_entropy``'s ``ignore_index``) counts in
neither: a Transformer's validation windows overlap, and each target is scored in one only.
Any model with the interface ``model(inputs [B, T]) -> (logits [B, T, V], state)`` fits.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from coursekit.metrics import token_nll

IGNORED = -100
"""A target that is not predicted (``F.cross_entropy``'s default ``ignore_index``)."""


def next_token_loss(model: nn.Module, batch: tuple[Tensor, Tensor]) -> Tensor:
    """The mean cross-entropy of every next token of ``batch = (inputs, targets)``."""
    inputs, targets = batch
    logits, _ = model(inputs)
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=IGNORED)


def next_token_nll(model: nn.Module, batch: tuple[Tensor, Tensor]) -> tuple[torch.Tensor, int]:
    """The summed negative log-likelihood of the batch's targets and their number, the pair
    :func:`coursekit.metrics.evaluate_perplexity` adds up over batches."""
    inputs, targets = batch
    logits, _ = model(inputs)
    return token_nll(logits, targets, ignore_index=IGNORED)
