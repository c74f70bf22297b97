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

from coursekit.arguments import require_positive_number

Parameters = torch.Tensor | Iterable[torch.Tensor]
EPS = 1e-6
"""The ``eps`` of ``c / (||g|| + eps)``, torch's value: no division by zero at ``||g|| = 0``."""


def _gradients(parameters: Parameters) -> list[torch.Tensor]:
    """The ``.grad`` of each parameter that has one (a single tensor counts as one parameter)."""
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def _total_norm(gradients: list[torch.Tensor]) -> torch.Tensor:
    """``sqrt(sum_i ||g_i||^2)`` of a list of gradients, a 0-dim tensor on the device of the
    first one (0 for no gradient); reading it is left to the caller."""
    if not gradients:
        return torch.zeros(())
    device = gradients[0].device
    norms = [torch.linalg.vector_norm(g.detach()).to(device) for g in gradients]
    return torch.linalg.vector_norm(torch.stack(norms))


def rescale_to_norm(
    gradients: list[torch.Tensor], total_norm: torch.Tensor, max_norm: float, eps: float
) -> None:
    """``g_i <- g_i * min(1, c / (||g|| + eps))`` in place (Chapter 2), the factor computed on
    the device (no synchronisation) in float64 where the device has it, as Python computes it
    with floats; multiplying by 1 leaves a gradient exactly as it was."""
    wide = total_norm.dtype if total_norm.device.type == "mps" else torch.float64  # MPS: no f64
    scale = (max_norm / (total_norm.to(wide) + eps)).clamp(max=1.0)
    with torch.no_grad():
        for gradient in gradients:
            gradient.mul_(scale.to(gradient.device))


def global_grad_norm(parameters: Parameters) -> float:
    """The global gradient norm ``||g|| = sqrt(sum_i ||g_i||^2)`` (Chapter 2).

    The sum runs over the parameters that have a gradient (0 when none has one); no gradient
    is changed.
    """
    return float(_total_norm(_gradients(parameters)))


def require_max_norm(max_norm: float) -> None:
    """The clipping threshold, the largest allowed norm, must be a finite number > 0."""
    require_positive_number("max_norm", max_norm)


def require_finite_norm(total_norm: float, step: int | None = None) -> None:
    """A non-finite norm cannot be clipped: say where to look instead."""
    if not math.isfinite(total_norm):
        at = "" if step is None else f" at step {step}"
        raise RuntimeError(
            f"the global gradient norm{at} is {total_norm}, so it cannot be clipped: the loss or "
            "a gradient overflowed; lower the learning rate or find where the nan/inf first "
            "appears"
        )


def clip_grad_norm(parameters: Parameters, max_norm: float, eps: float = EPS) -> float:
    """Clip by global norm, ``g_i <- g_i * min(1, c / (||g|| + eps))`` with ``c = max_norm``.

    Chapter 2, RNNs and backpropagation through time. Gradients are scaled in place, parameters
    without a gradient are skipped, and the norm ``||g||`` measured *before* clipping is
    returned, exactly as ``torch.nn.utils.clip_grad_norm_`` does.

    Unlike torch's default, a non-finite norm (an overflow or a ``nan`` in the loss) raises a
    ``RuntimeError`` and leaves the gradients untouched: rescaling by ``c / inf`` would silently
    replace every gradient by zeros or ``nan`` and the training would go on from a broken state.
    """
    require_max_norm(max_norm)
    gradients = _gradients(parameters)
    total_norm = _total_norm(gradients)
    measured = float(total_norm)
    require_finite_norm(measured)
    rescale_to_norm(gradients, total_norm, max_norm, eps)
    return measured


def clip_gradients(parameters: Parameters, max_norm: float | None) -> float:
    """Clip the gradients to global norm ``max_norm`` and return the norm measured *before*.

    Chapter 2, RNNs and backpropagation through time: ``g_i <- g_i * min(1, c / (||g|| + eps))``
    by :func:`clip_grad_norm`. With ``max_norm=None`` nothing is clipped and ``||g||`` is only
    measured, so a training loop records the gradient norm whether or not it clips.
    """
    if max_norm is None:
        return global_grad_norm(parameters)
    return clip_grad_norm(parameters, max_norm)


def clip_gradients_on_device(parameters: Parameters, max_norm: float | None) -> torch.Tensor:
    """:func:`clip_gradients` without waiting for the device: the norm before clipping is
    returned as a 0-dim tensor and the gradients are rescaled by ``min(1, c / (||g|| + eps))``
    computed on the device (Chapter 2). A non-finite norm is not checked here: the caller reads
    the norms later, in one transfer, and checks them with :func:`require_finite_norm`.
    """
    gradients = _gradients(parameters)
    total_norm = _total_norm(gradients)
    if max_norm is not None:
        rescale_to_norm(gradients, total_norm, max_norm, EPS)
    return total_norm
