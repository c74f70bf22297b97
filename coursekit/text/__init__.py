"""The text pipeline of Chapter 1, Text as sequences: tokenize, build a vocabulary, batch.

``get_tokenizer``, ``build_vocab_from_iterator`` and ``Vocab`` reproduce torchtext 0.18 id for id;
``pad_batch``, the masks, ``BucketBatchSampler`` and the collate functions turn numericalized text
into the padded tensors every model of the course consumes.
``WordPieceTokenizer`` and ``train_wordpiece`` are BERT's subword tokenizer and its vocabulary
learner (Chapter 6, BERT), equal id for id to Hugging Face ``tokenizers``.
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
from coursekit.text.wordpiece import WordPieceTokenizer, greedy_longest_match
from coursekit.text.wordpiece_comparison import compare_wordpiece_trainers
from coursekit.text.wordpiece_encoding import Encoding
from coursekit.text.wordpiece_pretokenizer import bert_normalize, pre_tokenize
from coursekit.text.wordpiece_training import train_wordpiece

__all__ = [
    "Batch",
    "BucketBatchSampler",
    "ClassificationBatch",
    "ClassificationCollate",
    "DuplicateTokenError",
    "Encoding",
    "LanguageModelBatch",
    "LanguageModelCollate",
    "Seq2SeqBatch",
    "Seq2SeqCollate",
    "TokenIndexError",
    "Tokenizer",
    "UnknownTokenError",
    "Vocab",
    "WordPieceTokenizer",
    "basic_english",
    "bert_normalize",
    "build_vocab_from_iterator",
    "causal_mask",
    "characters",
    "compare_wordpiece_trainers",
    "get_tokenizer",
    "greedy_longest_match",
    "numericalize",
    "pad_batch",
    "padding_fraction",
    "padding_mask",
    "pre_tokenize",
    "train_wordpiece",
    "whitespace",
]
