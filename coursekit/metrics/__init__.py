"""Evaluation metrics of the course: BLEU, perplexity and accuracy (Chapter 1, Text as sequences).

BLEU gives the same numbers as ``sacrebleu``, and every step of it is a function the book shows:
:func:`tokenize_13a`, :func:`ngram_counts`, :func:`modified_precision`,
:func:`closest_reference_length`, :func:`brevity_penalty`, :func:`bleu_from_statistics`.
"""

from __future__ import annotations

from coursekit.metrics.accuracy import accuracy
from coursekit.metrics.bleu import (
    closest_reference_length,
    corpus_bleu,
    modified_precision,
    ngram_counts,
    sentence_bleu,
)
from coursekit.metrics.bleu_score import (
    BLEUScore,
    bleu_from_statistics,
    brevity_penalty,
    smoothed_precisions,
)
from coursekit.metrics.perplexity import (
    evaluate_perplexity,
    perplexity,
    perplexity_from_losses,
    token_nll,
)
from coursekit.metrics.tokenize_13a import tokenize_13a

__all__ = [
    "BLEUScore",
    "accuracy",
    "bleu_from_statistics",
    "brevity_penalty",
    "closest_reference_length",
    "corpus_bleu",
    "evaluate_perplexity",
    "modified_precision",
    "ngram_counts",
    "perplexity",
    "perplexity_from_losses",
    "sentence_bleu",
    "smoothed_precisions",
    "token_nll",
    "tokenize_13a",
]
