"""Pretraining a small BERT with MLM + NSP on the course's corpus (Chapter 6, BERT).

The recipe of the paper, scaled down so that it runs on a laptop: learn a WordPiece vocabulary
from the training documents, build a BERT (4 layers, H = 128, 4 heads, feed-forward 512, 128
positions by default), and train it with :func:`coursekit.train.fit` on fresh sentence pairs
and masks every step, loss L_MLM + L_NSP, AdamW with weight decay 0.01, the learning rate
warmed up linearly then decayed linearly, gradients clipped at norm 1. After every epoch the
masked-LM and next-sentence accuracies are measured on the validation documents, and ``fit``
saves a checkpoint from which an interrupted run resumes exactly; at the end both are measured
on every held-out document (validation and test splits).

The corpus is small (about 40,000 tokens in 54 training documents), and it shows: next
sentence prediction recognises the training documents (about 80 % right on their pairs) far
better than it compares A with B on new ones (about 59 % on held-out documents), and its
held-out accuracy stops improving after a few hundred steps. The default run (600 steps)
stops there.

:func:`pretrain_bert` also records the first steps (their losses, and for every parameter the
norm of what they changed), so that anyone can check that the same command, seed and corpus
start the same run. Floating-point results differ a little between CPUs, so a replay matches
these values within a tolerance, never bit for bit.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import Tensor, nn
from torch.optim.lr_scheduler import LambdaLR

from coursekit.models.bert_config import BertConfig
from coursekit.models.bert_heads import BertForPreTraining
from coursekit.pretrain.batches import (
    PretrainingBatch,
    PretrainingBatches,
    PretrainingCollator,
    tokenize_documents,
)
from coursekit.pretrain.corpus import Corpus, corpus_names, pretraining_corpus
from coursekit.pretrain.distributed import DistributedLoss, ShardedBatches, rank_and_world
from coursekit.pretrain.masking import MaskingRule
from coursekit.pretrain.objective import (
    pretraining_accuracies,
    pretraining_loss,
    pretraining_metrics,
    unigram_baseline_accuracy,
)
from coursekit.pretrain.schedule import WarmupLinearDecay
from coursekit.runtime import seed_generators_as_given
from coursekit.text.wordpiece import WordPieceTokenizer
from coursekit.text.wordpiece_training import train_wordpiece
from coursekit.train import History, fit
from coursekit.train.loop import LossFunction


@dataclass(frozen=True)
class PretrainingSettings:
    """Everything that decides a pretraining run (Chapter 6, BERT): the vocabulary, the model's
    sizes, the batches, the optimisation, the seed. ``steps_per_epoch`` steps make an epoch
    (the batches are drawn afresh, so an epoch is a number of steps, not a pass over a fixed
    dataset); ``max_steps`` replaces the epochs by one epoch of that many steps.
    """

    vocab_size: int = 3000
    min_pair_count: int = 5
    hidden_size: int = 128
    num_layers: int = 4
    num_heads: int = 4
    intermediate_size: int = 512
    dropout: float = 0.1
    max_length: int = 128
    batch_size: int = 32
    steps_per_epoch: int = 100
    epochs: int = 6
    max_steps: int | None = None
    learning_rate: float = 1e-3
    warmup_steps: int = 100
    weight_decay: float = 0.01
    whole_word_masking: bool = False
    valid_batches: int = 8
    use_wikitext2: bool = True
    record_steps: int = 3
    seed: int = 0

    def bert_config(self, tokenizer: WordPieceTokenizer) -> BertConfig:
        """The :class:`BertConfig` of the model these settings build."""
        return BertConfig(
            vocab_size=max(tokenizer.vocab.values()) + 1,
            hidden_size=self.hidden_size,
            num_hidden_layers=self.num_layers,
            num_attention_heads=self.num_heads,
            intermediate_size=self.intermediate_size,
            hidden_dropout_prob=self.dropout,
            attention_probs_dropout_prob=self.dropout,
            max_position_embeddings=self.max_length,
            pad_token_id=tokenizer.pad_id,
        )


@dataclass
class FirstSteps:
    """The losses of the first ``steps`` updates and, per parameter, the norm of the change they
    made, ``||w_steps - w_0||``: values that a replay on any CPU matches within rounding.
    """

    steps: int
    losses: list[float] = field(default_factory=list)
    update_norms: dict[str, float] | None = None


@dataclass
class PretrainingRun:
    """What :func:`pretrain_bert` returns: the model, its tokenizer, the settings, ``fit``'s
    history, the first steps, the accuracies of the baselines on the validation batches, the
    final evaluation on held-out documents, and the datasets read.
    """

    model: BertForPreTraining
    tokenizer: WordPieceTokenizer
    settings: PretrainingSettings
    history: History
    first_steps: FirstSteps
    baselines: dict[str, float]
    held_out: dict[str, float]
    corpus: list[str]


def parameter_values(model: nn.Module) -> dict[str, Tensor]:
    """A float64 CPU copy of every parameter, by name."""
    return {
        name: parameter.detach().to("cpu", torch.float64).clone()
        for name, parameter in model.named_parameters()
    }


def update_norms(model: nn.Module, initial: dict[str, Tensor]) -> dict[str, float]:
    """``||w - w_0||`` for every parameter ``w`` of ``model``, ``w_0`` its value in ``initial``."""
    current = parameter_values(model)
    return {name: float((current[name] - initial[name]).norm()) for name in initial}


class RecordingLoss:
    """``pretraining_loss`` that also fills a :class:`FirstSteps`: ``fit`` calls it once per
    update, so at the first call the model holds its initial weights and at call
    ``steps + 1`` the weights after ``steps`` updates. The norms are also written to
    ``record_file`` (beside ``fit``'s checkpoint), where a resumed run, which does not replay
    the first steps, finds them.
    """

    def __init__(
        self, record: FirstSteps, record_file: Path | None, loss: LossFunction = pretraining_loss
    ) -> None:
        self.record, self.record_file, self.loss, self.calls = record, record_file, loss, 0
        self.initial: dict[str, Tensor] = {}

    def __call__(self, model: BertForPreTraining, batch: PretrainingBatch) -> Tensor:
        if model.training:
            self.calls += 1
            if self.calls == 1:
                self.initial = parameter_values(model)
            if self.calls == self.record.steps + 1:
                self.finish(model)
        return self.loss(model, batch)

    def finish(self, model: nn.Module) -> None:
        """Record the update norms now (the model holds the weights after ``steps`` updates)."""
        if self.record.update_norms is None and self.initial:
            self.record.update_norms = update_norms(model, self.initial)
            if self.record_file is not None:
                self.record_file.write_text(json.dumps(self.record.update_norms), "utf-8")


def build_tokenizer(corpus: Corpus, settings: PretrainingSettings) -> WordPieceTokenizer:
    """A WordPiece vocabulary learned from the training documents' paragraphs."""
    paragraphs = [paragraph for document in corpus for paragraph in document]
    vocab = train_wordpiece(paragraphs, settings.vocab_size, min_pair_count=settings.min_pair_count)
    return WordPieceTokenizer(vocab)


def pretrain_bert(
    settings: PretrainingSettings,
    checkpoint_path: str | os.PathLike[str] | None = None,
    resume: bool = False,
    device: torch.device | str | None = None,
    progress: bool = True,
) -> PretrainingRun:
    """Pretrain a BERT with MLM + NSP as ``settings`` say (Chapter 6, BERT); ``fit`` saves its
    resumable checkpoint to ``checkpoint_path`` after every epoch. Under ``torchrun`` every
    process trains on its shard of each batch (:mod:`coursekit.pretrain.distributed`) and
    rank 0 alone writes the checkpoint and shows progress.
    """
    rank, world = rank_and_world()
    if resume and world > 1:
        raise ValueError("--resume works with one process: resume without torchrun")
    seed_generators_as_given(settings.seed)  # a recorded command: $COURSEKIT_SEED is ignored
    train_corpus = pretraining_corpus("train", settings.use_wikitext2)
    tokenizer = build_tokenizer(train_corpus, settings)
    collator = PretrainingCollator(tokenizer, MaskingRule(), settings.whole_word_masking)
    train_documents = tokenize_documents(train_corpus, tokenizer)
    steps = settings.steps_per_epoch if settings.max_steps is None else settings.max_steps
    epochs = settings.epochs if settings.max_steps is None else 1
    train_batches = PretrainingBatches(
        train_documents, collator, settings.batch_size, steps, settings.max_length, settings.seed
    )
    valid_documents = tokenize_documents(
        pretraining_corpus("valid", settings.use_wikitext2), tokenizer
    )
    valid_stream = PretrainingBatches(
        valid_documents, collator, settings.batch_size, settings.valid_batches,
        settings.max_length, settings.seed + 1,
    )  # fmt: skip
    valid_batches = list(valid_stream)
    model = BertForPreTraining(settings.bert_config(tokenizer))
    loss: LossFunction = pretraining_loss
    if world > 1:
        model.to(device or "cpu")  # DDP holds the model where it trains
        train_batches = ShardedBatches(train_batches, rank, world)  # type: ignore[assignment]
        loss = DistributedLoss(model, None if device is None else torch.device(device))
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=settings.learning_rate, weight_decay=settings.weight_decay
    )
    schedule = WarmupLinearDecay(settings.warmup_steps, steps * epochs)
    first_steps = FirstSteps(settings.record_steps)
    record_file = None if checkpoint_path is None else Path(f"{checkpoint_path}.first-steps.json")
    recording = RecordingLoss(first_steps, record_file, loss)
    loss_fn: LossFunction = recording
    if resume and checkpoint_path is not None and Path(checkpoint_path).exists():
        loss_fn = loss  # the first steps were taken, and recorded, before
        if record_file is not None and record_file.exists():
            first_steps.update_norms = json.loads(record_file.read_text("utf-8"))
    history = fit(
        model, train_batches, loss_fn=loss_fn, optimizer=optimizer,
        epochs=epochs, valid_batches=valid_batches,
        metrics=pretraining_metrics(), max_grad_norm=1.0, scheduler=LambdaLR(optimizer, schedule), scheduler_interval="step",
        device=device, checkpoint_path=checkpoint_path if rank == 0 else None,
        resume="if-exists" if resume else False, progress=progress and rank == 0,
    )  # fmt: skip
    first_steps.losses = history.step_loss[: settings.record_steps]
    if steps * epochs == settings.record_steps:  # the run ended with the recorded steps
        recording.finish(model)
    token_counts = Counter(token for document in train_documents for s in document for token in s)
    baselines = {
        "mlm_unigram_accuracy": unigram_baseline_accuracy(token_counts, valid_batches),
        "nsp_chance_accuracy": 0.5,
    }
    held_out = held_out_evaluation(model, tokenizer, collator, settings, token_counts)
    corpus = corpus_names(settings.use_wikitext2)
    return PretrainingRun(
        model.cpu(), tokenizer, settings, history, first_steps, baselines, held_out, corpus
    )


def held_out_evaluation(
    model: BertForPreTraining,
    tokenizer: WordPieceTokenizer,
    collator: PretrainingCollator,
    settings: PretrainingSettings,
    token_counts: Counter[int],
    batches: int = 16,
) -> dict[str, float]:
    """Masked-LM and next-sentence accuracy, and the unigram guess's, on ``batches`` fresh
    batches from every document the run did not train on (the valid and test splits).
    """
    corpus = [
        document
        for split in ("valid", "test")
        for document in pretraining_corpus(split, settings.use_wikitext2)
    ]
    documents = tokenize_documents(corpus, tokenizer)
    stream = PretrainingBatches(
        documents, collator, settings.batch_size, batches, settings.max_length, settings.seed + 2
    )
    evaluation = list(stream)
    return {
        **pretraining_accuracies(model, evaluation),
        "mlm_unigram_accuracy": unigram_baseline_accuracy(token_counts, evaluation),
        "pairs": batches * settings.batch_size,
    }
