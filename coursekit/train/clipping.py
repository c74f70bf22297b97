"""Gradient clipping by global norm (Chapter 2, RNNs and backpropagation through time).

Backpropagation through time multiplies many Jacobians, so a gradient can explode. Clipping
rescales all gradients ``g_i`` together when their global norm exceeds a threshold ``c``:

    ||g|| = sqrt(sum_i ||g_i||^2),   g_i <- g_i * min(1, c / (||g|| + eps)),

which keeps the direction of the update and bounds its length by ``c``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import torch

Parameters = torch.Tensor | Iterable[torch.Tensor]


def _gradients(parameters: Parameters) -> list[torch.Tensor]:
    """The ``.grad`` of each parameter that has one (a single tensor counts as one parameter)."""
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def _total_norm(gradients: list[torch.Tensor]) -> float:
    """``sqrt(sum_i ||g_i||^2)`` of a list of gradients, on the device of the first one."""
    if not gradients:
        return 0.0
    device = gradients[0].device
    norms = [torch.linalg.vector_norm(g.detach()).to(device) for g in gradients]
    return float(torch.linalg.vector_norm(torch.stack(norms)))


def global_grad_norm(parameters: Parameters) -> float:
    """The global gradient norm ``||g|| = sqrt(sum_i ||g_i||^2)`` (Chapter 2).

    The sum runs over the parameters that have a gradient (0 when none has one); no gradient
    is changed.
    """
    return _total_norm(_gradients(parameters))


def check_max_norm(max_norm: float) -> None:
    """The clipping threshold must be positive."""
    if not max_norm > 0:
        raise ValueError(f"max_norm must be > 0, got {max_norm}: it is the largest allowed norm")


def check_finite_norm(total_norm: float) -> None:
    """A non-finite norm cannot be clipped: say where to look instead."""
    if not math.isfinite(total_norm):
        raise RuntimeError(
            f"the global gradient norm is {total_norm}, so it cannot be clipped: the loss or a "
            "gradient overflowed; lower the learning rate or find where the nan/inf first appears"
        )


def clip_grad_norm(parameters: Parameters, max_norm: float, eps: float = 1e-6) -> float:
    """Clip by global norm, ``g_i <- g_i * min(1, c / (||g|| + eps))`` with ``c = max_norm``.

    Chapter 2, RNNs and backpropagation through time. Gradients are scaled in place, parameters
    without a gradient are skipped, and the norm ``||g||`` measured *before* clipping is
    returned, exactly as ``torch.nn.utils.clip_grad_norm_`` does.

    Unlike torch's default, a non-finite norm (an overflow or a ``nan`` in the loss) raises a
    ``RuntimeError`` and leaves the gradients untouched: rescaling by ``c / inf`` would silently
    replace every gradient by zeros or ``nan`` and the training would go on from a broken state.
    """
    check_max_norm(max_norm)
    gradients = _gradients(parameters)
    total_norm = _total_norm(gradients)
    check_finite_norm(total_norm)
    scale = max_norm / (total_norm + eps)
    if scale < 1:
        with torch.no_grad():
            for gradient in gradients:
                gradient.mul_(scale)
    return total_norm


def clip_gradients(parameters: Parameters, max_norm: float | None) -> float:
    """Clip the gradients to global norm ``max_norm`` and return the norm measured *before*.

    Chapter 2, RNNs and backpropagation through time: ``g_i <- g_i * min(1, c / (||g|| + eps))``
    by :func:`clip_grad_norm`. With ``max_norm=None`` nothing is clipped and ``||g||`` is only
    measured, so a training loop records the gradient norm whether or not it clips.
    """
    if max_norm is None:
        return global_grad_norm(parameters)
    return clip_grad_norm(parameters, max_norm)
