"""Hard and local attention (Chapter 4, Seq2seq and attention).

Soft attention spreads weights over every source position. Hard attention picks one,
s* = argmax_s alpha_s (or s* drawn from alpha), and returns its value: cheaper to read, but the
choice has no gradient. Local attention (Luong et al., 2015) is in between: a soft attention
restricted to a window [p_t - D, p_t + D] around an aligned position p_t, either monotonic,
p_t = t, or predictive, p_t = S * sigmoid(v_p^T tanh(W_p s_t)), where a Gaussian centred on p_t
favours the middle of the window.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from coursekit.arguments import require_positive_int
from coursekit.models.seq2seq.attention import Attention, as_query_layout, masked_softmax

LOCAL_MODES = ("monotonic", "predictive")


def weighted_sum(weights: Tensor, values: Tensor) -> Tensor:
    """c = sum_s alpha_s v_s for ``weights`` ``[B, S]`` or ``[B, T, S]``, ``values [B, S, Dv]``."""
    if weights.dim() == 2:
        return (weights.unsqueeze(1) @ values).squeeze(1)
    return weights @ values


def one_hot_choice(weights: Tensor, sample: bool, generator: torch.Generator | None) -> Tensor:
    """One-hot weights at s* = argmax_s alpha_s, or at s* ~ alpha when ``sample`` (drawn on the
    generator's device, so a seeded CPU generator draws the same wherever the model runs).
    """
    if sample:
        draw_device = weights.device if generator is None else generator.device
        rows = weights.reshape(-1, weights.shape[-1]).to(draw_device)
        choice = torch.multinomial(rows, 1, generator=generator).to(weights.device)
        choice = choice.reshape(weights.shape[:-1])
    else:
        choice = weights.argmax(dim=-1)
    return F.one_hot(choice, weights.shape[-1]).to(weights.dtype)


def hard_attention(
    attention: Attention,
    query: Tensor,
    keys: Tensor,
    values: Tensor,
    key_padding_mask: Tensor | None = None,
    *,
    sample: bool = False,
    generator: torch.Generator | None = None,
) -> tuple[Tensor, Tensor]:
    """Hard attention (Chapter 4): c = v_{s*} with s* = argmax_s alpha_s, or s* ~ alpha when
    ``sample`` (drawn with ``generator``), where alpha are the soft weights of ``attention``.

    Same interface as the soft modules; the weights are one-hot, so they still sum to 1 and are
    0 on padding (a masked key has probability 0). Not differentiable: no gradient reaches the
    scores through the choice.
    """
    _, soft_weights = attention(query, keys, values, key_padding_mask)
    weights = one_hot_choice(soft_weights.detach(), sample, generator)
    return weighted_sum(weights, values), weights


class LocalAttention(Attention):
    """Luong's local attention (Chapter 4): the ``content`` score's softmax restricted to the
    window |s - p_t| <= D (``half_width``), c_t = sum_s a_t(s) h_s, with

        monotonic (local-m):   p_t = t,   a_t = softmax over the window of score(s_t, h_s)
        predictive (local-p):  p_t = S * sigmoid(v_p^T tanh(W_p s_t)),
                               a_t(s) = softmax(...)_s * exp(-(s - p_t)^2 / (2 (D/2)^2)).

    Positions count from 0 and S is each source's own length (padding excluded); a monotonic
    p_t past the source's end stays on its last position. As in the paper, local-p weights sum
    to at most 1 (the Gaussian scales the softmax); local-m weights sum to 1. A monotonic module
    needs the target step of a one-step query: ``module(query, keys, values, mask, step=t)``
    (an int or a LongTensor ``[B]``); all-steps queries ``[B, T, Dq]`` are steps
    ``step + 0 .. step + T - 1`` (``step`` defaults to 0).
    """

    def __init__(
        self,
        content: Attention,
        half_width: int,
        mode: str = "monotonic",
        query_size: int | None = None,
        hidden_size: int | None = None,
    ) -> None:
        super().__init__()
        if mode not in LOCAL_MODES:
            raise ValueError(f"mode must be one of {LOCAL_MODES}, got {mode!r}")
        require_positive_int("half_width D", half_width)
        if mode == "predictive" and (query_size is None or hidden_size is None):
            raise ValueError(
                "the predictive mode learns p_t = S * sigmoid(v_p^T tanh(W_p s_t)): give "
                "query_size (the size of s_t) and hidden_size (the rows of W_p)"
            )
        self.content = content
        self.half_width = half_width
        self.mode = mode
        self.query_size = query_size if query_size is not None else content.query_size
        self.key_size = content.key_size
        self.equal_sizes = content.equal_sizes
        self.max_source_length = getattr(content, "max_source_length", None)
        if mode == "predictive":
            assert query_size is not None and hidden_size is not None  # checked above
            self.position_projection = nn.Linear(query_size, hidden_size, bias=False)  # W_p
            self.position_energy = nn.Linear(hidden_size, 1, bias=False)  # v_p

    def window_centres(self, queries: Tensor, lengths: Tensor, steps: Tensor | None) -> Tensor:
        """p_t ``[B, T]``: min(t, S - 1) (monotonic) or S * sigmoid(v_p^T tanh(W_p q_t))."""
        if self.mode == "monotonic":
            assert steps is not None, "the monotonic mode places windows by the target steps"
            return torch.minimum(steps, lengths.unsqueeze(1) - 1).to(queries.dtype)
        energy = self.position_energy(torch.tanh(self.position_projection(queries))).squeeze(-1)
        return lengths.unsqueeze(1) * torch.sigmoid(energy)

    def attend(
        self,
        queries: Tensor,
        keys: Tensor,
        values: Tensor,
        key_padding_mask: Tensor | None,
        steps: Tensor | None = None,
    ) -> tuple[Tensor, Tensor]:
        """a_t = softmax of the content scores inside the window (times the Gaussian for
        local-p); c_t = a_t H. ``steps [B, T]`` are the target positions t (monotonic).
        """
        source_length = keys.shape[1]
        padding = torch.zeros_like(keys[..., 0], dtype=torch.bool)
        if key_padding_mask is not None:
            padding = key_padding_mask
        lengths = source_length - padding.sum(dim=-1)
        centres = self.window_centres(queries, lengths, steps)  # p_t, [B, T]
        positions = torch.arange(source_length, device=keys.device, dtype=queries.dtype)
        distance = positions - centres.unsqueeze(-1)  # s - p_t, [B, T, S]
        outside = (distance.abs() > self.half_width) | padding.unsqueeze(1)
        weights = masked_softmax(self.content.score(queries, keys), outside)
        if self.mode == "predictive":
            sigma = self.half_width / 2
            weights = weights * torch.exp(-(distance**2) / (2 * sigma**2))
        return weights @ values, weights

    def forward(
        self,
        query: Tensor,
        keys: Tensor,
        values: Tensor,
        key_padding_mask: Tensor | None = None,
        step: int | Tensor | None = None,
    ) -> tuple[Tensor, Tensor]:
        """``(context, weights)`` for one step ``[B, Dq]`` or all steps ``[B, T, Dq]``."""
        queries = self.checked_queries(query, keys, values, key_padding_mask)
        steps = self.target_steps(queries, step, one_step=query.dim() == 2)
        context, weights = self.attend(queries, keys, values, key_padding_mask, steps)
        return as_query_layout(context, weights, query)

    def target_steps(self, queries: Tensor, step: int | Tensor | None, one_step: bool) -> Tensor:
        """The checked target positions ``[B, T]``: ``step + 0 .. step + T - 1``."""
        batch_size, steps = queries.shape[:2]
        if self.mode == "monotonic" and one_step and step is None:
            raise ValueError(
                "monotonic local attention centres the window on p_t = t: pass the target "
                "step of a one-step query, module(query, keys, values, mask, step=t)"
            )
        first = torch.as_tensor(0 if step is None else step, device=queries.device)
        wrong_rows = first.dim() == 1 and first.shape[0] != batch_size
        if first.is_floating_point() or first.dim() > 1 or wrong_rows or bool((first < 0).any()):
            raise ValueError(
                f"step must be an int >= 0 or a LongTensor [B] = [{batch_size}] of them, got "
                f"{step!r}"
            )
        offsets = torch.arange(steps, device=queries.device)
        return (first.reshape(-1, 1) + offsets).expand(batch_size, steps)
