"""The pretraining loss L_MLM + L_NSP equals the loss ``transformers.BertForPreTraining``
computes from the same labels, and L_MLM alone the loss of ``transformers.BertForMaskedLM``
(float64); the accuracies count what they say; the learning rate warms up linearly and decays
linearly; real batches, of pairs or of single texts, are well formed."""

from __future__ import annotations

import pytest
import torch

from coursekit.data import load
from coursekit.models.bert.heads import BertForPreTraining
from coursekit.pretrain.batches import (
    PretrainingBatch,
    PretrainingBatches,
    PretrainingCollator,
    TextBatches,
    tokenize_documents,
)
from coursekit.pretrain.corpus import docs_corpus_documents
from coursekit.pretrain.masking import IGNORE_INDEX, MaskingRule
from coursekit.pretrain.objective import masked_lm_loss, pretraining_accuracies, pretraining_loss
from coursekit.pretrain.schedule import WarmupLinearDecay
from coursekit.text.wordpiece import WordPieceTokenizer
from coursekit.text.wordpiece_training import train_wordpiece


def tiny_hf_config(transformers):
    """A two-layer BERT of width 16 over 300 tokens, without dropout."""
    return transformers.BertConfig(
        vocab_size=300, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=32, max_position_embeddings=40, hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0, attn_implementation="eager",
    )  # fmt: skip


@pytest.fixture(scope="module")
def batches() -> list[PretrainingBatch]:
    tokenizer = WordPieceTokenizer(train_wordpiece(load("docs_corpus", "valid"), 300))
    documents = tokenize_documents(docs_corpus_documents("valid"), tokenizer)
    collator = PretrainingCollator(tokenizer, MaskingRule(), whole_word_masking=True)
    return list(PretrainingBatches(documents, collator, 6, 3, 40, seed=0))


@pytest.fixture(scope="module")
def text_batches() -> list[PretrainingBatch]:
    texts = load("review_corpus", "valid", n=50)
    tokenizer = WordPieceTokenizer(train_wordpiece(texts, 300))
    ids = [tokenizer.convert_tokens_to_ids(tokenizer.tokenize(text)) for text in texts]
    collator = PretrainingCollator(tokenizer, MaskingRule(), whole_word_masking=False)
    return list(TextBatches(ids, collator, 6, 3, 12, seed=0))


def test_text_batches_are_single_padded_texts_without_a_next_sentence(text_batches) -> None:
    for batch in text_batches:
        lengths = batch.attention_mask.sum(dim=1)
        assert batch.input_ids.shape[1] == int(lengths.max()) <= 12
        for row, length in enumerate(lengths.tolist()):
            assert batch.input_ids[row, 0] == 2 and batch.input_ids[row, length - 1] == 3
            assert (batch.input_ids[row, 1 : length - 1] != 3).all()  # one [SEP], at the end
        assert (batch.token_type_ids == 0).all()
        assert (batch.nsp_labels == IGNORE_INDEX).all() and batch.pairs == 6
        assert batch.chosen_tokens == (batch.mlm_labels != IGNORE_INDEX).sum()
    with pytest.raises(ValueError, match="at least one text"):
        TextBatches([], None, 6, 3, 12, seed=0)  # type: ignore[arg-type]


def test_the_masked_lm_loss_equals_transformers_masked_lm_loss(text_batches) -> None:
    transformers = pytest.importorskip("transformers")
    config = tiny_hf_config(transformers)
    pretraining = transformers.BertForPreTraining(config).double()
    theirs = transformers.BertForMaskedLM(config).double()
    theirs.bert.load_state_dict(pretraining.bert.state_dict(), strict=False)
    theirs.cls.load_state_dict(pretraining.cls.state_dict(), strict=False)
    ours = BertForPreTraining.from_hf(pretraining)
    for batch in text_batches:
        expected = theirs(
            batch.input_ids, batch.attention_mask, batch.token_type_ids, labels=batch.mlm_labels
        ).loss
        torch.testing.assert_close(masked_lm_loss(ours, batch), expected)


def test_batches_are_padded_pairs_with_segments_and_labels(batches) -> None:
    for batch in batches:
        lengths = batch.attention_mask.sum(dim=1)
        assert batch.input_ids.shape[1] == int(lengths.max()) <= 40
        for row, length in enumerate(lengths.tolist()):
            assert batch.input_ids[row, 0] == 2  # [CLS] is id 2 in train_wordpiece's order
            assert (batch.input_ids[row, length:] == 0).all()  # [PAD]
            segments = batch.token_type_ids[row, :length]
            assert segments[0] == 0 and segments[-1] == 1 and (segments.diff() >= 0).all()
        assert ((batch.mlm_labels != IGNORE_INDEX) <= batch.attention_mask.bool()).all()
        assert set(batch.nsp_labels.tolist()) <= {0, 1}


def test_the_loss_equals_transformers_pretraining_loss(batches) -> None:
    transformers = pytest.importorskip("transformers")
    config = tiny_hf_config(transformers)
    theirs = transformers.BertForPreTraining(config).double()
    ours = BertForPreTraining.from_hf(theirs)
    for batch in batches:
        expected = theirs(
            batch.input_ids, batch.attention_mask, batch.token_type_ids,
            labels=batch.mlm_labels, next_sentence_label=batch.nsp_labels,
        ).loss  # fmt: skip
        torch.testing.assert_close(pretraining_loss(ours, batch), expected)


@pytest.mark.parametrize("shift, expected", [(0, 1.0), (1, 0.0)])
def test_the_accuracies_count_right_predictions(
    batches, monkeypatch: pytest.MonkeyPatch, shift: int, expected: float
) -> None:
    """A stand-in model whose logits peak at every label (shift 0) or next to it (shift 1)."""
    import coursekit.pretrain.objective as objective

    def peaked_logits(model, batch):
        targets = batch.mlm_labels[batch.mlm_labels != IGNORE_INDEX]
        mlm = torch.nn.functional.one_hot((targets + shift) % 300, 300).double()
        return mlm, torch.nn.functional.one_hot((batch.nsp_labels + shift) % 2, 2).double()

    monkeypatch.setattr(objective, "pretraining_logits", peaked_logits)
    scores = pretraining_accuracies(torch.nn.Linear(1, 1), batches)
    assert scores == {"mlm_accuracy": expected, "nsp_accuracy": expected}


def test_the_schedule_warms_up_then_decays_to_zero() -> None:
    schedule = WarmupLinearDecay(warmup_steps=4, total_steps=10)
    assert [schedule(step) for step in range(10)] == pytest.approx(
        [0.25, 0.5, 0.75, 1.0, 5 / 6, 4 / 6, 3 / 6, 2 / 6, 1 / 6, 0.0]
    )
    assert WarmupLinearDecay(4, 1000)(2) == schedule(2)
    with pytest.raises(ValueError, match="warmup_steps must be a positive integer"):
        WarmupLinearDecay(0, 10)
