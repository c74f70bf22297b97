"""The four kinds of fine-tuning input, as ids, segments and targets (Chapter 6, BERT).

BERT needs no task-specific architecture: the input format says what the task is.

- a single text (sentiment): ``[CLS] review [SEP]`` -> its label;
- a pair (inference): ``[CLS] premise [SEP] hypothesis [SEP]`` -> 0, 1 or 2;
- a span (question answering): ``[CLS] question [SEP] story [SEP]`` -> the positions of the
  answer's first and last token in the story;
- tokens (named entities): ``[CLS] words [SEP]`` -> a tag for the first piece of each word and
  ``-100`` (ignored by the loss) for the other pieces and the special tokens.

:func:`collate` pads a list of such examples into one :class:`TaskBatch`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import torch
from torch import Tensor

from coursekit.data.ner import TAGS
from coursekit.pretrain.masking import IGNORE_INDEX
from coursekit.text.collate import Batch
from coursekit.text.masks import padding_mask
from coursekit.text.padding import pad_batch
from coursekit.text.wordpiece import WordPieceTokenizer

Target = int | tuple[int, int] | list[int]
"""A label, the (first, last) token positions of an answer, or one tag id per token."""

EncodedExample = tuple[list[int], list[int], Target]
"""(token ids, segment ids, target)."""


class SingleText(Protocol):
    text: str
    label: int


class TextPair(Protocol):
    premise: str
    hypothesis: str
    label: int


class SpanQuestion(Protocol):
    context: str
    question: str
    answer: str
    answer_start: int


class TaggedWords(Protocol):
    words: list[str]
    tags: list[str]


@dataclass
class TaskBatch(Batch):
    """``input_ids``, ``token_type_ids``, ``attention_mask`` (1 = token, 0 = padding), all
    ``[B, T]``, and ``targets``: labels ``[B]``, answer spans ``[B, 2]`` or tags ``[B, T]``.
    """

    input_ids: Tensor
    token_type_ids: Tensor
    attention_mask: Tensor
    targets: Tensor


def encode_single(tokenizer: WordPieceTokenizer, example: SingleText) -> EncodedExample:
    """``[CLS] text [SEP]`` and the example's label."""
    encoding = tokenizer.encode(example.text)
    return encoding.ids, encoding.type_ids, example.label


def encode_pair(tokenizer: WordPieceTokenizer, example: TextPair) -> EncodedExample:
    """``[CLS] premise [SEP] hypothesis [SEP]`` and the example's label."""
    encoding = tokenizer.encode(example.premise, example.hypothesis)
    return encoding.ids, encoding.type_ids, example.label


def encode_span(tokenizer: WordPieceTokenizer, example: SpanQuestion) -> EncodedExample:
    """``[CLS] question [SEP] story [SEP]`` and the answer's (first, last) token positions,
    found by tokenizing the story up to the answer's first character (the answer starts a word).
    """
    encoding = tokenizer.encode(example.question, example.context)
    start = encoding.type_ids.index(1) + len(
        tokenizer.tokenize(example.context[: example.answer_start])
    )
    return (
        encoding.ids,
        encoding.type_ids,
        (start, start + len(tokenizer.tokenize(example.answer)) - 1),
    )


def encode_tags(tokenizer: WordPieceTokenizer, example: TaggedWords) -> EncodedExample:
    """``[CLS] words [SEP]``: each word's tag id on its first piece, ``-100`` elsewhere."""
    ids, tags = [tokenizer.cls_id], [IGNORE_INDEX]
    for word, tag in zip(example.words, example.tags, strict=True):
        pieces = tokenizer.convert_tokens_to_ids(tokenizer.tokenize(word))
        ids += pieces
        tags += [TAGS.index(tag)] + [IGNORE_INDEX] * (len(pieces) - 1)
    return [*ids, tokenizer.sep_id], [0] * (len(ids) + 1), [*tags, IGNORE_INDEX]


def collate(examples: list[EncodedExample], pad_id: int) -> TaskBatch:
    """Pad encoded examples into one batch: ids with ``pad_id``, segments with 0, tags with
    ``-100``; labels and spans become a tensor as they are.
    """
    ids, lengths = pad_batch([ids for ids, _, _ in examples], pad_id)
    segments, _ = pad_batch([segments for _, segments, _ in examples], 0)
    targets = [target for _, _, target in examples]
    if isinstance(targets[0], list):
        target_tensor, _ = pad_batch(targets, IGNORE_INDEX)  # type: ignore[arg-type]
    else:
        target_tensor = torch.tensor(targets)
    return TaskBatch(ids, segments, (~padding_mask(lengths)).long(), target_tensor)
