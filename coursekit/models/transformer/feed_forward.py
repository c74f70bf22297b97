"""The position-wise feed-forward network of a Transformer block (Chapter 5, Transformers).

Every position is transformed on its own by the same two-layer network,

    FFN(x) = max(0, x W_1 + b_1) W_2 + b_2,

with an inner size d_ff (2048 for d_model = 512 in the paper); BERT and its successors use the
GELU, x * Phi(x), instead of max(0, x). Since no position sees another, identical input rows
give identical output rows: mixing positions is the job of attention.
"""

from __future__ import annotations

from collections.abc import Callable

import torch.nn.functional as F
from torch import Tensor, nn

from coursekit.arguments import require_dropout_probability, require_positive_int

ACTIVATIONS: dict[str, Callable[[Tensor], Tensor]] = {"relu": F.relu, "gelu": F.gelu}
"""The activations by name: max(0, x), and the exact GELU x * Phi(x) (Phi the normal CDF)."""


def require_activation(activation: str) -> Callable[[Tensor], Tensor]:
    """The activation function named ``activation`` ("relu" or "gelu") (Chapter 5)."""
    if activation not in ACTIVATIONS:
        raise ValueError(
            f"activation must be one of {sorted(ACTIVATIONS)}, got {activation!r} (gelu is the "
            "exact x * Phi(x), torch's F.gelu with approximate='none')"
        )
    return ACTIVATIONS[activation]


def activation_name(activation: object) -> str:
    """The name of a torch Transformer layer's activation (``F.relu``, ``nn.ReLU``, ``F.gelu``
    or an exact ``nn.GELU``), for ``from_torch`` (Chapter 5).
    """
    if activation is F.relu or isinstance(activation, nn.ReLU):
        return "relu"
    if activation is F.gelu or (
        isinstance(activation, nn.GELU) and activation.approximate == "none"
    ):
        return "gelu"
    raise ValueError(
        f"only the activations relu and exact gelu can be copied from torch, got {activation!r}"
    )


def position_wise_feed_forward(
    x: Tensor,
    linear1: nn.Linear,
    linear2: nn.Linear,
    activation: Callable[[Tensor], Tensor],
    dropout: nn.Module,
) -> Tensor:
    """``FFN(x) = max(0, x W_1 + b_1) W_2 + b_2`` (or GELU), with dropout on the inner layer.
    Explained in Chapter 5, Transformers.
    """
    return linear2(dropout(activation(linear1(x))))


class PositionwiseFeedForward(nn.Module):
    """``FFN(x) = max(0, x W_1 + b_1) W_2 + b_2``, applied to every position alone (Chapter 5).

    ``linear1`` is W_1 ``[d_ff, d_model]``, ``linear2`` is W_2 ``[d_model, d_ff]`` (the names of
    ``torch.nn.TransformerEncoderLayer``); ``activation`` is "relu" or "gelu"; dropout acts on
    the inner activations.
    """

    def __init__(
        self,
        d_model: int,
        dim_feedforward: int,
        dropout: float = 0.0,
        activation: str = "relu",
        bias: bool = True,
    ) -> None:
        super().__init__()
        require_positive_int("d_model", d_model)
        require_positive_int("dim_feedforward", dim_feedforward)
        require_dropout_probability("dropout", dropout)
        self.activation_name = activation
        self.activation = require_activation(activation)
        self.linear1 = nn.Linear(d_model, dim_feedforward, bias=bias)
        self.dropout = nn.Dropout(dropout)
        self.linear2 = nn.Linear(dim_feedforward, d_model, bias=bias)

    def extra_repr(self) -> str:
        return f"activation={self.activation_name!r}"

    def forward(self, x: Tensor) -> Tensor:
        """``FFN(x)`` for ``x [..., d_model]``."""
        return position_wise_feed_forward(
            x, self.linear1, self.linear2, self.activation, self.dropout
        )
