"""BERT's input representation: token + segment + position embeddings (Chapter 6, BERT).

Each input token is the sum of three learned vectors, normalised and passed through dropout:

    h_0[t] = Dropout(LayerNorm(E_token[x_t] + E_segment[s_t] + E_position[t])),

where x_t is the WordPiece id, s_t the segment (0 for ``[CLS] A [SEP]``, 1 for ``B [SEP]``) and
t the position (0 .. 511 in BERT-BASE). Unlike the Transformer of Chapter 5 the positions are
learned vectors, not sinusoids, and the token embeddings are not scaled by sqrt(d_model). The
row of ``[PAD]`` gets no gradient, as in ``nn.Embedding(padding_idx=...)``.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from coursekit.models.bert.config import BertConfig
from coursekit.models.transformer.layer_norm import LayerNorm


def bert_embedding(
    token_embeddings: Tensor,
    token_type_ids: Tensor,
    segment_weight: Tensor,
    position_weight: Tensor,
    norm: nn.Module,
    dropout: nn.Module,
) -> Tensor:
    """``Dropout(LayerNorm(E_token[x] + E_segment[s] + E_position[t]))`` for token
    embeddings ``[B, T, H]`` already looked up (Chapter 6, BERT).
    """
    positions = torch.arange(token_embeddings.shape[1], device=token_embeddings.device)
    summed = token_embeddings + F.embedding(token_type_ids, segment_weight)
    return dropout(norm(summed + F.embedding(positions, position_weight)))


class BertEmbeddings(nn.Module):
    """``h_0 = Dropout(LayerNorm(E_token[x] + E_segment[s] + E_position[t]))`` (Chapter 6).

    ``token_embeddings``, ``position_embeddings`` and ``segment_embeddings`` are the three
    tables (``nn.Embedding``\\ s), ``norm`` the LayerNorm.
    """

    def __init__(self, config: BertConfig) -> None:
        super().__init__()
        self.token_embeddings = nn.Embedding(
            config.vocab_size, config.hidden_size, padding_idx=config.pad_token_id
        )
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.segment_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.norm = LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(
        self,
        input_ids: Tensor | None = None,
        token_type_ids: Tensor | None = None,
        inputs_embeds: Tensor | None = None,
    ) -> Tensor:
        """``h_0 [B, T, H]`` from ``input_ids [B, T]`` (or their embeddings ``inputs_embeds
        [B, T, H]``) and ``token_type_ids [B, T]`` (all 0 when None).
        """
        if inputs_embeds is None:
            inputs_embeds = self.token_embeddings(input_ids)
        if token_type_ids is None:
            token_type_ids = inputs_embeds.new_zeros(inputs_embeds.shape[:2], dtype=torch.long)
        return bert_embedding(
            inputs_embeds,
            token_type_ids,
            self.segment_embeddings.weight,
            self.position_embeddings.weight,
            self.norm,
            self.dropout,
        )
