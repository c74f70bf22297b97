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
cross-entropies); :class:`BertForMaskedLM` only the first.
"""

from __future__ import annotations

from typing import Any

import torch.nn.functional as F
from torch import Tensor, nn

from coursekit.models.bert.config import BertConfig
from coursekit.models.bert.model import BertModel, BertPreTrainedModel
from coursekit.models.bert.outputs import BertLogitsOutput, BertPreTrainingOutput
from coursekit.models.transformer.layer_norm import LayerNorm


class MaskedLanguageModelHead(nn.Module):
    """``logits = LayerNorm(GELU(h W_T + b_T)) E^T + b`` (Chapter 6, BERT): ``transform`` is
    W_T, ``transform_norm`` the LayerNorm, ``decoder`` the output layer whose weight the model
    ties to the token embeddings E, and ``bias`` its bias b.
    """

    def __init__(self, config: BertConfig) -> None:
        super().__init__()
        self.transform = nn.Linear(config.hidden_size, config.hidden_size)
        self.transform_norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size)
        self.bias = self.decoder.bias

    def forward(self, hidden: Tensor) -> Tensor:
        """``[..., H] -> [..., V]``: a score for every token of the vocabulary, with the exact
        GELU x * Phi(x)."""
        return self.decoder(self.transform_norm(F.gelu(self.transform(hidden))))


class BertForPreTraining(BertPreTrainedModel):
    """BERT with both pretraining heads (Chapter 6, BERT): ``mlm`` gives the masked language
    model's ``prediction_logits`` [B, T, V], ``nsp`` next sentence prediction's
    ``seq_relationship_logits`` [B, 2]. Equal to ``transformers.BertForPreTraining``.
    """

    hf_class_name = "BertForPreTraining"

    def __init__(self, config: BertConfig) -> None:
        super().__init__(config)
        # the heads draw their first weights before the encoder, as when the checkpoints were made
        mlm, nsp = MaskedLanguageModelHead(config), nn.Linear(config.hidden_size, 2)
        self.bert = BertModel(config)
        self.mlm, self.nsp = mlm, nsp
        self.mlm.decoder.weight = self.bert.embeddings.token_embeddings.weight
        self.init_weights()

    def forward(self, *inputs: Any, **options: Any) -> BertPreTrainingOutput:
        """MLM logits at every position and NSP logits from the pooled ``[CLS]`` state, for the
        arguments of :meth:`BertModel.forward`."""
        encoded = self.bert(*inputs, **options)
        return BertPreTrainingOutput(
            prediction_logits=self.mlm(encoded.last_hidden_state),
            seq_relationship_logits=self.nsp(encoded.pooler_output),
            hidden_states=encoded.hidden_states,
            attentions=encoded.attentions,
        )


class BertForMaskedLM(BertPreTrainedModel):
    """BERT with the masked-language-model head only (Chapter 6, BERT): ``logits`` [B, T, V].
    No pooler. Equal to ``transformers.BertForMaskedLM``.
    """

    hf_class_name = "BertForMaskedLM"

    def __init__(self, config: BertConfig) -> None:
        super().__init__(config)
        mlm = MaskedLanguageModelHead(config)  # drawn before the encoder, as in BertForPreTraining
        self.bert = BertModel(config, add_pooling_layer=False)
        self.mlm = mlm
        self.mlm.decoder.weight = self.bert.embeddings.token_embeddings.weight
        self.init_weights()

    def forward(self, *inputs: Any, **options: Any) -> BertLogitsOutput:
        """A score for every vocabulary token at every position, for the arguments of
        :meth:`BertModel.forward`."""
        encoded = self.bert(*inputs, **options)
        logits = self.mlm(encoded.last_hidden_state)
        return BertLogitsOutput(logits, encoded.hidden_states, encoded.attentions)
