"""Next sentence prediction pairs (Chapter 6, BERT).

BERT's second pretraining task reads two segments, ``[CLS] A [SEP] B [SEP]``, and predicts from
the ``[CLS]`` state whether B is the text that follows A in the same document (IsNext, label 0)
or text taken from another document (NotNext, label 1), each half of the time:

    [CLS] the man went to [MASK] store [SEP] he bought a gallon [MASK] milk [SEP]   IsNext
    [CLS] the man [MASK] to the store [SEP] penguin [MASK] are flight ##less birds [SEP]  NotNext

A segment is a run of whole sentences: A starts at a random sentence and takes sentences until
it holds about half of the token budget; B continues the document (IsNext) or starts at a
random sentence of another document (NotNext) and fills the rest. The pair is then cut
longest-first to fit ``max_length`` with ``[CLS]`` and two ``[SEP]``\\ s. Every draw comes from
one ``torch.Generator``.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import torch

from coursekit.text.wordpiece_encoding import truncate_pair

IS_NEXT, NOT_NEXT = 0, 1
SENTENCE_BOUNDARY = re.compile(r"(?<=[.!?:])\s+(?=[A-Z\"'(\[])")

Document = list[list[int]]
"""A document as its sentences, each a list of token ids."""


class SentencePairExample(NamedTuple):
    """Segments A and B (token ids) and ``is_next``: 0 when B follows A, 1 when it does not."""

    segment_a: list[int]
    segment_b: list[int]
    is_next: int


def split_sentences(paragraph: str) -> list[str]:
    """Cut a paragraph after ``. ! ? :`` followed by a space and a capital or an opening mark."""
    return [sentence for sentence in SENTENCE_BOUNDARY.split(paragraph.strip()) if sentence]


def random_index(size: int, generator: torch.Generator) -> int:
    """A uniform draw from ``0 .. size - 1``."""
    return int(torch.randint(size, (), generator=generator))


def take_sentences(document: Document, start: int, budget: int) -> list[int]:
    """The tokens of sentences ``start, start + 1, ...`` until ``budget`` tokens are reached
    (at least one sentence; the last may overshoot and is cut later).
    """
    tokens: list[int] = []
    for sentence in document[start:]:
        tokens += sentence
        if len(tokens) >= budget:
            break
    return tokens


def sentence_pair(
    documents: list[Document], max_length: int, generator: torch.Generator
) -> SentencePairExample:
    """One next-sentence-prediction example (Chapter 6, BERT): A from a random document and
    sentence; with probability 1/2 B is the text after A (IsNext), otherwise text from a random
    other document (NotNext); both cut longest-first to ``max_length - 3`` tokens. The
    documents are those :func:`require_documents` accepts.
    """
    return document_sentence_pair(documents, max_length, generator)[1]


def document_sentence_pair(
    documents: list[Document], max_length: int, generator: torch.Generator
) -> tuple[int, SentencePairExample]:
    """The example of :func:`sentence_pair`, from the same draws, with the index of the
    document segment A comes from (what a bootstrap over documents resamples).
    """
    budget = max_length - 3
    index = random_index(len(documents), generator)
    document = documents[index]
    start = random_index(len(document) - 1, generator)  # A is followed by at least a sentence
    length_a = 1 + random_index(len(document) - 1 - start, generator)  # sentences in A
    segment_a = [token for sentence in document[start : start + length_a] for token in sentence]
    segment_a = segment_a[: max(1, budget // 2)]
    if float(torch.rand((), generator=generator)) < 0.5:
        segment_b = take_sentences(document, start + length_a, budget - len(segment_a))
        is_next = IS_NEXT
    else:
        other = (index + 1 + random_index(len(documents) - 1, generator)) % len(documents)
        other_start = random_index(len(documents[other]), generator)
        segment_b = take_sentences(documents[other], other_start, budget - len(segment_a))
        is_next = NOT_NEXT
    segment_a, truncated_b = truncate_pair(segment_a, segment_b, max_length)
    return index, SentencePairExample(segment_a, truncated_b or [], is_next)


def require_documents(documents: list[Document]) -> None:
    """At least two documents, each of at least two non-empty sentences."""
    if len(documents) < 2:
        raise ValueError(
            f"next sentence prediction needs at least 2 documents (NotNext draws from another "
            f"one), got {len(documents)}"
        )
    for position, document in enumerate(documents):
        if len(document) < 2 or not all(document):
            raise ValueError(
                f"document {position} must have at least 2 non-empty sentences (A needs a next "
                f"sentence), got {len(document)}"
            )
