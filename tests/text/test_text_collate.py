"""Collate functions: shapes, padding, shifting, <sos>/<eos>, devices, DataLoader workers."""

from __future__ import annotations

import pickle

import pytest
import torch
from torch.utils.data import DataLoader

from coursekit.text import (
    ClassificationBatch,
    ClassificationCollate,
    LanguageModelCollate,
    Seq2SeqBatch,
    Seq2SeqCollate,
    Vocab,
    get_tokenizer,
    numericalize,
)

PAD, SOS, EOS, UNK = 0, 1, 2, 3


def make_vocab(words: list[str]) -> Vocab:
    vocab = Vocab(["<pad>", "<sos>", "<eos>", "<unk>", *words])
    vocab.set_default_index(UNK)
    return vocab


EN = make_vocab(["the", "cat", "sat", "."])  # the=4 cat=5 sat=6 .=7
FR = make_vocab(["le", "chat", "assis"])  # le=4 chat=5 assis=6
TOKENIZER = get_tokenizer("basic_english")


def test_numericalize_maps_unknown_words_to_the_default_index() -> None:
    assert numericalize("The cat flew.", TOKENIZER, EN) == [4, 5, 3, 7]


def test_classification_collate() -> None:
    collate = ClassificationCollate(TOKENIZER, EN, pad_index=PAD)
    batch = collate([("the cat sat.", 1), ("cat", 0)])
    assert isinstance(batch, ClassificationBatch)
    assert batch.tokens.tolist() == [[4, 5, 6, 7], [5, PAD, PAD, PAD]]
    assert batch.lengths.tolist() == [4, 1]
    assert batch.labels.tolist() == [1, 0] and batch.labels.dtype == torch.long


def test_language_model_targets_are_inputs_shifted_by_one() -> None:
    collate = LanguageModelCollate(pad_index=PAD)
    batch = collate([[4, 5, 6, 7], torch.tensor([5, 6])])
    assert batch.inputs.tolist() == [[4, 5, 6], [5, PAD, PAD]]
    assert batch.targets.tolist() == [[5, 6, 7], [6, PAD, PAD]]
    assert batch.lengths.tolist() == [3, 1]
    for row, length in enumerate(batch.lengths.tolist()):
        assert torch.equal(batch.inputs[row, 1:length], batch.targets[row, : length - 1])


def test_language_model_needs_two_ids_per_example() -> None:
    with pytest.raises(ValueError, match="at least 2 ids.*\\[1\\]"):
        LanguageModelCollate(pad_index=PAD)([[4, 5], [6]])


def test_seq2seq_collate_builds_teacher_forcing_pairs() -> None:
    collate = Seq2SeqCollate(TOKENIZER, EN, TOKENIZER, FR, SOS, EOS, PAD)
    batch = collate([("the cat sat", "le chat assis"), ("cat", "chat")])
    assert isinstance(batch, Seq2SeqBatch)
    assert batch.src.tolist() == [[4, 5, 6], [5, PAD, PAD]]
    assert batch.src_lengths.tolist() == [3, 1]
    assert batch.tgt_in.tolist() == [[SOS, 4, 5, 6], [SOS, 5, PAD, PAD]]
    assert batch.tgt_out.tolist() == [[4, 5, 6, EOS], [5, EOS, PAD, PAD]]
    assert batch.tgt_lengths.tolist() == [4, 2]


def test_seq2seq_can_reverse_the_source() -> None:
    collate = Seq2SeqCollate(TOKENIZER, EN, TOKENIZER, FR, SOS, EOS, PAD, reverse_source=True)
    batch = collate([("the cat sat", "le chat"), ("cat", "chat")])
    assert batch.src.tolist() == [[6, 5, 4], [5, PAD, PAD]]
    assert batch.tgt_in.tolist() == [[SOS, 4, 5], [SOS, 5, PAD]]


@pytest.mark.parametrize(
    ("examples", "message"),
    [([], "empty batch"), (["the cat"], "pair \\(text, label\\)"), ([("a", 1, 2)], "pair")],
)
def test_collate_rejects_malformed_examples(examples: list[object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ClassificationCollate(TOKENIZER, EN, PAD)(examples)  # type: ignore[arg-type]


def test_batch_to_moves_every_tensor() -> None:
    batch = ClassificationCollate(TOKENIZER, EN, PAD)([("the cat", 1)])
    moved = batch.to("meta")
    assert isinstance(moved, ClassificationBatch)
    assert {t.device.type for t in (moved.tokens, moved.lengths, moved.labels)} == {"meta"}
    assert batch.tokens.device.type == "cpu"  # the original is unchanged


def test_collate_runs_in_dataloader_worker_processes() -> None:
    collate = Seq2SeqCollate(TOKENIZER, EN, TOKENIZER, FR, SOS, EOS, PAD)
    assert pickle.loads(pickle.dumps(collate))([("cat", "chat")]).src.tolist() == [[5]]
    pairs = [("the cat", "le chat"), ("cat sat", "chat assis"), ("the", "le")]
    loader = DataLoader(pairs, batch_size=2, collate_fn=collate, num_workers=1)
    batches = list(loader)
    assert [b.src.shape[0] for b in batches] == [2, 1]
    assert batches[1].tgt_out.tolist() == [[4, EOS]]
