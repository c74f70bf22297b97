"""BERT's pretraining heads: the masked language model and next sentence prediction
(Chapter 6, BERT).

The masked language model predicts the original token at every position from h_L, through a
transform and the output layer that shares its matrix with the token embeddings E (weight
tying), plus a bias per token:

    logits_t = LayerNorm(GELU(h_L[t] W_T + b_T)) E^T + b        ([B, T, V]).

Next sentence prediction classifies the pooled ``[CLS]`` state: is B the sentence that follows
A (IsNext, label 0) or a sentence from elsewhere (NotNext, label 1)?

    nsp_logits = pooled W_NSP + b_NSP                          ([B, 2]).

:class:`BertForPreTraining` has both heads (the pretraining objective adds the two
cross-entropies); :class:`BertForMaskedLM` only the first. Parameter names are Hugging Face's
(``cls.predictions.transform.dense``, ``cls.predictions.decoder``, ``cls.seq_relationship``).
"""

from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor, nn

from coursekit.models.bert.config import BertConfig
from coursekit.models.bert.model import BertModel, BertWithHeads
from coursekit.models.bert.outputs import BertLogitsOutput, BertModelOutput, BertPreTrainingOutput
from coursekit.models.transformer.layer_norm import LayerNorm


class BertPredictionHeadTransform(nn.Module):
    """``LayerNorm(GELU(h W_T + b_T))``: ``dense`` and ``LayerNorm`` (Chapter 6, BERT)."""

    def __init__(self, config: BertConfig) -> None:
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.LayerNorm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def forward(self, hidden: Tensor) -> Tensor:
        """``[..., H] -> [..., H]`` with the exact GELU x * Phi(x)."""
        return self.LayerNorm(F.gelu(self.dense(hidden)))


class BertLMPredictionHead(nn.Module):
    """``logits = Transform(h) E^T + b`` (Chapter 6, BERT): ``decoder`` is the output layer,
    whose weight the model ties to the token embeddings E and whose bias is ``bias``.
    """

    def __init__(self, config: BertConfig) -> None:
        super().__init__()
        self.transform = BertPredictionHeadTransform(config)
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size)
        self.bias = self.decoder.bias

    def forward(self, hidden: Tensor) -> Tensor:
        """``[..., H] -> [..., V]``: a score for every token of the vocabulary."""
        return self.decoder(self.transform(hidden))


class BertOnlyMLMHead(nn.Module):
    """The masked-language-model head alone, as ``predictions`` (Hugging Face's layout)."""

    def __init__(self, config: BertConfig) -> None:
        super().__init__()
        self.predictions = BertLMPredictionHead(config)


class BertPreTrainingHeads(BertOnlyMLMHead):
    """Both pretraining heads: ``predictions`` (MLM) and ``seq_relationship`` (NSP)."""

    def __init__(self, config: BertConfig) -> None:
        super().__init__(config)
        self.seq_relationship = nn.Linear(config.hidden_size, 2)


class BertWithLanguageModelHead(BertWithHeads):
    """A BERT encoder and MLM head whose output layer shares its matrix with the token
    embeddings: ``decoder.weight`` is ``word_embeddings.weight``, one matrix E for both.
    """

    cls: BertOnlyMLMHead

    def __init__(self, config: BertConfig, heads: BertOnlyMLMHead, add_pooling_layer: bool) -> None:
        super().__init__(config)
        self.bert = BertModel(config, add_pooling_layer=add_pooling_layer)
        self.cls = heads
        self.cls.predictions.decoder.weight = self.bert.embeddings.word_embeddings.weight
        self.init_weights()


class BertForPreTraining(BertWithLanguageModelHead):
    """BERT with both pretraining heads (Chapter 6, BERT): ``prediction_logits`` [B, T, V] of
    the masked language model and ``seq_relationship_logits`` [B, 2] of next sentence
    prediction. Equal to ``transformers.BertForPreTraining``.
    """

    hf_class_name = "BertForPreTraining"
    cls: BertPreTrainingHeads

    def __init__(self, config: BertConfig) -> None:
        super().__init__(config, BertPreTrainingHeads(config), add_pooling_layer=True)

    def heads(self, encoded: BertModelOutput) -> BertPreTrainingOutput:
        """MLM logits at every position, NSP logits from the pooled ``[CLS]`` state."""
        return BertPreTrainingOutput(
            prediction_logits=self.cls.predictions(encoded.last_hidden_state),
            seq_relationship_logits=self.cls.seq_relationship(encoded.pooler_output),
            hidden_states=encoded.hidden_states,
            attentions=encoded.attentions,
        )


class BertForMaskedLM(BertWithLanguageModelHead):
    """BERT with the masked-language-model head only (Chapter 6, BERT): ``logits`` [B, T, V].
    No pooler. Equal to ``transformers.BertForMaskedLM``.
    """

    hf_class_name = "BertForMaskedLM"

    def __init__(self, config: BertConfig) -> None:
        super().__init__(config, BertOnlyMLMHead(config), add_pooling_layer=False)

    def heads(self, encoded: BertModelOutput) -> BertLogitsOutput:
        """A score for every vocabulary token at every position."""
        logits = self.cls.predictions(encoded.last_hidden_state)
        return BertLogitsOutput(logits, encoded.hidden_states, encoded.attentions)
