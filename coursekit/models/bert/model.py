"""BERT, the bidirectional Transformer encoder (Chapter 6, BERT).

BERT is the encoder of Chapter 5 alone, read in both directions at once: every position attends
to every other, left and right. The input is ``[CLS] A [SEP] B [SEP]``, embedded as token +
segment + position (:mod:`coursekit.models.bert.embeddings`); L post-norm encoder layers
(:mod:`coursekit.models.bert.encoder`) turn it into contextual vectors h_L; the pooler reads
the final state of ``[CLS]`` as the representation of the whole input:

    h_0 = Embeddings(x, s),   h_l = Layer_l(h_{l-1}),   pooled = tanh(W h_L[CLS] + b).

:class:`BertModel` is this encoder; the pretraining heads are in
:mod:`coursekit.models.bert.heads`, the fine-tuning heads in :mod:`coursekit.models.bert.tasks`.
The parts carry the book's names (``token_embeddings``, ``attention_output``, ``feed_forward_in``,
``mlm``); :data:`BERT_HF_NAMES` maps each to Hugging Face's, so that ``from_hf`` copies a
``transformers`` model and the models compute the same numbers (tested in float64, outputs and
gradients).
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

import torch
from torch import Tensor, nn

from coursekit.models.bert.config import BertConfig
from coursekit.models.bert.embeddings import BertEmbeddings
from coursekit.models.bert.encoder import BertEncoder, BertPooler, extended_attention_mask
from coursekit.models.bert.outputs import BertModelOutput
from coursekit.models.bert.requirements import require_bert_inputs
from coursekit.models.twins import load_hf_weights, require_hf_class

ModelT = TypeVar("ModelT", bound="BertPreTrainedModel")

BERT_HF_NAMES = {
    "token_embeddings": "word_embeddings",
    "segment_embeddings": "token_type_embeddings",
    "norm": "LayerNorm",
    "layers": "layer",
    "attention": "attention.self",
    "attention_output": "attention.output.dense",
    "attention_norm": "attention.output.LayerNorm",
    "feed_forward_in": "intermediate.dense",
    "feed_forward_out": "output.dense",
    "feed_forward_norm": "output.LayerNorm",
    "mlm": "cls.predictions",
    "transform": "transform.dense",
    "transform_norm": "transform.LayerNorm",
    "nsp": "cls.seq_relationship",
}
"""Hugging Face's name of each part of our parameter names that it names otherwise, e.g.
``bert.encoder.layers.0.feed_forward_in.weight`` -> ``bert.encoder.layer.0.intermediate.dense
.weight`` (see :func:`coursekit.models.twins.hf_name`)."""


class BertPreTrainedModel(nn.Module):
    """What every BERT model shares: its :class:`BertConfig`, BERT's initialisation and
    ``from_hf`` (Chapter 6, BERT).
    """

    hf_class_name: ClassVar[str]

    def __init__(self, config: BertConfig) -> None:
        super().__init__()
        if not isinstance(config, BertConfig):
            raise TypeError(
                f"config must be a coursekit BertConfig, got {type(config).__name__}; convert a "
                "Hugging Face config with BertConfig.from_hf(config)"
            )
        self.config = config

    def init_weights(self) -> None:
        """BERT's initialisation: every weight matrix and embedding from N(0, 0.02^2)
        (``initializer_range``), biases 0, LayerNorm gamma 1 and beta 0, the ``[PAD]`` row 0.
        """
        with torch.no_grad():
            for module in self.modules():
                if isinstance(module, (nn.Linear, nn.Embedding)):
                    module.weight.normal_(0.0, self.config.initializer_range)
                if isinstance(module, nn.Linear) and module.bias is not None:
                    module.bias.zero_()
            for module in self.modules():  # after the tied output layer has drawn its weights
                if isinstance(module, nn.Embedding) and module.padding_idx is not None:
                    module.weight[module.padding_idx] = 0.0

    @classmethod
    def from_hf(cls: type[ModelT], hf_model: nn.Module) -> ModelT:
        """A copy of a Hugging Face ``transformers`` model of the same name: same configuration
        (:meth:`BertConfig.from_hf`), weights, dtype, device and train/eval mode.
        """
        require_hf_class(hf_model, cls.hf_class_name, cls.__name__)
        model = cls(BertConfig.from_hf(hf_model.config), **cls.hf_arguments(hf_model))
        load_hf_weights(model, hf_model, BERT_HF_NAMES)
        return model.train(hf_model.training)

    @classmethod
    def hf_arguments(cls, hf_model: nn.Module) -> dict[str, Any]:
        """Constructor arguments besides the config that ``hf_model`` decides (none here)."""
        return {}


class BertModel(BertPreTrainedModel):
    """The BERT encoder (Chapter 6, BERT): ``h_0 = Embeddings(x, s)``, ``h_l =
    Layer_l(h_{l-1})`` for l = 1..L, and ``pooled = tanh(W h_L[CLS] + b)``.

    ``add_pooling_layer=False`` drops the pooler (the token-level heads do not use it).
    Same outputs as ``transformers.BertModel``.
    """

    hf_class_name = "BertModel"

    def __init__(self, config: BertConfig, add_pooling_layer: bool = True) -> None:
        super().__init__(config)
        self.embeddings = BertEmbeddings(config)
        self.encoder = BertEncoder(config)
        self.pooler = BertPooler(config) if add_pooling_layer else None
        self.init_weights()

    @classmethod
    def hf_arguments(cls, hf_model: nn.Module) -> dict[str, Any]:
        """Keep the pooler exactly when the Hugging Face model has one."""
        return {"add_pooling_layer": hf_model.pooler is not None}

    def forward(
        self,
        input_ids: Tensor | None = None,
        attention_mask: Tensor | None = None,
        token_type_ids: Tensor | None = None,
        inputs_embeds: Tensor | None = None,
        output_hidden_states: bool = False,
        output_attentions: bool = False,
    ) -> BertModelOutput:
        """Encode ``input_ids [B, T]`` (or ``inputs_embeds [B, T, H]``) with segments
        ``token_type_ids [B, T]`` (0 when None) and ``attention_mask [B, T]`` (1 = token,
        0 = padding; None = no padding).
        """
        require_bert_inputs(self.config, input_ids, attention_mask, token_type_ids, inputs_embeds)
        h_0 = self.embeddings(input_ids, token_type_ids, inputs_embeds)
        mask = (
            None if attention_mask is None else extended_attention_mask(attention_mask, h_0.dtype)
        )
        hidden_states, attentions = self.encoder(h_0, mask, output_attentions)
        h_last = hidden_states[-1]
        return BertModelOutput(
            last_hidden_state=h_last,
            pooler_output=None if self.pooler is None else self.pooler(h_last),
            hidden_states=tuple(hidden_states) if output_hidden_states else None,
            attentions=tuple(attentions) if output_attentions else None,
        )
