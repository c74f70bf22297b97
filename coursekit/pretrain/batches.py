"""Pretraining batches: sentence pairs, or single texts, padded, with dynamic masking
(Chapter 6, BERT).

Each batch is drawn afresh: new sentence pairs (:mod:`coursekit.pretrain.nsp`), or texts drawn
at random for a masked language model alone (:class:`TextBatches`), and a new masking of their
tokens (:mod:`coursekit.pretrain.masking`). Drawing the masks anew for every
batch, rather than once for the whole corpus as the original BERT did, is RoBERTa's *dynamic
masking*: the same sentence is seen with different masks, which helps a small corpus go
further. Every draw comes from the stream's own ``torch.Generator``, which
:func:`coursekit.train.fit` saves in its checkpoints, so that a resumed run draws the same
batches as an uninterrupted one.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from coursekit.pretrain.masking import IGNORE_INDEX, MaskingRule, mask_tokens
from coursekit.pretrain.nsp import (
    Document,
    SentencePairExample,
    document_sentence_pair,
    require_documents,
    split_sentences,
)
from coursekit.text.collate import Batch
from coursekit.text.masks import padding_mask
from coursekit.text.padding import pad_batch
from coursekit.text.wordpiece import CONTINUATION, WordPieceTokenizer
from coursekit.text.wordpiece_encoding import bert_input


@dataclass
class PretrainingBatch(Batch):
    """``input_ids``, ``token_type_ids``, ``attention_mask`` (1 = token) and ``mlm_labels``
    (the original id where a token was chosen, -100 elsewhere), all ``[B, T]``, and
    ``nsp_labels`` ``[B]`` (0 IsNext, 1 NotNext; -100 for a single text) (Chapter 6, BERT). ``chosen_tokens`` and
    ``pairs`` count what the loss averages over: this batch's, or, for one process's shard of
    a batch shared by several (:mod:`coursekit.pretrain.distributed`), the whole batch's.
    """

    input_ids: Tensor
    token_type_ids: Tensor
    attention_mask: Tensor
    mlm_labels: Tensor
    nsp_labels: Tensor
    chosen_tokens: Tensor
    pairs: Tensor


def tokenize_documents(
    texts: Sequence[Sequence[str]], tokenizer: WordPieceTokenizer
) -> list[Document]:
    """Every document (a list of paragraphs) as its sentences' token ids; documents with fewer
    than two sentences are dropped (next sentence prediction needs a next sentence).
    """
    documents = []
    for paragraphs in texts:
        sentences = [
            tokenizer.convert_tokens_to_ids(tokenizer.tokenize(sentence))
            for paragraph in paragraphs
            for sentence in split_sentences(paragraph)
        ]
        sentences = [sentence for sentence in sentences if sentence]
        if len(sentences) >= 2:
            documents.append(sentences)
    return documents


class PretrainingCollator:
    """Sentence pairs, or single texts, -> a padded, masked :class:`PretrainingBatch`
    (Chapter 6, BERT)."""

    def __init__(
        self, tokenizer: WordPieceTokenizer, rule: MaskingRule, whole_word_masking: bool
    ) -> None:
        self.cls_id, self.sep_id, self.pad_id = tokenizer.cls_id, tokenizer.sep_id, tokenizer.pad_id
        self.mask_id = tokenizer.mask_id
        self.special_ids = torch.tensor(tokenizer.special_ids)
        ids = torch.arange(max(tokenizer.vocab.values()) + 1)
        self.random_ids = ids[~torch.isin(ids, self.special_ids)]
        self.continuation = torch.tensor(
            [token.startswith(CONTINUATION) for token in tokenizer.id_to_token_list]
        )
        self.rule, self.whole_word_masking = rule, whole_word_masking

    def __call__(
        self, examples: Sequence[SentencePairExample], generator: torch.Generator
    ) -> PretrainingBatch:
        """``[CLS] A [SEP] B [SEP]`` per example, padded with ``[PAD]``, then masked."""
        inputs = [bert_input(a, b, self.cls_id, self.sep_id) for a, b, _ in examples]
        return self.masked(inputs, [is_next for _, _, is_next in examples], generator)

    def single_texts(
        self, texts: Sequence[list[int]], generator: torch.Generator
    ) -> PretrainingBatch:
        """``[CLS] text [SEP]`` per text, padded and masked; no next-sentence label (-100)."""
        inputs = [bert_input(text, None, self.cls_id, self.sep_id) for text in texts]
        return self.masked(inputs, [IGNORE_INDEX] * len(texts), generator)

    def masked(
        self,
        inputs: Sequence[tuple[list[int], list[int]]],
        nsp_labels: list[int],
        generator: torch.Generator,
    ) -> PretrainingBatch:
        """Pad the (ids, segments) inputs and choose, then corrupt, the tokens to predict."""
        input_ids, lengths = pad_batch([ids for ids, _ in inputs], self.pad_id)
        token_type_ids, _ = pad_batch([types for _, types in inputs], 0)
        maskable = ~torch.isin(input_ids, self.special_ids)
        word_starts = ~self.continuation[input_ids] if self.whole_word_masking else None
        masked_ids, mlm_labels = mask_tokens(
            input_ids, maskable, self.mask_id, self.random_ids, generator, self.rule, word_starts
        )
        return PretrainingBatch(
            input_ids=masked_ids,
            token_type_ids=token_type_ids,
            attention_mask=(~padding_mask(lengths)).long(),
            mlm_labels=mlm_labels,
            nsp_labels=torch.tensor(nsp_labels),
            chosen_tokens=(mlm_labels != IGNORE_INDEX).sum(),
            pairs=torch.tensor(len(inputs)),
        )


class FreshBatches:
    """``steps`` batches of ``batch_size`` examples per pass, each drawn afresh by
    :meth:`next_batch` (Chapter 6, BERT); ``generator`` (seeded with ``seed``) makes every draw,
    so the stream repeats exactly from the same seed and resumes from a saved generator state.
    """

    def __init__(
        self, collator: PretrainingCollator, batch_size: int, steps: int, seed: int
    ) -> None:
        self.collator, self.batch_size, self.steps = collator, batch_size, steps
        self.generator = torch.Generator().manual_seed(seed)

    def __len__(self) -> int:
        return self.steps

    def __iter__(self) -> Iterator[PretrainingBatch]:
        for _ in range(self.steps):
            yield self.next_batch()

    def next_batch(self) -> PretrainingBatch:
        """One batch, drawn and masked afresh."""
        raise NotImplementedError


class PretrainingBatches(FreshBatches):
    """``steps`` batches of ``batch_size`` fresh sentence pairs, freshly masked, per pass
    (Chapter 6, BERT).
    """

    def __init__(
        self,
        documents: list[Document],
        collator: PretrainingCollator,
        batch_size: int,
        steps: int,
        max_length: int,
        seed: int,
    ) -> None:
        require_documents(documents)
        self.documents, self.max_length = documents, max_length
        super().__init__(collator, batch_size, steps, seed)

    def next_batch(self) -> PretrainingBatch:
        """One batch: ``batch_size`` sentence pairs, collated and masked."""
        return self.next_batch_with_sources()[0]

    def next_batch_with_sources(self) -> tuple[PretrainingBatch, Tensor]:
        """One batch and, for each pair, the index of the document its segment A comes from."""
        drawn = [
            document_sentence_pair(self.documents, self.max_length, self.generator)
            for _ in range(self.batch_size)
        ]
        batch = self.collator([pair for _, pair in drawn], self.generator)
        return batch, torch.tensor([index for index, _ in drawn])


class TextBatches(FreshBatches):
    """``steps`` batches of ``batch_size`` texts drawn at random, freshly masked, per pass: the
    stream of a masked language model without next sentence prediction (Chapter 6, BERT).
    """

    def __init__(
        self,
        texts: list[list[int]],
        collator: PretrainingCollator,
        batch_size: int,
        steps: int,
        max_length: int,
        seed: int,
    ) -> None:
        if not texts:
            raise ValueError("a masked language model needs at least one text, got none")
        self.texts = [text[: max_length - 2] for text in texts]  # room for [CLS] and [SEP]
        super().__init__(collator, batch_size, steps, seed)

    def next_batch(self) -> PretrainingBatch:
        """One batch: ``batch_size`` texts drawn with replacement, collated and masked."""
        rows = torch.randint(len(self.texts), (self.batch_size,), generator=self.generator)
        return self.collator.single_texts([self.texts[row] for row in rows], self.generator)
