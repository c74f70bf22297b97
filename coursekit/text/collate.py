"""Collate functions: from a list of examples to one batch of padded tensors (Chapter 1).

Pass one as ``DataLoader(dataset, collate_fn=...)``. Each builds on two steps:
:func:`numericalize` (text -> ids, ``vocab(tokenizer(text))``) and
:func:`coursekit.text.padding.pad_batch` (ids -> ``[B, T]`` tensor and lengths). Batches are
dataclasses of tensors with a ``.to(device)`` method, shaped ``[B, T]`` (batch first).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import torch
from torch import Tensor

from coursekit.text.padding import as_id_tensor, pad_batch
from coursekit.text.tokenizers import Tokenizer
from coursekit.text.vocab import Vocab


def numericalize(text: str, tokenizer: Tokenizer, vocab: Vocab) -> list[int]:
    """Text to ids: ``[stoi[t] for t in tokenizer(text)]`` (Chapter 1, Text as sequences)."""
    return vocab(tokenizer(text))


def split_pairs(examples: Sequence[Any], layout: str) -> tuple[list[Any], list[Any]]:
    """Split a batch of 2-tuples ``[(a_1, b_1), ...]`` into ``[a_1, ...]`` and ``[b_1, ...]``."""
    if len(examples) == 0:
        raise ValueError("cannot collate an empty batch")
    for example in examples:
        if not isinstance(example, Sequence) or isinstance(example, str) or len(example) != 2:
            raise ValueError(f"each example must be a pair {layout}, got {example!r}")
    return [example[0] for example in examples], [example[1] for example in examples]


BatchT = TypeVar("BatchT", bound="Batch")


@dataclass
class Batch:
    """Base of the batch dataclasses: every field is a tensor."""

    def to(self: BatchT, device: torch.device | str, non_blocking: bool = False) -> BatchT:
        """A copy of the batch with every tensor moved to ``device``."""
        moved = {
            field.name: getattr(self, field.name).to(device, non_blocking=non_blocking)
            for field in dataclasses.fields(self)
        }
        return dataclasses.replace(self, **moved)


@dataclass
class ClassificationBatch(Batch):
    """Texts and their labels: ``tokens [B, T]``, ``lengths [B]``, ``labels [B]``."""

    tokens: Tensor
    lengths: Tensor
    labels: Tensor


@dataclass
class LanguageModelBatch(Batch):
    """Next-token prediction: ``targets[b, t] = inputs[b, t + 1]`` of the same sequence.

    ``inputs`` and ``targets`` are ``[B, T]``; ``lengths [B]`` counts the real positions.
    """

    inputs: Tensor
    targets: Tensor
    lengths: Tensor


@dataclass
class Seq2SeqBatch(Batch):
    """Translation pairs, with teacher forcing: the decoder reads ``tgt_in``, predicts ``tgt_out``.

    ``src [B, S]``, ``src_lengths [B]``, ``tgt_in = <sos> y [B, T]``,
    ``tgt_out = y <eos> [B, T]``, ``tgt_lengths [B]`` (``|y| + 1``).
    """

    src: Tensor
    src_lengths: Tensor
    tgt_in: Tensor
    tgt_out: Tensor
    tgt_lengths: Tensor


class ClassificationCollate:
    """Collate ``(text, label)`` pairs into a :class:`ClassificationBatch` (Chapter 1).

    ``tokens[b] = pad(numericalize(text_b))``; labels become a LongTensor of class ids.
    """

    def __init__(self, tokenizer: Tokenizer, vocab: Vocab, pad_index: int) -> None:
        self.tokenizer = tokenizer
        self.vocab = vocab
        self.pad_index = pad_index

    def __call__(self, examples: Sequence[tuple[str, int]]) -> ClassificationBatch:
        texts, labels = split_pairs(examples, "(text, label)")
        ids = [numericalize(text, self.tokenizer, self.vocab) for text in texts]
        tokens, lengths = pad_batch(ids, padding_value=self.pad_index)
        return ClassificationBatch(tokens, lengths, torch.tensor(labels, dtype=torch.long))


class LanguageModelCollate:
    """Collate id sequences ``x`` into inputs ``x[:-1]`` and targets ``x[1:]`` (Chapter 1).

    A language model predicts ``x_{t+1}`` from ``x_1..x_t``, so the targets are the inputs
    shifted by one. Both are padded with ``pad_index``: train with
    ``CrossEntropyLoss(ignore_index=pad_index)``.
    """

    def __init__(self, pad_index: int) -> None:
        self.pad_index = pad_index

    def __call__(self, sequences: Sequence[Tensor | Sequence[int]]) -> LanguageModelBatch:
        tensors = [as_id_tensor(sequence) for sequence in sequences]
        too_short = [len(tensor) for tensor in tensors if len(tensor) < 2]
        if too_short:
            raise ValueError(
                "a language-model example needs at least 2 ids (an input and its next id); "
                f"got sequences of length {too_short}"
            )
        inputs, lengths = pad_batch([tensor[:-1] for tensor in tensors], self.pad_index)
        targets, _ = pad_batch([tensor[1:] for tensor in tensors], self.pad_index)
        return LanguageModelBatch(inputs, targets, lengths)


class Seq2SeqCollate:
    """Collate ``(source, target)`` text pairs into a :class:`Seq2SeqBatch` (Chapters 1 and 4).

    ``src = x`` (reversed when ``reverse_source``, the trick of Sutskever et al., 2014),
    ``tgt_in = <sos> y`` and ``tgt_out = y <eos>``, each padded with ``pad_index``.
    """

    def __init__(
        self,
        src_tokenizer: Tokenizer,
        src_vocab: Vocab,
        tgt_tokenizer: Tokenizer,
        tgt_vocab: Vocab,
        sos_index: int,
        eos_index: int,
        pad_index: int,
        reverse_source: bool = False,
    ) -> None:
        self.src_tokenizer = src_tokenizer
        self.src_vocab = src_vocab
        self.tgt_tokenizer = tgt_tokenizer
        self.tgt_vocab = tgt_vocab
        self.sos_index = sos_index
        self.eos_index = eos_index
        self.pad_index = pad_index
        self.reverse_source = reverse_source

    def __call__(self, pairs: Sequence[tuple[str, str]]) -> Seq2SeqBatch:
        sources, targets = split_pairs(pairs, "(source text, target text)")
        src_ids = [numericalize(text, self.src_tokenizer, self.src_vocab) for text in sources]
        if self.reverse_source:
            src_ids = [ids[::-1] for ids in src_ids]
        tgt_ids = [numericalize(text, self.tgt_tokenizer, self.tgt_vocab) for text in targets]
        src, src_lengths = pad_batch(src_ids, self.pad_index)
        tgt_in, tgt_lengths = pad_batch([[self.sos_index, *ids] for ids in tgt_ids], self.pad_index)
        tgt_out, _ = pad_batch([[*ids, self.eos_index] for ids in tgt_ids], self.pad_index)
        return Seq2SeqBatch(src, src_lengths, tgt_in, tgt_out, tgt_lengths)
