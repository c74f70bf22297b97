"""What the BERT models return, under Hugging Face's field names (Chapter 6, BERT).

Every output carries ``hidden_states`` (the embeddings h_0 and the output of each of the L
layers, L + 1 tensors ``[B, T, H]``, when asked with ``output_hidden_states=True``) and
``attentions`` (L tensors ``[B, A, T, T]`` with ``output_attentions=True``); otherwise None.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch import Tensor

Tensors = tuple[Tensor, ...]


@dataclass
class BertModelOutput:
    """``last_hidden_state`` ``[B, T, H]`` = h_L; ``pooler_output`` ``[B, H]`` =
    tanh(W h_L[CLS] + b), None without a pooler (Chapter 6, BERT).
    """

    last_hidden_state: Tensor
    pooler_output: Tensor | None = None
    hidden_states: Tensors | None = None
    attentions: Tensors | None = None


@dataclass
class BertPreTrainingOutput:
    """``prediction_logits`` ``[B, T, V]`` (masked language model) and
    ``seq_relationship_logits`` ``[B, 2]`` (next sentence: 0 = IsNext, 1 = NotNext)
    (Chapter 6, BERT).
    """

    prediction_logits: Tensor
    seq_relationship_logits: Tensor
    hidden_states: Tensors | None = None
    attentions: Tensors | None = None


@dataclass
class BertLogitsOutput:
    """``logits``: ``[B, T, V]`` for the masked language model, ``[B, C]`` for sequence
    classification, ``[B, T, C]`` for token classification (Chapter 6, BERT).
    """

    logits: Tensor
    hidden_states: Tensors | None = None
    attentions: Tensors | None = None


@dataclass
class BertQuestionAnsweringOutput:
    """``start_logits`` = S . T_i and ``end_logits`` = E . T_j, each ``[B, T]`` (Chapter 6)."""

    start_logits: Tensor
    end_logits: Tensor
    hidden_states: Tensors | None = None
    attentions: Tensors | None = None
