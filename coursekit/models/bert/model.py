"""BERT, the bidirectional Transformer encoder (Chapter 6, BERT).

BERT is the encoder of Chapter 5 alone, read in both directions at once: every position attends
to every other, left and right. The input is ``[CLS] A [SEP] B [SEP]``, embedded as token +
segment + position (:mod:`coursekit.models.bert.embeddings`); L post-norm encoder layers
(:mod:`coursekit.models.bert.encoder`) turn it into contextual vectors h_L; the pooler reads
the final state of ``[CLS]`` as the representation of the whole input:

    h_0 = Embeddings(x, s),   h_l = Layer_l(h_{l-1}),   pooled = tanh(W h_L[CLS] + b).

:class:`BertModel` is this encoder; the pretraining and fine-tuning heads are in
:mod:`coursekit.models.bert.heads`. Every parameter has Hugging Face's name, so ``from_hf``
copies a ``transformers`` model with ``load_state_dict``, and the models compute the same
numbers (tested in float64, outputs and gradients).
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

import torch
from torch import Tensor, nn

from coursekit.models.bert.checks import check_bert_inputs, check_hf_model
from coursekit.models.bert.config import BertConfig
from coursekit.models.bert.embeddings import BertEmbeddings
from coursekit.models.bert.encoder import BertEncoder, BertPooler, extended_attention_mask
from coursekit.models.bert.outputs import BertModelOutput

ModelT = TypeVar("ModelT", bound="BertPreTrainedModel")


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
        check_hf_model(cls, hf_model)
        model = cls(BertConfig.from_hf(hf_model.config), **cls.hf_arguments(hf_model))
        reference = next(hf_model.parameters())
        model.to(dtype=reference.dtype, device=reference.device)
        model.load_state_dict(hf_model.state_dict())
        return model.train(hf_model.training)

    @classmethod
    def hf_arguments(cls, hf_model: nn.Module) -> dict[str, Any]:
        """Constructor arguments besides the config that ``hf_model`` decides (none here)."""
        return {}


class BertModel(BertPreTrainedModel):
    """The BERT encoder (Chapter 6, BERT): ``h_0 = Embeddings(x, s)``, ``h_l =
    Layer_l(h_{l-1})`` for l = 1..L, and ``pooled = tanh(W h_L[CLS] + b)``.

    ``add_pooling_layer=False`` drops the pooler (the token-level heads do not use it).
    Same parameter names and outputs as ``transformers.BertModel``.
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
        check_bert_inputs(self.config, input_ids, attention_mask, token_type_ids, inputs_embeds)
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


class BertWithHeads(BertPreTrainedModel):
    """A :class:`BertModel` (``bert``) with task heads on top (Chapter 6, BERT): ``forward``
    encodes the input and hands the encoder's output to :meth:`heads`.
    """

    bert: BertModel

    def heads(self, encoded: BertModelOutput) -> Any:
        """The task's outputs computed from the encoder's output."""
        raise NotImplementedError

    def forward(self, *inputs: Any, **options: Any) -> Any:
        """The heads' outputs for the arguments of :meth:`BertModel.forward` (``input_ids``,
        ``attention_mask``, ``token_type_ids``, ``inputs_embeds``, ``output_hidden_states``,
        ``output_attentions``).
        """
        return self.heads(self.bert(*inputs, **options))
