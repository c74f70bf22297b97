"""The pretraining run: a resumed run ends like an uninterrupted one (within rounding); the command
(``coursekit pretrain bert``) writes a float16 checkpoint with its metadata, from which every
BERT model class loads its encoder."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import torch

from coursekit.cli import main
from coursekit.models.bert.heads import BertForMaskedLM, BertForPreTraining
from coursekit.models.bert.model import BertModel
from coursekit.models.bert.tasks import (
    BertForQuestionAnswering,
    BertForSequenceClassification,
    BertForTokenClassification,
)
from coursekit.pretrain.bert_pretraining import PretrainingSettings, pretrain_bert
from coursekit.pretrain.checkpoint import load_pretrained, read_metadata
from coursekit.train import load_checkpoint

# Every step inside the warmup: the learning rate does not depend on the run's length.
TINY = PretrainingSettings(
    vocab_size=400, hidden_size=16, num_layers=1, num_heads=2, intermediate_size=32,
    max_length=32, batch_size=4, steps_per_epoch=2, epochs=2, warmup_steps=100,
    valid_batches=1, record_steps=1, use_wikitext2=False,
)  # fmt: skip


def test_a_resumed_run_ends_like_an_uninterrupted_one(tmp_path: Path) -> None:
    whole = pretrain_bert(TINY, device="cpu", progress=False)
    checkpoint = tmp_path / "fit.pt"
    first = pretrain_bert(
        dataclasses.replace(TINY, epochs=1), checkpoint, device="cpu", progress=False
    )
    assert load_checkpoint(checkpoint)["epoch"] == 1
    resumed = pretrain_bert(TINY, checkpoint, resume=True, device="cpu", progress=False)
    same_run = {"rtol": 1e-6, "atol": 1e-8}  # one process: only rounding may differ
    torch.testing.assert_close(resumed.model.state_dict(), whole.model.state_dict(), **same_run)
    torch.testing.assert_close(resumed.history.step_loss, whole.history.step_loss, **same_run)
    torch.testing.assert_close(first.history.step_loss, whole.history.step_loss[:2], **same_run)
    torch.testing.assert_close(resumed.history.metrics, whole.history.metrics, **same_run)
    for run in (first, resumed):
        torch.testing.assert_close(
            dataclasses.asdict(run.first_steps), dataclasses.asdict(whole.first_steps), **same_run
        )
    norms = whole.first_steps.update_norms
    assert norms is not None and set(norms) == set(dict(whole.model.named_parameters()))
    assert all(norm > 0 for norm in norms.values())


def test_the_command_writes_a_checkpoint_every_model_class_loads(tmp_path: Path) -> None:
    out = tmp_path / "tiny-bert.pt"
    options = [
        f"--{name.replace('_', '-')}={value}"
        for name, value in dataclasses.asdict(TINY).items()
        if not isinstance(value, bool) and value is not None
    ]
    argv = ["pretrain", "bert", *options, "--no-use-wikitext2", "--out", str(out), "--no-progress"]
    assert main([*argv, "--device", "cpu"]) == 0
    metadata = read_metadata(out)
    assert json.loads(out.with_suffix(".json").read_text()) == metadata
    assert metadata["command"].startswith("coursekit pretrain bert --vocab-size=400")
    assert metadata["settings"] == dataclasses.asdict(TINY)
    assert metadata["corpus"] == ["docs_corpus"]
    assert [row["epoch"] for row in metadata["log"]] == [1, 2]
    assert {"mlm_accuracy", "nsp_accuracy", "train_loss"} <= set(metadata["log"][0])
    assert len(metadata["first_steps"]["losses"]) == 1
    saved = torch.load(out, weights_only=True)
    assert {tensor.dtype for tensor in saved["state_dict"].values()} == {torch.float16}
    pretrained, tokenizer = load_pretrained(out)
    ids = torch.tensor([tokenizer.encode("the object", "a class").ids])
    for model_class in (
        BertModel, BertForPreTraining, BertForMaskedLM, BertForSequenceClassification,
        BertForTokenClassification, BertForQuestionAnswering,
    ):  # fmt: skip
        model, _ = load_pretrained(
            out, model_class, num_labels=3 - (model_class is BertForQuestionAnswering)
        )
        encoder = model if model_class is BertModel else model.bert
        for name, tensor in encoder.state_dict().items():
            torch.testing.assert_close(tensor, pretrained.bert.state_dict()[name])
        model.eval()(ids)
    out.write_bytes(out.read_bytes() + b"x")
    with pytest.raises(ValueError, match="does not match the SHA-256 in its metadata"):
        load_pretrained(out)


def test_a_review_corpus_trains_the_masked_language_model_alone() -> None:
    settings = dataclasses.replace(TINY, corpus="reviews", next_sentence=False, vocab_size=1000)
    run = pretrain_bert(settings, device="cpu", progress=False)
    assert run.corpus == ["review_corpus"] and len(run.corpus_sha256) == 64
    assert set(run.history.metrics) == {"mlm_accuracy"}
    assert set(run.held_out) == {"mlm_accuracy", "mlm_unigram_accuracy", "texts"}
    assert run.held_out["texts"] == 16 * settings.batch_size
    assert all(word in run.tokenizer.vocab for word in ("brilliant", "forgettable", "soundtrack"))


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"corpus": "wikipedia"}, "corpus must be one of docs_corpus, reviews, reviews_control"),
        ({"corpus": "reviews"}, "pretrain it with --no-next-sentence"),
    ],
)
def test_settings_refuse_an_unknown_corpus_and_reviews_with_next_sentences(
    changes: dict, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        dataclasses.replace(TINY, **changes)
