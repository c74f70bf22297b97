"""XLNet: a permutation language model with two-stream attention on Transformer-XL's memory
(Chapter 7, Transformer-XL and XLNet).

BERT predicts masked tokens independently of each other and sees [MASK] in pretraining but never
in fine-tuning. XLNet keeps the autoregressive factorisation and takes its expectation over
orders z of the positions:

    max E_z [ sum_{t > K} log p(x_{z_t} | x_{z_<t}) ],

predicting only the tokens after the cut point K of each order (partial prediction). The tokens
stay in place; the order only decides who sees whom (``perm_mask``), and the query stream g
(:mod:`coursekit.models.xlnet.attention`) predicts x_{z_t} knowing its position but not its
content:

    h^0 = Dropout(E[x]),   g^0 = Dropout(w) at the positions of ``target_mapping``,
    (h^n, g^n) = Layer_n(h^{n-1}, g^{n-1}, R, SG(memory)),   n = 1..N,
    p(x_{z_t} = v | x_{z_<t}) = softmax(Dropout(g^N) W + b)_v.

Relative distances run both ways (keys before and after the query), and memories are cached as
in Transformer-XL. Outputs are named tuples with Hugging Face's names (``last_hidden_state`` or
``logits``, and ``mems``); ``from_hf`` copies Hugging Face's ``XLNetModel`` and
``XLNetLMHeadModel`` (memories: theirs ``[M, B, d]``, ours ``[B, M, d]``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from torch import Tensor, nn

from coursekit.arguments import require_dropout_probability, require_positive_int
from coursekit.models.transformer.feed_forward import require_activation
from coursekit.models.transformer.positional_encoding import require_encoding_arguments
from coursekit.models.transformer_xl.memory import (
    Mems,
    append_to_memory,
    memory_length,
    require_mems,
)
from coursekit.models.transformer_xl.relative_position import (
    relative_distances,
    relative_position_encoding,
)
from coursekit.models.twins import load_hf_weights, require_hf_class
from coursekit.models.xlnet.attention import (
    XLNET_HF_NAMES,
    LayerInputs,
    XLNetLayer,
    small_parameter,
)
from coursekit.models.xlnet.inputs import (
    content_stream_blocked,
    query_stream_blocked,
    require_xlnet_inputs,
    segment_differences,
)

HF_NAMES = {**XLNET_HF_NAMES, "query_embedding": "mask_emb", "output_layer": "lm_loss"}
"""Our part names in an XLNet model and Hugging Face's."""

ARGUMENTS = (
    "vocab_size", "d_model", "n_layer", "n_head", "d_inner", "ff_activation", "mem_len",
    "reuse_len", "clamp_len", "dropout", "layer_norm_eps", "use_mems_eval", "use_mems_train",
)  # fmt: skip
"""The constructor arguments of :class:`XLNetModel`, named as in Hugging Face's config."""


class XLNetModelOutput(NamedTuple):
    """The last states ``[B, P, d_model]`` of the query stream (of the content stream ``[B, Q,
    d_model]`` without ``target_mapping``), and the new memories (Chapter 7).
    """

    last_hidden_state: Tensor
    mems: Mems | None


class XLNetLMHeadModelOutput(NamedTuple):
    """The scores ``[B, P, V]`` of each prediction (``[B, Q, V]`` without ``target_mapping``),
    and the new memories (Chapter 7).
    """

    logits: Tensor
    mems: Mems | None


def require_xlnet_arguments(arguments: Mapping[str, Any]) -> None:
    """Positive sizes, heads that split ``d_model``, a known activation, a dropout probability
    (Chapter 7).
    """
    for name in ("vocab_size", "d_model", "n_layer", "n_head", "d_inner"):
        require_positive_int(name, arguments[name])
    require_encoding_arguments(arguments["d_model"], "concatenated", 10000.0)
    if arguments["d_model"] % arguments["n_head"]:
        raise ValueError(
            f"d_model={arguments['d_model']} must be divisible by n_head={arguments['n_head']}"
        )
    require_activation(arguments["ff_activation"])
    require_dropout_probability("dropout", arguments["dropout"])


def xlnet_arguments(config: Any) -> dict[str, Any]:
    """The arguments of :class:`XLNetModel` read from a Hugging Face ``XLNetConfig``; a
    ValueError for what coursekit does not implement (Chapter 7).
    """
    if config.attn_type != "bi" or config.bi_data:
        raise ValueError(
            f"coursekit's XLNet is the bidirectional model of the paper: it copies a model built "
            f"with XLNetConfig(attn_type='bi', bi_data=False), got attn_type="
            f"{config.attn_type!r}, bi_data={config.bi_data!r}"
        )
    return {name: getattr(config, name) for name in ARGUMENTS}


class XLNetModel(nn.Module):
    """XLNet's stack of two-stream relative attention layers over ``h^0 = E[x]`` and
    ``g^0 = w``, returning the last query stream (content stream without ``target_mapping``)
    and the memories (Chapter 7).

    ``mem_len`` states are kept per layer (None or 0: all of them), ``reuse_len`` > 0 caches only
    the first ``reuse_len`` positions of a segment, ``clamp_len > 0`` clamps the distances;
    memories are returned when ``use_mems`` (by default ``use_mems_eval`` in eval mode and
    ``use_mems_train`` in training, as in Hugging Face).
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int = 128,
        n_layer: int = 2,
        n_head: int = 4,
        d_inner: int = 512,
        ff_activation: str = "gelu",
        mem_len: int | None = None,
        reuse_len: int | None = None,
        clamp_len: int = -1,
        dropout: float = 0.1,
        layer_norm_eps: float = 1e-12,
        use_mems_eval: bool = True,
        use_mems_train: bool = False,
    ) -> None:
        require_xlnet_arguments(locals())
        super().__init__()
        self.vocab_size, self.d_model, self.n_layer = vocab_size, d_model, n_layer
        self.mem_len, self.reuse_len, self.clamp_len = mem_len, reuse_len, clamp_len
        self.use_mems_eval, self.use_mems_train = use_mems_eval, use_mems_train
        self.word_embedding = nn.Embedding(vocab_size, d_model)
        self.query_embedding = small_parameter(d_model)
        self.layers = nn.ModuleList(
            XLNetLayer(d_model, n_head, d_inner, dropout, ff_activation, layer_norm_eps)
            for _ in range(n_layer)
        )
        self.dropout = nn.Dropout(dropout)

    @classmethod
    def from_hf(cls, hf_model: nn.Module) -> XLNetModel:
        """A copy of Hugging Face's ``XLNetModel``: configuration, weights, dtype, device."""
        require_hf_class(hf_model, "XLNetModel", cls.__name__)
        model = cls(**xlnet_arguments(hf_model.config))
        load_hf_weights(model, hf_model, HF_NAMES)
        return model

    def inputs(
        self,
        input_ids: Tensor,
        attention_mask: Tensor | None,
        memory_length: int,
        perm_mask: Tensor | None,
        target_mapping: Tensor | None,
        token_type_ids: Tensor | None,
    ) -> tuple[Tensor, Tensor | None, LayerInputs]:
        """``h^0 = Dropout(E[x])``, ``g^0 = Dropout(w)`` per prediction (None without
        ``target_mapping``), and what every layer reads: ``Dropout(R)`` for the distances
        K-1 .. -(Q-1), the segments, the masks of both streams and the target mapping.
        """
        content = self.dropout(self.word_embedding(input_ids))
        query_length, dtype = input_ids.shape[1], content.dtype
        query_stream = None
        if target_mapping is not None:
            target_mapping = target_mapping.to(dtype)
            start = self.query_embedding.expand(len(input_ids), target_mapping.shape[1], -1)
            query_stream = self.dropout(start)
        distances = relative_distances(
            query_length, memory_length + query_length, bidirectional=True,
            clamp_len=self.clamp_len, dtype=dtype, device=content.device,
        )  # fmt: skip
        blocked = query_stream_blocked(attention_mask, perm_mask, memory_length, dtype)
        inputs = LayerInputs(
            position_encoding=self.dropout(relative_position_encoding(distances, self.d_model)),
            different=segment_differences(token_type_ids, memory_length),
            content_blocked=content_stream_blocked(blocked, memory_length),
            query_blocked=blocked,
            target_mapping=target_mapping,
        )
        return content, query_stream, inputs

    def forward(
        self,
        input_ids: Tensor,
        attention_mask: Tensor | None = None,
        mems: Mems | None = None,
        perm_mask: Tensor | None = None,
        target_mapping: Tensor | None = None,
        token_type_ids: Tensor | None = None,
        use_mems: bool | None = None,
    ) -> XLNetModelOutput:
        """The last states of ``input_ids [B, Q]`` read after ``mems``, and the new memories.

        ``perm_mask[b, i, j] = 1``: i does not attend to j; ``target_mapping [B, P, Q]``: the
        positions to predict; ``attention_mask [B, Q]``: 0 for padding; ``token_type_ids``:
        segments (see :mod:`coursekit.models.xlnet.inputs`).
        """
        require_xlnet_inputs(
            input_ids, self.vocab_size, attention_mask, perm_mask, target_mapping, token_type_ids
        )
        require_mems(mems, self.n_layer, input_ids.shape[0], self.d_model)
        if use_mems is None:
            use_mems = self.use_mems_train if self.training else self.use_mems_eval
        content, query_stream, inputs = self.inputs(
            input_ids, attention_mask, memory_length(mems), perm_mask, target_mapping,
            token_type_ids,
        )  # fmt: skip
        new_mems = []
        for n, layer in enumerate(self.layers):
            memory = None if mems is None else mems[n]
            cached = content[:, : self.reuse_len or None]
            new_mems.append(append_to_memory(memory, cached, self.mem_len or None))
            content, query_stream = layer(content, query_stream, inputs, memory)
        stream = content if query_stream is None else query_stream
        return XLNetModelOutput(self.dropout(stream), tuple(new_mems) if use_mems else None)


class XLNetLMHeadModel(nn.Module):
    """``p(x_{z_t} = v | x_{z_<t}) = softmax(g^N W + b)_v`` over :class:`XLNetModel` (Chapter 7).

    The keyword arguments are :class:`XLNetModel`'s; ``tie_weights`` shares the embedding matrix
    with W.
    """

    def __init__(self, vocab_size: int, tie_weights: bool = True, **arguments: Any) -> None:
        super().__init__()
        self.transformer = XLNetModel(vocab_size, **arguments)
        self.output_layer = nn.Linear(self.transformer.d_model, vocab_size)
        if tie_weights:
            self.output_layer.weight = self.transformer.word_embedding.weight

    @classmethod
    def from_hf(cls, hf_model: nn.Module) -> XLNetLMHeadModel:
        """A copy of Hugging Face's ``XLNetLMHeadModel``: configuration, weights, dtype, device."""
        require_hf_class(hf_model, "XLNetLMHeadModel", cls.__name__)
        config: Any = hf_model.config
        model = cls(tie_weights=config.tie_word_embeddings, **xlnet_arguments(config))
        load_hf_weights(model, hf_model, HF_NAMES)
        return model

    def forward(self, input_ids: Tensor, **inputs: Any) -> XLNetLMHeadModelOutput:
        """The scores ``g W + b`` of every prediction and the new memories; ``inputs`` are the
        keyword arguments of :meth:`XLNetModel.forward` (``attention_mask``, ``mems``,
        ``perm_mask``, ``target_mapping``, ``token_type_ids``, ``use_mems``).
        """
        hidden, mems = self.transformer(input_ids, **inputs)
        return XLNetLMHeadModelOutput(self.output_layer(hidden), mems)
