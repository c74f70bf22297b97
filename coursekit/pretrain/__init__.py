"""Pretraining BERT: masked language model and next sentence prediction (Chapter 6, BERT).

:mod:`.masking` corrupts 15 % of the tokens (80 % ``[MASK]``, 10 % random, 10 % unchanged),
:mod:`.nsp` draws IsNext / NotNext sentence pairs, :mod:`.batches` turns them into padded,
freshly masked batches, :mod:`.objective` is the loss L_MLM + L_NSP and its accuracies,
:mod:`.bert_pretraining` trains a small BERT with :func:`coursekit.train.fit`,
:mod:`.bootstrap` bounds its held-out next-sentence accuracy by resampling documents, and
:mod:`.checkpoint` saves it and loads it for fine-tuning, :mod:`.fine_tuning` fine-tunes it on
the four kinds of task, and :mod:`.transfer` measures what pretraining on unlabelled reviews
brings to sentiment, against the same network from scratch and a control corpus.
``python -m coursekit.pretrain bert`` runs the pretraining (:mod:`.command`).
"""

from __future__ import annotations

from coursekit.pretrain.batches import PretrainingBatch, PretrainingBatches, PretrainingCollator
from coursekit.pretrain.bert_pretraining import PretrainingRun, PretrainingSettings, pretrain_bert
from coursekit.pretrain.checkpoint import PRETRAINED_BERT, load_pretrained, read_metadata
from coursekit.pretrain.masking import IGNORE_INDEX, MaskingRule, mask_tokens
from coursekit.pretrain.nsp import IS_NEXT, NOT_NEXT, sentence_pair, split_sentences
from coursekit.pretrain.objective import pretraining_accuracies, pretraining_loss
from coursekit.pretrain.schedule import WarmupLinearDecay

__all__ = [
    "IGNORE_INDEX",
    "IS_NEXT",
    "MaskingRule",
    "NOT_NEXT",
    "PRETRAINED_BERT",
    "PretrainingBatch",
    "PretrainingBatches",
    "PretrainingCollator",
    "PretrainingRun",
    "PretrainingSettings",
    "WarmupLinearDecay",
    "load_pretrained",
    "mask_tokens",
    "pretrain_bert",
    "pretraining_accuracies",
    "pretraining_loss",
    "read_metadata",
    "sentence_pair",
    "split_sentences",
]
