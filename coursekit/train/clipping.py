"""Gradient clipping by global norm (Chapter 2, RNNs and backpropagation through time).

Backpropagation through time multiplies many Jacobians, so a gradient can explode. Clipping
rescales all gradients together when their global norm exceeds a threshold ``c``:

    ||g|| = sqrt(sum_i ||g_i||^2),   g_i <- g_i * min(1, c / ||g||),

which keeps the direction of the update and bounds its length.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch


def global_grad_norm(parameters: Iterable[torch.Tensor]) -> float:
    """The global gradient norm ``||g|| = sqrt(sum_i ||g_i||^2)`` over parameters with a gradient
    (0 when none has one), without changing any gradient.
    """
    norms = [torch.linalg.vector_norm(p.grad.detach()) for p in parameters if p.grad is not None]
    if not norms:
        return 0.0
    return float(torch.linalg.vector_norm(torch.stack(norms)))


def clip_gradients(parameters: Iterable[torch.Tensor], max_norm: float | None) -> float:
    """Clip the gradients to global norm ``max_norm`` and return the norm measured *before*.

    With ``max_norm=None`` nothing is clipped and the norm is only measured. Clipping itself is
    ``torch.nn.utils.clip_grad_norm_``, whose rule is ``g_i <- g_i * min(1, c / (||g|| + 1e-6))``.
    """
    parameters = list(parameters)
    if max_norm is None:
        return global_grad_norm(parameters)
    return float(torch.nn.utils.clip_grad_norm_(parameters, max_norm))
