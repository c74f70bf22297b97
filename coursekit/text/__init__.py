"""The text pipeline of Chapter 1, Text as sequences: tokenize, build a vocabulary, batch.

``get_tokenizer``, ``build_vocab_from_iterator`` and ``Vocab`` reproduce torchtext 0.18 id for id;
``pad_batch``, the masks, ``BucketBatchSampler`` and the collate functions turn numericalized text
into the padded tensors every model of the course consumes.
"""

from __future__ import annotations

from coursekit.text.bucketing import BucketBatchSampler, padding_fraction
from coursekit.text.collate import (
    Batch,
    ClassificationBatch,
    ClassificationCollate,
    LanguageModelBatch,
    LanguageModelCollate,
    Seq2SeqBatch,
    Seq2SeqCollate,
    numericalize,
)
from coursekit.text.masks import causal_mask, padding_mask
from coursekit.text.padding import pad_batch
from coursekit.text.tokenizers import (
    Tokenizer,
    basic_english,
    characters,
    get_tokenizer,
    whitespace,
)
from coursekit.text.vocab import (
    DuplicateTokenError,
    TokenIndexError,
    UnknownTokenError,
    Vocab,
    build_vocab_from_iterator,
)

__all__ = [
    "Batch",
    "BucketBatchSampler",
    "ClassificationBatch",
    "ClassificationCollate",
    "DuplicateTokenError",
    "LanguageModelBatch",
    "LanguageModelCollate",
    "Seq2SeqBatch",
    "Seq2SeqCollate",
    "TokenIndexError",
    "Tokenizer",
    "UnknownTokenError",
    "Vocab",
    "basic_english",
    "build_vocab_from_iterator",
    "causal_mask",
    "characters",
    "get_tokenizer",
    "numericalize",
    "pad_batch",
    "padding_fraction",
    "padding_mask",
    "whitespace",
]
