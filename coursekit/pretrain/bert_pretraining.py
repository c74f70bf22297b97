"""Pretraining a small BERT with MLM + NSP, or MLM alone, on the course's corpora (Chapter 6,
BERT).

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

With ``corpus="reviews"`` and ``next_sentence=False`` the model reads one review at a time and
learns the masked language model alone, as RoBERTa does (Liu et al., 2019, found that dropping
next sentence prediction matches or improves downstream results); the reviews are single
sentences, so there is no next sentence to predict.

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

from coursekit.models.bert.config import BertConfig
from coursekit.models.bert.heads import BertForPreTraining
from coursekit.pretrain.batches import (
    FreshBatches,
    PretrainingBatch,
    PretrainingBatches,
    PretrainingCollator,
    TextBatches,
    tokenize_documents,
)
from coursekit.pretrain.corpus import (
    CORPORA,
    corpus_names,
    corpus_sha256,
    pretraining_corpus,
    review_texts,
    vocabulary_texts,
)
from coursekit.pretrain.distributed import DistributedLoss, ShardedBatches, rank_and_world
from coursekit.pretrain.masking import MaskingRule
from coursekit.pretrain.objective import (
    masked_lm_loss,
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

HELD_OUT_BATCHES = 16
"""How many batches of held-out pairs or texts the final evaluation measures."""


@dataclass(frozen=True)
class PretrainingSettings:
    """Everything that decides a pretraining run (Chapter 6, BERT): the vocabulary, the model's
    sizes, the batches, the optimisation, the seed. ``steps_per_epoch`` steps make an epoch
    (the batches are drawn afresh, so an epoch is a number of steps, not a pass over a fixed
    dataset); ``max_steps`` replaces the epochs by one epoch of that many steps. ``corpus`` is
    ``docs_corpus`` (documents, for MLM + NSP) or a review corpus (``reviews``,
    ``reviews_control``: single sentences, for MLM alone, ``next_sentence=False``).
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
    corpus: str = "docs_corpus"
    next_sentence: bool = True

    def __post_init__(self) -> None:
        if self.corpus not in CORPORA:
            raise ValueError(f"corpus must be one of {', '.join(CORPORA)}, got {self.corpus!r}")
        if self.next_sentence and self.corpus != "docs_corpus":
            raise ValueError(
                f"{self.corpus} holds single sentences, with no next sentence to predict: "
                "pretrain it with --no-next-sentence (the masked language model alone)"
            )

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
    corpus_sha256: str


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


@dataclass
class Streams:
    """The batches of a run: the training stream, the validation batches measured after every
    epoch, the held-out batches measured at the end, the training tokens' counts (for the
    unigram baseline) and the SHA-256 of the training texts."""

    train: FreshBatches
    valid: list[PretrainingBatch]
    held_out: list[PretrainingBatch]
    token_counts: Counter[int]
    sha256: str


def build_tokenizer(settings: PretrainingSettings) -> WordPieceTokenizer:
    """A WordPiece vocabulary learned from the training documents' paragraphs, or from the
    review corpus's :func:`vocabulary_texts`."""
    if settings.corpus == "docs_corpus":
        train_corpus = pretraining_corpus("train", settings.use_wikitext2)
        texts = [paragraph for document in train_corpus for paragraph in document]
    else:
        texts = vocabulary_texts(settings.corpus)
    vocab = train_wordpiece(texts, settings.vocab_size, min_pair_count=settings.min_pair_count)
    return WordPieceTokenizer(vocab)


def document_streams(
    settings: PretrainingSettings, tokenizer: WordPieceTokenizer, collator: PretrainingCollator
) -> Streams:
    """Sentence pairs of the training documents, of the validation documents, and of every
    held-out document (validation and test), each stream with its own seed."""
    batch_size, length, seed = settings.batch_size, settings.max_length, settings.seed
    train_corpus = pretraining_corpus("train", settings.use_wikitext2)
    train_documents = tokenize_documents(train_corpus, tokenizer)
    valid_corpus, test_corpus = (
        pretraining_corpus(split, settings.use_wikitext2) for split in ("valid", "test")
    )
    valid_documents = tokenize_documents(valid_corpus, tokenizer)
    held_out_documents = tokenize_documents(valid_corpus + test_corpus, tokenizer)
    steps = settings.steps_per_epoch if settings.max_steps is None else settings.max_steps
    return Streams(
        PretrainingBatches(train_documents, collator, batch_size, steps, length, seed),
        list(PretrainingBatches(valid_documents, collator, batch_size, settings.valid_batches, length, seed + 1)),
        list(PretrainingBatches(held_out_documents, collator, batch_size, HELD_OUT_BATCHES, length, seed + 2)),
        Counter(token for document in train_documents for s in document for token in s),
        corpus_sha256([paragraph for document in train_corpus for paragraph in document]),
    )  # fmt: skip


def text_streams(
    settings: PretrainingSettings, tokenizer: WordPieceTokenizer, collator: PretrainingCollator
) -> Streams:
    """Single texts of the review corpus's training, validation and held-out (validation and
    test) splits, each stream with its own seed."""
    batch_size, length, seed = settings.batch_size, settings.max_length, settings.seed
    train, valid, test = (review_texts(settings.corpus, s) for s in ("train", "valid", "test"))

    def ids(texts: list[str]) -> list[list[int]]:
        return [tokenizer.convert_tokens_to_ids(tokenizer.tokenize(text)) for text in texts]

    train_ids = ids(train)
    steps = settings.steps_per_epoch if settings.max_steps is None else settings.max_steps
    return Streams(
        TextBatches(train_ids, collator, batch_size, steps, length, seed),
        list(TextBatches(ids(valid), collator, batch_size, settings.valid_batches, length, seed + 1)),
        list(TextBatches(ids(valid + test), collator, batch_size, HELD_OUT_BATCHES, length, seed + 2)),
        Counter(token for text in train_ids for token in text),
        corpus_sha256(train),
    )  # fmt: skip


def streams_for(settings: PretrainingSettings, tokenizer: WordPieceTokenizer) -> Streams:
    """The streams of a run: sentence pairs with next sentence prediction, texts without."""
    collator = PretrainingCollator(tokenizer, MaskingRule(), settings.whole_word_masking)
    make_streams = document_streams if settings.next_sentence else text_streams
    return make_streams(settings, tokenizer, collator)


def pretrain_bert(
    settings: PretrainingSettings,
    checkpoint_path: str | os.PathLike[str] | None = None,
    resume: bool = False,
    device: torch.device | str | None = None,
    progress: bool = True,
) -> PretrainingRun:
    """Pretrain a BERT with MLM + NSP, or MLM alone, as ``settings`` say (Chapter 6, BERT);
    ``fit`` saves its resumable checkpoint to ``checkpoint_path`` after every epoch. Under
    ``torchrun`` every process trains on its shard of each batch
    (:mod:`coursekit.pretrain.distributed`) and rank 0 alone writes the checkpoint and shows
    progress.
    """
    rank, world = rank_and_world()
    if resume and world > 1:
        raise ValueError("--resume works with one process: resume without torchrun")
    seed_generators_as_given(settings.seed)  # a recorded command: $COURSEKIT_SEED is ignored
    tokenizer = build_tokenizer(settings)
    streams = streams_for(settings, tokenizer)
    model = BertForPreTraining(settings.bert_config(tokenizer))
    objective: LossFunction = pretraining_loss if settings.next_sentence else masked_lm_loss
    loss, train_batches = objective, streams.train
    if world > 1:
        model.to(device or "cpu")  # DDP holds the model where it trains
        train_batches = ShardedBatches(train_batches, rank, world)  # type: ignore[assignment]
        loss = DistributedLoss(model, None if device is None else torch.device(device), objective)
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=settings.learning_rate, weight_decay=settings.weight_decay
    )
    epochs = settings.epochs if settings.max_steps is None else 1
    schedule = WarmupLinearDecay(settings.warmup_steps, len(streams.train) * epochs)
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
        epochs=epochs, valid_batches=streams.valid,
        metrics=pretraining_metrics(settings.next_sentence), max_grad_norm=1.0, scheduler=LambdaLR(optimizer, schedule), scheduler_interval="step",
        device=device, checkpoint_path=checkpoint_path if rank == 0 else None,
        resume="if-exists" if resume else False, progress=progress and rank == 0,
    )  # fmt: skip
    first_steps.losses = history.step_loss[: settings.record_steps]
    if len(streams.train) * epochs == settings.record_steps:  # the run ended with those steps
        recording.finish(model)
    baselines = {
        "mlm_unigram_accuracy": unigram_baseline_accuracy(streams.token_counts, streams.valid)
    }
    if settings.next_sentence:
        baselines["nsp_chance_accuracy"] = 0.5
    held_out = held_out_evaluation(model, streams, settings)
    names = (
        corpus_names(settings.use_wikitext2)
        if settings.corpus == "docs_corpus"
        else ["review_corpus"]
    )
    return PretrainingRun(
        model.cpu(), tokenizer, settings, history, first_steps, baselines, held_out, names,
        streams.sha256,
    )  # fmt: skip


def held_out_evaluation(
    model: BertForPreTraining, streams: Streams, settings: PretrainingSettings
) -> dict[str, float]:
    """Masked-LM (and next-sentence) accuracy on the held-out batches, next to the unigram
    guess's, and how many pairs or texts they hold."""
    count_name = "pairs" if settings.next_sentence else "texts"
    return {
        **pretraining_accuracies(model, streams.held_out, settings.next_sentence),
        "mlm_unigram_accuracy": unigram_baseline_accuracy(streams.token_counts, streams.held_out),
        count_name: len(streams.held_out) * settings.batch_size,
    }
