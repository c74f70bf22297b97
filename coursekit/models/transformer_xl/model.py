"""Transformer-XL: a Transformer language model with segment-level recurrence and relative
positions (Chapter 7, Transformer-XL and XLNet).

A text longer than a segment is read segment after segment; each layer attends to its memory of the
previous segments (:mod:`coursekit.models.transformer_xl.memory`) and to the current one, with
relative positions (:mod:`coursekit.models.transformer_xl.relative_position`) so that the cached
states keep their meaning:

    h^0 = Dropout(sqrt(d) E[x]),   R = Dropout([R_{K-1}, ..., R_1, R_0]),   K = M + Q,
    h^n = Layer_n(h^{n-1}, R, memory m^{n-1}),   n = 1..N    (:mod:`...transformer_xl_layers`),
    m^{n-1} <- the mem_len most recent states of [m^{n-1} o h^{n-1}], detached,
    log P(x_{t+1} | x_{<=t}) = log_softmax(Dropout(h^N) W + b)_t.

In evaluation the memory is what makes Transformer-XL fast: every token is read once, whereas a
vanilla model with the same context must shift its window by one token and recompute the whole
window for each prediction.

Outputs are named tuples with Hugging Face's names (``last_hidden_state`` or
``prediction_scores``, and ``mems``), so ``scores, mems = model(tokens, mems)`` reads like the
recurrent language model of Chapter 2 and :func:`coursekit.generate.generate` drives the model
with its memory. ``from_hf`` copies Hugging Face's ``TransfoXLModel`` / ``TransfoXLLMHeadModel``
(transformers <= 4.x, plain softmax: ``cutoffs=[]``); its memories are ``[M, B, d]``, ours batch
first ``[B, M, d]``, and it starts from ``mem_len`` zero states (:meth:`TransfoXLModel.init_mems`)
where ``mems=None`` here means no memory, as in the paper's code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple, cast

import torch
from torch import Tensor, nn

from coursekit.arguments import (
    require_dropout_probability,
    require_non_negative_int,
    require_positive_int,
)
from coursekit.models.token_ids import require_token_ids
from coursekit.models.transformer.embedding import TokenEmbedding
from coursekit.models.transformer.positional_encoding import require_encoding_arguments
from coursekit.models.transformer_xl.layers import (
    TRANSFO_XL_HF_NAMES,
    TransfoXLLayer,
    transformer_xl_mask,
)
from coursekit.models.transformer_xl.memory import (
    Mems,
    append_to_memory,
    memory_length,
    require_mems,
)
from coursekit.models.transformer_xl.relative_attention import (
    RelativeMultiHeadAttention,
    RelativeScoreTerms,
    relative_biases,
)
from coursekit.models.transformer_xl.relative_position import (
    relative_distances,
    relative_position_encoding,
)
from coursekit.models.twins import load_hf_weights, require_hf_class

HF_NAMES = {
    **TRANSFO_XL_HF_NAMES,
    "word_emb": "word_emb.emb_layers.0",
    "output_layer": "crit.out_layers.0",
}
"""Our part names in a Transformer-XL model and Hugging Face's."""

ARGUMENTS = (
    "vocab_size", "d_model", "n_head", "d_head", "d_inner", "n_layer", "mem_len", "clamp_len",
    "same_length", "dropout", "dropatt", "pre_lnorm", "untie_r", "layer_norm_epsilon",
)  # fmt: skip
"""The constructor arguments of :class:`TransfoXLModel`, named as in Hugging Face's config."""


class TransfoXLModelOutput(NamedTuple):
    """The states of the last layer ``[B, Q, d_model]`` and the new memories (Chapter 7)."""

    last_hidden_state: Tensor
    mems: Mems | None


class TransfoXLLMHeadModelOutput(NamedTuple):
    """``log P(x_{t+1} | x_{<=t})`` ``[B, Q, V]`` and the new memories (Chapter 7)."""

    prediction_scores: Tensor
    mems: Mems | None


def require_transfo_xl_arguments(arguments: Mapping[str, Any]) -> None:
    """Positive sizes, an even ``d_model``, dropout probabilities, ``mem_len >= 0``, and a
    memory for ``same_length`` (Chapter 7).
    """
    for name in ("vocab_size", "d_model", "n_head", "d_head", "d_inner", "n_layer"):
        require_positive_int(name, arguments[name])
    require_encoding_arguments(arguments["d_model"], "concatenated", 10000.0)
    require_dropout_probability("dropout", arguments["dropout"])
    require_dropout_probability("dropatt", arguments["dropatt"])
    mem_len = require_non_negative_int("mem_len", arguments["mem_len"])
    if arguments["same_length"] and mem_len == 0:
        raise ValueError(
            "same_length=True lets every query see its mem_len most recent keys, so it needs "
            "mem_len >= 1; set mem_len or same_length=False"
        )


def transfo_xl_arguments(config: Any) -> dict[str, Any]:
    """The arguments of :class:`TransfoXLModel` read from a Hugging Face ``TransfoXLConfig``;
    a ValueError for what coursekit does not implement (Chapter 7).
    """
    unsupported = {
        "cutoffs": (config.cutoffs, []),
        "div_val": (config.div_val, 1),
        "d_embed": (config.d_embed, config.d_model),
        "attn_type": (config.attn_type, 0),
    }
    for name, (value, supported) in unsupported.items():
        if value != supported:
            raise ValueError(
                f"coursekit's Transformer-XL has a plain softmax and embedding, so it copies a "
                f"model built with TransfoXLConfig(cutoffs=[], div_val=1, d_embed=d_model, "
                f"attn_type=0); got {name}={value!r}"
            )
    return {name: getattr(config, name) for name in ARGUMENTS}


class TransfoXLModel(nn.Module):
    """Transformer-XL: ``h^n = Layer_n(h^{n-1}, R, SG(memory))`` over ``h^0 = sqrt(d) E[x]``,
    returning the last states and the memories for the next segment (Chapter 7).

    ``mem_len`` states are kept per layer (0: no memory); ``clamp_len > 0`` gives all distances
    beyond it the encoding of ``clamp_len``; ``same_length`` lets every query see exactly its
    ``mem_len`` most recent keys; ``untie_r=False`` shares u and v across layers.
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int = 128,
        n_head: int = 4,
        d_head: int = 32,
        d_inner: int = 512,
        n_layer: int = 2,
        mem_len: int = 128,
        clamp_len: int = 0,
        same_length: bool = False,
        dropout: float = 0.1,
        dropatt: float = 0.0,
        pre_lnorm: bool = False,
        untie_r: bool = True,
        layer_norm_epsilon: float = 1e-5,
    ) -> None:
        require_transfo_xl_arguments(locals())
        super().__init__()
        self.vocab_size, self.d_model, self.n_layer = vocab_size, d_model, n_layer
        self.mem_len, self.clamp_len, self.same_length = mem_len, clamp_len, same_length
        self.word_emb = TokenEmbedding(vocab_size, d_model)
        self.drop = nn.Dropout(dropout)
        biases = None
        if not untie_r:
            self.content_bias, self.position_bias = biases = relative_biases(n_head, d_head)
        attention = (d_model, n_head, d_head, dropout, dropatt, pre_lnorm, layer_norm_epsilon)
        self.layers = nn.ModuleList(
            TransfoXLLayer(RelativeMultiHeadAttention(*attention, biases), d_inner, dropout)
            for _ in range(n_layer)
        )

    @classmethod
    def from_hf(cls, hf_model: nn.Module) -> TransfoXLModel:
        """A copy of Hugging Face's ``TransfoXLModel``: configuration, weights, dtype, device."""
        require_hf_class(hf_model, "TransfoXLModel", cls.__name__)
        model = cls(**transfo_xl_arguments(hf_model.config))
        load_hf_weights(model, hf_model, HF_NAMES)
        return model

    def init_mems(self, batch_size: int) -> Mems:
        """``mem_len`` zero states per layer ``[B, mem_len, d_model]``: the memory Hugging Face's
        model starts from when it is given none.
        """
        reference = self.word_emb.weight
        zeros = reference.new_zeros(batch_size, self.mem_len, self.d_model)
        return tuple(zeros for _ in range(self.n_layer))

    def inputs(self, input_ids: Tensor, memory_length: int) -> tuple[Tensor, Tensor, Tensor]:
        """``h^0 = Dropout(sqrt(d) E[x])``, ``Dropout(R)`` for the distances K-1 .. 0, and the
        mask of the Q new positions after M of memory (True = not allowed).
        """
        hidden = self.drop(self.word_emb(input_ids))
        query_length = input_ids.shape[1]
        key_length = memory_length + query_length
        distances = relative_distances(
            query_length, key_length, clamp_len=self.clamp_len, dtype=hidden.dtype,
            device=hidden.device,
        )  # fmt: skip
        position_encoding = self.drop(relative_position_encoding(distances, self.d_model))
        blocked = transformer_xl_mask(
            query_length, memory_length, self.same_length, self.mem_len, hidden.device
        )
        return hidden, position_encoding, blocked

    def forward(self, input_ids: Tensor, mems: Mems | None = None) -> TransfoXLModelOutput:
        """The last states ``[B, Q, d_model]`` of ``input_ids [B, Q]`` read after ``mems`` (a
        previous call's memories; None: the start of the text), and the new memories.
        """
        require_token_ids(input_ids, self.vocab_size)
        require_mems(mems, self.n_layer, input_ids.shape[0], self.d_model)
        hidden, position_encoding, blocked = self.inputs(input_ids, memory_length(mems))
        layer_inputs = []
        for n, layer in enumerate(self.layers):
            layer_inputs.append(hidden)
            hidden = layer(hidden, position_encoding, blocked, None if mems is None else mems[n])
        return TransfoXLModelOutput(self.drop(hidden), self.updated_mems(layer_inputs, mems))

    def updated_mems(self, layer_inputs: list[Tensor], mems: Mems | None) -> Mems | None:
        """Each layer's memory m^{n-1} <- the mem_len most recent of [m^{n-1} o h^{n-1}]."""
        if self.mem_len == 0:
            return None
        return tuple(
            append_to_memory(None if mems is None else mems[n], states, self.mem_len)
            for n, states in enumerate(layer_inputs)
        )

    def score_terms(
        self, input_ids: Tensor, mems: Mems | None = None, layer: int = 0
    ) -> RelativeScoreTerms:
        """The four terms (a)-(d) of the relative scores of layer ``layer`` (counted from 0) on
        ``input_ids`` read after ``mems``, each ``[B, heads, Q, M + Q]``, for heat maps.
        """
        require_token_ids(input_ids, self.vocab_size)
        require_mems(mems, self.n_layer, input_ids.shape[0], self.d_model)
        if not 0 <= layer < self.n_layer:
            raise ValueError(f"layer must be in 0 .. {self.n_layer - 1}, got {layer}")
        hidden, position_encoding, blocked = self.inputs(input_ids, memory_length(mems))
        memories = [None] * self.n_layer if mems is None else mems
        for n in range(layer):
            hidden = self.layers[n](hidden, position_encoding, blocked, memories[n])
        asked = cast(TransfoXLLayer, self.layers[layer])
        return asked.attention.score_terms(hidden, position_encoding, memories[layer])


class TransfoXLLMHeadModel(nn.Module):
    """``log P(x_{t+1} | x_{<=t}, memory) = log_softmax(h^N W + b)_t`` over
    :class:`TransfoXLModel` (Chapter 7).

    The keyword arguments are :class:`TransfoXLModel`'s; ``tie_weights`` shares the embedding
    matrix with W. ``forward(input_ids, mems) -> (prediction_scores, mems)`` has the interface
    of the recurrent language model of Chapter 2, with the memories as its state.
    """

    def __init__(self, vocab_size: int, tie_weights: bool = True, **arguments: Any) -> None:
        super().__init__()
        self.transformer = TransfoXLModel(vocab_size, **arguments)
        self.output_layer = nn.Linear(self.transformer.d_model, vocab_size)
        if tie_weights:
            self.output_layer.weight = self.transformer.word_emb.weight

    @classmethod
    def from_hf(cls, hf_model: nn.Module) -> TransfoXLLMHeadModel:
        """A copy of Hugging Face's ``TransfoXLLMHeadModel`` (``cutoffs=[]``): configuration,
        weights, dtype, device.
        """
        require_hf_class(hf_model, "TransfoXLLMHeadModel", cls.__name__)
        config: Any = hf_model.config
        model = cls(tie_weights=config.tie_word_embeddings, **transfo_xl_arguments(config))
        load_hf_weights(model, hf_model, HF_NAMES)
        return model

    def init_mems(self, batch_size: int) -> Mems:
        """Hugging Face's starting memory (see :meth:`TransfoXLModel.init_mems`)."""
        return self.transformer.init_mems(batch_size)

    def forward(self, input_ids: Tensor, mems: Mems | None = None) -> TransfoXLLMHeadModelOutput:
        """``log P(x_{t+1} | x_{<=t})`` ``[B, Q, V]`` for every position of ``input_ids`` read
        after ``mems``, and the new memories.
        """
        hidden, mems = self.transformer(input_ids, mems)
        scores = torch.log_softmax(self.output_layer(hidden), dim=-1)
        return TransfoXLLMHeadModelOutput(scores, mems)
