"""Multi-head attention, equal to ``torch.nn.MultiheadAttention`` (Chapter 5, Transformers).

Each of h heads attends in its own d_k = d_model / h dimensional subspace, and the heads are
concatenated and mixed by W^O:

    MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O,
    head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V),
    Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k) + M) V.

The projections of all heads are one matrix each (``in_proj_weight`` stacks W^Q, W^K, W^V, as
in torch), so the heads cost one matrix product, not h.

Masks follow ``torch.nn.MultiheadAttention``: a boolean ``attn_mask`` or ``key_padding_mask`` is
True where attention is NOT allowed (the OPPOSITE of the boolean masks of
``torch.nn.functional.scaled_dot_product_attention`` and of
:func:`coursekit.models.transformer.scaled_dot_product.scaled_dot_product_attention`, where True
means attend); a float mask is added to the scores. Both masks become one additive mask M (0 or
-inf). A query whose every key is masked gets a zero head on both paths (torch's own need_weights
path gives NaN there, its fused path zeros).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from coursekit.models.transformer.kv_cache import LayerKeyValues, extend_keys_values
from coursekit.models.transformer.requirements import (
    require_multihead_arguments,
    require_multihead_inputs,
)
from coursekit.models.transformer.scaled_dot_product import attention
from coursekit.models.twins import TorchTwin
from coursekit.text.masks import causal_mask


def additive_mask(mask: Tensor, dtype: torch.dtype) -> Tensor:
    """A mask as scores to add: a BoolTensor (True = NOT allowed) becomes -inf where True and 0
    elsewhere; a float mask is kept (in ``dtype``) (Chapter 5).
    """
    if mask.dtype == torch.bool:
        return torch.zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(mask, -math.inf)
    return mask.to(dtype)


class MultiHeadAttention(TorchTwin):
    """``MultiHead(Q, K, V) = Concat(head_1..head_h) W^O`` with
    ``head_i = softmax(Q W_i^Q (K W_i^K)^T / sqrt(d_k) + M) V W_i^V`` (Chapter 5, Transformers).

    Same constructor, parameter names, ``forward`` and return values as
    ``torch.nn.MultiheadAttention``: ``in_proj_weight`` ``[3E, E]`` (or ``q_proj_weight``,
    ``k_proj_weight`` ``[E, kdim]``, ``v_proj_weight`` ``[E, vdim]`` when kdim or vdim differ
    from ``embed_dim``), ``in_proj_bias`` ``[3E]``, ``out_proj`` (W^O), and with
    ``add_bias_kv`` a learned key ``bias_k`` and value ``bias_v`` appended to every sequence.
    ``add_zero_attn`` is not supported.
    """

    torch_class = nn.MultiheadAttention

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
    ) -> None:
        super().__init__()
        kdim = embed_dim if kdim is None else kdim
        vdim = embed_dim if vdim is None else vdim
        require_multihead_arguments(embed_dim, num_heads, dropout, kdim, vdim)
        self.embed_dim, self.num_heads, self.head_dim = embed_dim, num_heads, embed_dim // num_heads
        self.kdim, self.vdim = kdim, vdim
        self.dropout = float(dropout)
        self.batch_first = batch_first
        self.packed_projection = kdim == embed_dim and vdim == embed_dim
        if self.packed_projection:
            self.in_proj_weight = nn.Parameter(torch.empty(3 * embed_dim, embed_dim))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.register_parameter("in_proj_weight", None)
            self.q_proj_weight = nn.Parameter(torch.empty(embed_dim, embed_dim))
            self.k_proj_weight = nn.Parameter(torch.empty(embed_dim, kdim))
            self.v_proj_weight = nn.Parameter(torch.empty(embed_dim, vdim))
        if bias:
            self.in_proj_bias = nn.Parameter(torch.empty(3 * embed_dim))
        else:
            self.register_parameter("in_proj_bias", None)
        if add_bias_kv:
            self.bias_k = nn.Parameter(torch.empty(1, 1, embed_dim))
            self.bias_v = nn.Parameter(torch.empty(1, 1, embed_dim))
        else:
            self.register_parameter("bias_k", None)
            self.register_parameter("bias_v", None)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """torch's initialisation: Xavier-uniform projections, zero biases, Xavier-normal
        ``bias_k``/``bias_v``; ``out_proj`` keeps ``nn.Linear``'s weight initialisation.
        """
        packed = (self.in_proj_weight,) if self.packed_projection else self.projection_weights()
        for weight in packed:
            nn.init.xavier_uniform_(weight)
        if self.in_proj_bias is not None:
            nn.init.zeros_(self.in_proj_bias)
            nn.init.zeros_(self.out_proj.bias)
        if self.bias_k is not None:
            nn.init.xavier_normal_(self.bias_k)
            nn.init.xavier_normal_(self.bias_v)

    def extra_repr(self) -> str:
        sizes = f"embed_dim={self.embed_dim}, num_heads={self.num_heads}"
        return f"{sizes}, kdim={self.kdim}, vdim={self.vdim}, dropout={self.dropout}"

    @classmethod
    def constructor_arguments(cls, torch_module: nn.MultiheadAttention) -> dict[str, object]:
        """The arguments that rebuild ``torch_module``'s configuration in this class."""
        if torch_module.add_zero_attn:
            raise ValueError(
                "add_zero_attn=True is not supported by coursekit's MultiHeadAttention: build "
                "the torch module with add_zero_attn=False"
            )
        return {
            "embed_dim": torch_module.embed_dim,
            "num_heads": torch_module.num_heads,
            "dropout": torch_module.dropout,
            "bias": torch_module.in_proj_bias is not None,
            "add_bias_kv": torch_module.bias_k is not None,
            "kdim": torch_module.kdim,
            "vdim": torch_module.vdim,
            "batch_first": torch_module.batch_first,
        }

    def projection_weights(self) -> tuple[Tensor, Tensor, Tensor]:
        """W^Q, W^K, W^V of all heads, each ``[E, E]`` (``[E, kdim]``, ``[E, vdim]``)."""
        if self.in_proj_weight is not None:
            w_q, w_k, w_v = self.in_proj_weight.chunk(3)
            return w_q, w_k, w_v
        return self.q_proj_weight, self.k_proj_weight, self.v_proj_weight

    def project(
        self, query: Tensor, key: Tensor, value: Tensor, is_self_attention: bool
    ) -> tuple[Tensor, Tensor, Tensor]:
        """``Q W^Q + b^Q``, ``K W^K + b^K``, ``V W^V + b^V`` for all heads at once; in
        self-attention (query, key and value the same tensor) with one product by
        ``in_proj_weight``.
        """
        if is_self_attention and self.in_proj_weight is not None:
            q, k, v = F.linear(query, self.in_proj_weight, self.in_proj_bias).chunk(3, dim=-1)
            return q, k, v
        biases = (None,) * 3 if self.in_proj_bias is None else self.in_proj_bias.chunk(3)
        inputs = (query, key, value)
        weights = self.projection_weights()
        q, k, v = (F.linear(x, w, b) for x, w, b in zip(inputs, weights, biases, strict=True))
        return q, k, v

    def split_heads(self, x: Tensor) -> Tensor:
        """``[B, T, E] -> [B, h, T, d_k]``: head i reads features i*d_k .. (i+1)*d_k - 1."""
        batch_size, length, _ = x.shape
        return x.view(batch_size, length, self.num_heads, self.head_dim).transpose(1, 2)

    def merge_heads(self, heads: Tensor) -> Tensor:
        """``Concat(head_1, ..., head_h)``: ``[B, h, T, d_v] -> [B, T, h*d_v]``."""
        batch_size, _, length, _ = heads.shape
        return heads.transpose(1, 2).reshape(batch_size, length, self.embed_dim)

    def attend(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        mask: Tensor | None,
        need_weights: bool,
        is_causal: bool = False,
        is_self_attention: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        """``MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O`` for batch-first ``query
        [B, L, E]``, ``key [B, S, kdim]``, ``value [B, S, vdim]`` and an additive ``mask``."""
        q, k, v = self.project(query, key, value, is_self_attention)  # Q W^Q, K W^K, V W^V
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)  # [B, h, T, d_k]
        heads, weights = self.attention_heads(q, k, v, mask, need_weights, is_causal)
        return self.out_proj(self.merge_heads(heads)), weights  # Concat(heads) W^O

    def attention_heads(
        self,
        q: Tensor,
        k: Tensor,
        v: Tensor,
        mask: Tensor | None,
        need_weights: bool,
        is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        """``head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V)`` for every head at once, ``[B, h, L,
        d_v]``, with ``add_bias_kv``'s learned key and value appended to every sequence.

        With ``need_weights`` the heads are computed from the equation
        (:func:`coursekit.models.transformer.scaled_dot_product.attention`) and the weights
        ``[B, h, L, S]`` returned; otherwise by torch's fused ``F.scaled_dot_product_attention``,
        which gives the same numbers faster and without storing the weights.
        """
        if self.bias_k is not None:
            k = torch.cat([k, self.split_heads(self.bias_k.expand(len(k), 1, -1))], dim=2)
            v = torch.cat([v, self.split_heads(self.bias_v.expand(len(v), 1, -1))], dim=2)
        dropout_p = self.dropout if self.training else 0.0
        if need_weights:
            return attention(q, k, v, mask, dropout_p, scale=1 / math.sqrt(self.head_dim))
        return F.scaled_dot_product_attention(q, k, v, mask, dropout_p, is_causal), None

    def merged_mask(
        self,
        attn_mask: Tensor | None,
        key_padding_mask: Tensor | None,
        is_causal: bool,
        query: Tensor,
        key_length: int,
    ) -> Tensor | None:
        """M = attn_mask + key_padding_mask as one additive float mask ``[B|1, h|1, L, S]``:
        0 where query i may attend key j, -inf (or the float masks' values) elsewhere; with
        ``add_bias_kv`` one more column of zeros for the appended key.
        """
        batch_size, length, _ = query.shape
        if attn_mask is None and is_causal:
            attn_mask = causal_mask(length, query.device, key_length=key_length)
        mask = None
        if attn_mask is not None:
            mask = additive_mask(attn_mask, query.dtype)
            if mask.dim() == 3:
                mask = mask.view(batch_size, self.num_heads, length, key_length)
        if key_padding_mask is not None:
            padding = additive_mask(key_padding_mask, query.dtype).view(batch_size, 1, 1, -1)
            mask = padding if mask is None else mask + padding
        if mask is not None and self.bias_k is not None:
            mask = F.pad(mask, (0, 1))
        return mask

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None = None,
        need_weights: bool = True,
        attn_mask: Tensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        """``(attn_output, attn_weights)`` as ``torch.nn.MultiheadAttention`` returns them.

        ``query`` ``[L, B, E]`` (``[B, L, E]`` with ``batch_first``, ``[L, E]`` unbatched), ``key``
        ``[S, B, kdim]``, ``value`` ``[S, B, vdim]``; ``key_padding_mask`` ``[B, S]`` and
        ``attn_mask`` ``[L, S]`` or ``[B*h, L, S]``, boolean (True = NOT allowed) or float
        (added). ``attn_weights`` is ``[B, L, S]`` averaged over the heads, ``[B, h, L, S]`` with
        ``average_attn_weights=False``, None with ``need_weights=False`` (the fused path).
        ``is_causal=True`` lets query i attend keys j <= i only: as in torch it is a hint that
        ``attn_mask`` is the causal mask, and where torch requires that mask, this class builds
        it when ``attn_mask`` is None.
        """
        batched = require_multihead_inputs(self, query, key, value, key_padding_mask, attn_mask)
        is_self_attention = query is key and key is value
        query, key, value = (self.to_batch_first(x, batched) for x in (query, key, value))
        if key_padding_mask is not None and not batched:
            key_padding_mask = key_padding_mask.unsqueeze(0)
        causal_kernel = (
            is_causal and key_padding_mask is None and not need_weights and self.bias_k is None
        )
        mask = None
        if not causal_kernel:
            mask = self.merged_mask(attn_mask, key_padding_mask, is_causal, query, key.shape[1])
        output, weights = self.attend(
            query, key, value, mask, need_weights, causal_kernel, is_self_attention
        )
        output = self.from_batch_first(output, batched)
        if weights is not None:
            weights = weights.mean(dim=1) if average_attn_weights else weights
            weights = weights if batched else weights.squeeze(0)
        return output, weights

    def self_attention_with_cache(
        self, x: Tensor, past: LayerKeyValues | None, attn_mask: Tensor | None = None
    ) -> tuple[Tensor, LayerKeyValues]:
        """Self-attention of T new positions ``x`` over P cached ones and themselves: keys and
        values ``[K_past ; x W^K]``, ``[V_past ; x W^V]``
        (:mod:`coursekit.models.transformer.kv_cache`).

        ``x`` is ``[B, T, E]`` (``[T, B, E]`` without ``batch_first``), ``past`` the ``(keys,
        values)`` an earlier call returned (None for none), ``attn_mask`` ``[T, P + T]``, True
        (or -inf) where attention is NOT allowed. Returns the output and the keys and values of
        all P + T positions, ``[B, h, P + T, d_k]`` each.
        """
        if x.dim() != 3 or x.shape[-1] != self.embed_dim or self.bias_k is not None:
            raise ValueError(
                f"cached self-attention needs a batch x of shape [B, T, {self.embed_dim}] (or "
                f"[T, B, {self.embed_dim}]) and a module without add_bias_kv, got shape "
                f"{tuple(x.shape)}"
            )
        x = self.to_batch_first(x, batched=True)
        mask = None if attn_mask is None else additive_mask(attn_mask, x.dtype)
        q, k, v = (self.split_heads(part) for part in self.project(x, x, x, True))
        k, v = extend_keys_values(past, k, v)  # [K_past ; x W^K], [V_past ; x W^V]
        heads, _ = self.attention_heads(q, k, v, mask, need_weights=False)
        output = self.out_proj(self.merge_heads(heads))
        return self.from_batch_first(output, batched=True), (k, v)

    def to_batch_first(self, x: Tensor, batched: bool) -> Tensor:
        """``[B, T, F]`` from the layout of the inputs (``[T, B, F]``, or ``[T, F]`` unbatched)."""
        if not batched:
            return x.unsqueeze(0)
        return x if self.batch_first else x.transpose(0, 1)

    def from_batch_first(self, x: Tensor, batched: bool) -> Tensor:
        """The inverse of :meth:`to_batch_first`."""
        if not batched:
            return x.squeeze(0)
        return x if self.batch_first else x.transpose(0, 1)
