"""The relative attention score of Transformer-XL and XLNet (Chapter 7, Transformer-XL and XLNet).

With absolute positions U, the score of query i and key j expands into four terms,
(E_i + U_i)^T W_q^T W_k (E_j + U_j). Transformer-XL rewrites them with the relative encoding
R_{i-j} (:mod:`coursekit.models.relative_position`), two projections of the keys, W_{k,E} for
contents and W_{k,R} for distances, and two learned vectors u and v that replace the query's
absolute position:

    A_ij = E_i^T W_q^T W_{k,E} E_j      (a) content-content: what i looks for in j's content
         + E_i^T W_q^T W_{k,R} R_{i-j}  (b) content-position: how far away i looks
         + u^T W_{k,E} E_j              (c) global content bias: keys worth seeing for everyone
         + v^T W_{k,R} R_{i-j}          (d) global position bias: distances preferred by all.

With q_i = W_q E_i, k_j = W_{k,E} E_j and r_{i-j} = W_{k,R} R_{i-j} per head, (a) + (c) is
(q_i + u)^T k_j and (b) + (d) is (q_i + v)^T r_{i-j}: two products, the second computed against
the distances and moved to the keys by the relative shift.
"""

from __future__ import annotations

from typing import NamedTuple

from torch import Tensor

from coursekit.models.relative_position import relative_shift


class RelativeScoreTerms(NamedTuple):
    """The four terms of the relative score of every head, each ``[B, heads, Q, K]`` (Chapter 7):
    their sum is the score A_ij before scaling and masking.
    """

    content_content: Tensor
    """(a) ``q_i^T k_j``."""
    content_position: Tensor
    """(b) ``q_i^T r_{i-j}``."""
    content_bias: Tensor
    """(c) ``u^T k_j``, the same in every row."""
    position_bias: Tensor
    """(d) ``v^T r_{i-j}``, the same on every diagonal."""


def relative_scores(
    queries: Tensor,
    keys: Tensor,
    position_keys: Tensor,
    content_bias: Tensor,
    position_bias: Tensor,
) -> Tensor:
    """``A_ij = (q_i + u)^T k_j + (q_i + v)^T r_{i-j}`` = (a) + (c) + (b) + (d) (Chapter 7).

    ``queries [B, heads, Q, d]``, ``keys [B, heads, K, d]``, ``position_keys [heads, R, d]``
    (r for the distances of :func:`~coursekit.models.relative_position.relative_distances`),
    ``content_bias`` u and ``position_bias`` v ``[heads, d]``; returns ``[B, heads, Q, K]``.
    """
    content = (queries + content_bias.unsqueeze(-2)) @ keys.transpose(-2, -1)
    by_distance = (queries + position_bias.unsqueeze(-2)) @ position_keys.transpose(-2, -1)
    return content + relative_shift(by_distance, keys.shape[-2])


def relative_score_terms(
    queries: Tensor,
    keys: Tensor,
    position_keys: Tensor,
    content_bias: Tensor,
    position_bias: Tensor,
) -> RelativeScoreTerms:
    """The terms (a), (b), (c) and (d) of :func:`relative_scores` one by one, for inspection
    (Chapter 7).
    """
    shape = (*queries.shape[:-1], keys.shape[-2])
    return RelativeScoreTerms(
        content_content=queries @ keys.transpose(-2, -1),
        content_position=relative_shift(queries @ position_keys.transpose(-2, -1), shape[-1]),
        content_bias=(content_bias.unsqueeze(-2) @ keys.transpose(-2, -1)).expand(shape),
        position_bias=relative_shift(
            (position_bias.unsqueeze(-2) @ position_keys.transpose(-2, -1)).expand(
                *shape[:-1], position_keys.shape[-2]
            ),
            shape[-1],
        ),
    )
