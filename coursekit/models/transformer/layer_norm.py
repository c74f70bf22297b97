"""Layer normalisation, written from its formula and equal to ``torch.nn.LayerNorm``
(Chapter 5, Transformers).

Each position's features x = (x_1..x_d) are normalised by their own mean and (biased) variance,
then scaled and shifted by learned gamma and beta:

    mu = (1/d) sum_i x_i,   sigma^2 = (1/d) sum_i (x_i - mu)^2,
    LayerNorm(x) = (x - mu) / sqrt(sigma^2 + eps) * gamma + beta.

Unlike batch normalisation it needs no batch statistics, so it behaves the same in training and
evaluation and for a batch of one. Every Transformer sublayer is wrapped by one (post-norm
LayerNorm(x + Sublayer(x)) or pre-norm x + Sublayer(LayerNorm(x))).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn

from coursekit.models.twins import TorchTwin


def layer_norm(
    x: Tensor, num_dims: int, weight: Tensor | None, bias: Tensor | None, eps: float
) -> Tensor:
    """``(x - mu) / sqrt(sigma^2 + eps) * gamma + beta`` over the last ``num_dims`` dimensions.
    Explained in Chapter 5, Transformers.
    """
    dims = tuple(range(-num_dims, 0))
    variance, mean = torch.var_mean(x, dim=dims, correction=0, keepdim=True)
    normalized = (x - mean) * torch.rsqrt(variance + eps)
    if weight is not None:
        normalized = normalized * weight
    if bias is not None:
        normalized = normalized + bias
    return normalized


class LayerNorm(TorchTwin):
    """``LayerNorm(x) = (x - mu) / sqrt(sigma^2 + eps) * gamma + beta`` (Chapter 5).

    Same arguments and parameter names as ``torch.nn.LayerNorm``: the statistics are taken over
    the last dimensions given by ``normalized_shape``; ``weight`` (gamma, ones at first) and
    ``bias`` (beta, zeros) exist when ``elementwise_affine`` (``bias=False`` drops beta).
    """

    torch_class = nn.LayerNorm

    def __init__(
        self,
        normalized_shape: int | Sequence[int],
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
    ) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else normalized_shape
        self.normalized_shape = tuple(int(size) for size in shape)
        if not self.normalized_shape or min(self.normalized_shape) < 1:
            raise ValueError(
                f"normalized_shape must be one or more positive sizes (the last dimensions of the "
                f"input), got {normalized_shape!r}"
            )
        if not eps > 0:
            raise ValueError(
                f"eps must be > 0 (it keeps sqrt(sigma^2 + eps) away from 0), got {eps}"
            )
        self.eps = float(eps)
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = nn.Parameter(torch.ones(self.normalized_shape))
            self.bias = nn.Parameter(torch.zeros(self.normalized_shape)) if bias else None
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )

    @classmethod
    def constructor_arguments(cls, torch_module: nn.LayerNorm) -> dict[str, object]:
        """The arguments that rebuild ``torch_module``'s configuration in this class."""
        return {
            "normalized_shape": torch_module.normalized_shape,
            "eps": torch_module.eps,
            "elementwise_affine": torch_module.elementwise_affine,
            "bias": torch_module.bias is not None,
        }

    def forward(self, x: Tensor) -> Tensor:
        """Normalise ``x [..., *normalized_shape]`` over its last dimensions."""
        if tuple(x.shape[-len(self.normalized_shape) :]) != self.normalized_shape:
            raise ValueError(
                f"the last dimensions of the input must be normalized_shape="
                f"{self.normalized_shape}, got an input of shape {tuple(x.shape)}"
            )
        return layer_norm(x, len(self.normalized_shape), self.weight, self.bias, self.eps)
