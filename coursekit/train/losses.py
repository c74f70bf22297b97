"""Label-smoothed cross-entropy (Chapter 5, Transformers).

Instead of the one-hot target of the true token y, the model is trained towards the mixture
q = (1 - eps) one_hot(y) + eps / V (uniform over the V classes); the cross-entropy with q is

    loss = (1 - eps) * (-log p_y) + eps * (1/V) sum_v (-log p_v).

The model is never asked for probability 1, which hurts perplexity but improves accuracy and
BLEU (Szegedy et al., 2016; the Transformer paper uses eps = 0.1). Equal to
``torch.nn.functional.cross_entropy(..., label_smoothing=eps)``.
"""

from __future__ import annotations

import torch
from torch import Tensor

REDUCTIONS = ("mean", "sum", "none")


def require_loss_arguments(
    logits: Tensor, targets: Tensor, smoothing: float, reduction: str
) -> None:
    """Logits ``[..., V]`` with integer targets ``[...]``, eps in [0, 1], a known reduction.
    Explained in Chapter 5, Transformers.
    """
    if not logits.is_floating_point() or logits.dim() < 1:
        raise ValueError(
            f"logits must be floating-point scores [..., V], got dtype {logits.dtype} and shape "
            f"{tuple(logits.shape)}"
        )
    if targets.dtype not in (torch.long, torch.int) or targets.shape != logits.shape[:-1]:
        raise ValueError(
            f"targets must be integer class ids of shape logits.shape[:-1] = "
            f"{tuple(logits.shape[:-1])} (the classes are the LAST dimension of logits, unlike "
            f"F.cross_entropy), got dtype {targets.dtype} and shape {tuple(targets.shape)}"
        )
    if not 0.0 <= smoothing <= 1.0:
        raise ValueError(f"smoothing is the label-smoothing weight eps in [0, 1], got {smoothing}")
    if reduction not in REDUCTIONS:
        raise ValueError(f"reduction must be one of {REDUCTIONS}, got {reduction!r}")


def label_smoothed_cross_entropy(
    logits: Tensor,
    targets: Tensor,
    smoothing: float = 0.1,
    ignore_index: int = -100,
    reduction: str = "mean",
) -> Tensor:
    """``(1 - eps) * (-log p_y) + eps * (1/V) sum_v (-log p_v)`` for logits ``[..., V]``.

    Positions whose target is ``ignore_index`` (padding) contribute nothing; ``"mean"`` divides
    by the number of the other positions (NaN when there is none, as in torch), ``"sum"`` adds
    them, ``"none"`` returns the loss of every position (0 where ignored). Equal to
    ``F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1), label_smoothing=eps,
    ignore_index=..., reduction=...)`` (Chapter 5).
    """
    require_loss_arguments(logits, targets, smoothing, reduction)
    log_probs = torch.log_softmax(logits, dim=-1)
    counted = targets != ignore_index
    true_class = targets.masked_fill(~counted, 0).unsqueeze(-1)
    nll = -log_probs.gather(-1, true_class).squeeze(-1)
    uniform = -log_probs.mean(dim=-1)
    losses = ((1 - smoothing) * nll + smoothing * uniform).masked_fill(~counted, 0.0)
    if reduction == "none":
        return losses
    if reduction == "sum":
        return losses.sum()
    return losses.sum() / counted.sum()
