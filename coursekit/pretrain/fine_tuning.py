"""Fine-tuning BERT, and the same network trained from scratch (Chapter 6, BERT).

Fine-tuning puts one small output layer on the encoder and trains every parameter on the
task's labelled examples. Each task type has its loss:

- classification (a text or a pair): ``L = -log softmax(W' tanh(W h_L[CLS] + b) + b')_y``, the
  pooled ``[CLS]`` state through the classifier;
- tokens: the mean of ``-log softmax(W h_L[t] + b)_{y_t}`` over the tagged tokens;
- spans: ``L = -(log P_start(i*) + log P_end(j*)) / 2`` with ``P_start = softmax_t(S . h_L[t])``
  and ``P_end = softmax_t(E . h_L[t])``.

A comparison of pretrained and from-scratch models must give both arms the same chance:
:func:`task_model` draws BERT's initialisation of every weight from the same seed, so both arms
get the same output layer and the pretrained arm differs only in its encoder;
:func:`fine_tune` draws the same batches in the same order from the same seed. Each arm's
learning rate is its own, chosen on validation data.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.optim.lr_scheduler import LambdaLR
from torch.utils.data import DataLoader, RandomSampler

from coursekit.data.ner import TAGS
from coursekit.models.bert.config import BertConfig
from coursekit.models.bert.model import BertPreTrainedModel
from coursekit.models.bert.span import best_span
from coursekit.models.bert.tasks import (
    BertForQuestionAnswering,
    BertForSequenceClassification,
    BertForTokenClassification,
)
from coursekit.pretrain.checkpoint import load_pretrained
from coursekit.pretrain.masking import IGNORE_INDEX
from coursekit.pretrain.schedule import WarmupLinearDecay
from coursekit.pretrain.task_inputs import (
    EncodedExample,
    TaskBatch,
    collate,
    encode_pair,
    encode_single,
    encode_span,
    encode_tags,
)
from coursekit.runtime import evaluating, model_device, seed_everything, seeded_generator
from coursekit.text.wordpiece import WordPieceTokenizer
from coursekit.train import fit

MAX_ANSWER_LENGTH = 4


@dataclass(frozen=True)
class Task:
    """A kind of task: its model class, number of labels, encoder and score's name."""

    model_class: type[BertPreTrainedModel]
    num_labels: int
    encode: Callable[[WordPieceTokenizer, Any], EncodedExample]
    metric: str


TASKS = {
    "nli": Task(BertForSequenceClassification, 3, encode_pair, "accuracy"),
    "sentiment": Task(BertForSequenceClassification, 2, encode_single, "accuracy"),
    "story_qa": Task(BertForQuestionAnswering, 2, encode_span, "exact match"),
    "ner": Task(BertForTokenClassification, len(TAGS), encode_tags, "entity F1"),
}


def task_loss(model: BertPreTrainedModel, batch: TaskBatch) -> Tensor:
    """The cross-entropy of the model's output layer: per input, per token (``-100``
    skipped) or, for spans, the mean of the start's and the end's.
    """
    output = model(batch.input_ids, batch.attention_mask, batch.token_type_ids)
    if isinstance(model, BertForQuestionAnswering):
        start, end = batch.targets.unbind(-1)
        start_loss = F.cross_entropy(output.start_logits, start)
        return (start_loss + F.cross_entropy(output.end_logits, end)) / 2
    return F.cross_entropy(output.logits.flatten(0, -2), batch.targets.flatten())


def task_model(
    task: Task,
    config: BertConfig,
    pretrained: str | os.PathLike[str] | None,
    seed: int,
) -> BertPreTrainedModel:
    """``task``'s model with BERT's initialisation drawn from ``seed``; with ``pretrained`` (a
    checkpoint), its encoder then takes the pretrained weights. Both arms of a comparison get
    the same output layer from the same seed.
    """
    seed_everything(seed)
    if pretrained is None:
        return task.model_class(dataclasses.replace(config, num_labels=task.num_labels))
    model, _ = load_pretrained(pretrained, model_class=task.model_class, num_labels=task.num_labels)
    return model


def fine_tune(
    model: BertPreTrainedModel,
    examples: Sequence[EncodedExample],
    pad_id: int,
    *,
    learning_rate: float,
    steps: int,
    seed: int,
    batch_size: int = 16,
) -> BertPreTrainedModel:
    """Train every parameter of ``model`` for ``steps`` batches of ``batch_size``
    examples drawn at random (seeded) from ``examples``: AdamW (weight decay 0.01), the
    learning rate warmed up over the first 10 % of the steps then decayed linearly to 0,
    gradients clipped at norm 1.
    """
    draws = steps * batch_size
    sampler = RandomSampler(
        examples, replacement=True, num_samples=draws, generator=seeded_generator(seed)
    )
    batches: DataLoader[EncodedExample] = DataLoader(
        list(examples),  # type: ignore[arg-type]
        batch_size=batch_size,
        sampler=sampler,
        collate_fn=partial(collate, pad_id=pad_id),
    )
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.01)
    schedule = LambdaLR(optimizer, WarmupLinearDecay(max(1, steps // 10), steps))
    fit(
        model, batches, loss_fn=task_loss, optimizer=optimizer, epochs=1,
        max_grad_norm=1.0, scheduler=schedule, scheduler_interval="step", progress=False,
    )  # fmt: skip
    return model


def entities(tags: Sequence[str]) -> set[tuple[int, int, str]]:
    """The entities of a BIO-tagged sentence as ``(first, last + 1, type)``, as CoNLL counts
    them (an ``I-`` tag without its ``B-`` starts an entity)."""
    found, start, kind = set(), None, ""
    for position, tag in enumerate([*tags, "O"]):
        if start is not None and tag != f"I-{kind}":
            found.add((start, position, kind))
            start = None
        if tag.startswith("B-") or (tag.startswith("I-") and start is None):
            start, kind = position, tag[2:]
    return found


def entity_f1(guesses: Tensor, targets: Tensor) -> float:
    """CoNLL's entity F1 of tag ids ``guesses`` against ``targets`` ``[B, T]``, both read at
    the positions where ``targets`` is not ``-100``: an entity counts when its first word, last
    word and type are all right."""
    found = right = true = 0
    for guess, target in zip(guesses, targets, strict=True):
        tagged = target != IGNORE_INDEX
        predicted = entities([TAGS[t] for t in guess[tagged].tolist()])
        actual = entities([TAGS[t] for t in target[tagged].tolist()])
        found, true, right = (
            found + len(predicted),
            true + len(actual),
            right + len(predicted & actual),
        )
    return 2 * right / max(1, found + true)


@torch.no_grad()
def score(
    model: BertPreTrainedModel, examples: Sequence[EncodedExample], pad_id: int, sep_id: int
) -> float:
    """Accuracy for classification, exact match for spans (the best span of at most
    ``MAX_ANSWER_LENGTH`` tokens inside the story), entity F1 for tags."""
    batch = collate(list(examples), pad_id).to(model_device(model))
    with evaluating(model):
        output = model(batch.input_ids, batch.attention_mask, batch.token_type_ids)
    if isinstance(model, BertForQuestionAnswering):
        story = (batch.token_type_ids == 1) & (batch.input_ids != sep_id)
        start, end, _ = best_span(
            output.start_logits,
            output.end_logits,
            max_answer_length=MAX_ANSWER_LENGTH,
            allowed=story,
        )
        return (torch.stack([start, end], -1) == batch.targets).all(-1).float().mean().item()
    if isinstance(model, BertForTokenClassification):
        return entity_f1(output.logits.argmax(-1), batch.targets)
    return (output.logits.argmax(-1) == batch.targets).float().mean().item()
