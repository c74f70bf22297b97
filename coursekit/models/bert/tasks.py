"""Fine-tuning BERT: one small output layer per task type (Chapter 6, BERT).

Fine-tuning adds a layer on top of the pretrained encoder and trains all parameters:

- sentence (pair) classification (sentiment; entailment / contradiction / neutral):
  ``logits = Dropout(pooled) W + b``, ``[B, C]``;
- token classification (named entities, BIO tags): ``logits_t = Dropout(h_L[t]) W + b``,
  ``[B, T, C]``;
- span question answering: a start vector S and an end vector E score every token,
  ``start_t = S . h_L[t]`` and ``end_t = E . h_L[t]``; the answer is the span i..j (j >= i)
  of highest ``start_i + end_j`` (:mod:`coursekit.models.bert.span`).

The token-level models have no pooler, as in ``transformers``.
"""

from __future__ import annotations

from typing import Any

from torch import nn

from coursekit.models.bert.config import BertConfig
from coursekit.models.bert.model import BertModel, BertPreTrainedModel
from coursekit.models.bert.outputs import (
    BertLogitsOutput,
    BertQuestionAnsweringOutput,
)


class BertForSequenceClassification(BertPreTrainedModel):
    """``logits = Dropout(pooled) W + b``, ``[B, num_labels]``: one class per input, a single
    text or a pair (Chapter 6, BERT). Equal to ``transformers.BertForSequenceClassification``
    (single-label classification).
    """

    hf_class_name = "BertForSequenceClassification"

    def __init__(self, config: BertConfig) -> None:
        super().__init__(config)
        self.bert = BertModel(config)
        self.dropout = nn.Dropout(config.head_dropout)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)
        self.init_weights()

    def forward(self, *inputs: Any, **options: Any) -> BertLogitsOutput:
        """The class scores from the pooled ``[CLS]`` state, for the arguments of
        :meth:`BertModel.forward`."""
        encoded = self.bert(*inputs, **options)
        logits = self.classifier(self.dropout(encoded.pooler_output))
        return BertLogitsOutput(logits, encoded.hidden_states, encoded.attentions)


class BertForTokenClassification(BertPreTrainedModel):
    """``logits_t = Dropout(h_L[t]) W + b``, ``[B, T, num_labels]``: one class per token
    (Chapter 6, BERT). No pooler. Equal to ``transformers.BertForTokenClassification``.
    """

    hf_class_name = "BertForTokenClassification"

    def __init__(self, config: BertConfig) -> None:
        super().__init__(config)
        self.bert = BertModel(config, add_pooling_layer=False)
        self.dropout = nn.Dropout(config.head_dropout)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)
        self.init_weights()

    def forward(self, *inputs: Any, **options: Any) -> BertLogitsOutput:
        """The class scores of every token from its final state, for the arguments of
        :meth:`BertModel.forward`."""
        encoded = self.bert(*inputs, **options)
        logits = self.classifier(self.dropout(encoded.last_hidden_state))
        return BertLogitsOutput(logits, encoded.hidden_states, encoded.attentions)


class BertForQuestionAnswering(BertPreTrainedModel):
    """``start_logits_t = S . h_L[t] + b_S`` and ``end_logits_t = E . h_L[t] + b_E``, the two
    rows of ``qa_outputs`` (Chapter 6, BERT). No pooler. Equal to
    ``transformers.BertForQuestionAnswering``.
    """

    hf_class_name = "BertForQuestionAnswering"

    def __init__(self, config: BertConfig) -> None:
        super().__init__(config)
        self.bert = BertModel(config, add_pooling_layer=False)
        self.qa_outputs = nn.Linear(config.hidden_size, 2)
        self.init_weights()

    def forward(self, *inputs: Any, **options: Any) -> BertQuestionAnsweringOutput:
        """Start and end scores ``[B, T]`` of every token, for the arguments of
        :meth:`BertModel.forward`."""
        encoded = self.bert(*inputs, **options)
        start_logits, end_logits = self.qa_outputs(encoded.last_hidden_state).unbind(dim=-1)
        return BertQuestionAnsweringOutput(
            start_logits, end_logits, encoded.hidden_states, encoded.attentions
        )
