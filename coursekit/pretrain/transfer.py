"""What pretraining on reviews brings to sentiment, measured (Chapter 6, BERT).

The experiment has two halves. Before any label, :func:`masked_adjective_polarity` asks the
pretrained masked language model to fill an adjective in ``the X was A and the Y was [MASK].``:
it is right when the probability it gives the adjectives of A's polarity exceeds the
probability it gives the others,

    right  <=>  sum_{w in P(A)} p(w | text) > sum_{w in N(A)} p(w | text),

with P(A) the adjectives of A's polarity and N(A) the rest (chance: 1/2). After labels,
:func:`compare_arms` fine-tunes several *arms* (pretrained, from scratch, pretrained on the
control corpus) on the same labelled reviews, drawn by the same seed, with the same head
initialisation and batch order, and scores each on the same test sets. The labelled reviews
can be restricted to a few adjectives (:data:`LABELLED_ADJECTIVES`), and the test reviews to
those whose adjectives never occur among the labels: only a model that already knows which
adjectives go together can get those right.
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from coursekit.config import shifted
from coursekit.data import load
from coursekit.data.records import Labelled
from coursekit.data.sentiment import NEGATIVE, POSITIVE
from coursekit.models.bert.heads import BertForPreTraining
from coursekit.pretrain.checkpoint import REVIEWS_BERT, REVIEWS_CONTROL_BERT, load_pretrained
from coursekit.pretrain.fine_tuning import TASKS, fine_tune, score, task_model
from coursekit.pretrain.task_inputs import EncodedExample
from coursekit.runtime import evaluating
from coursekit.text.masks import padding_mask
from coursekit.text.padding import pad_batch
from coursekit.text.wordpiece import WordPieceTokenizer

FINE_TUNING_STEPS = 50
"""Every arm's fine-tuning: 50 batches of 16 reviews."""
LABELLED_ADJECTIVES = frozenset(
    {"good", "great", "superb", "brilliant", "bad", "dull", "boring", "awful"}
)
"""The eight adjectives (four of each polarity) that the restricted labelled reviews use."""
JUDGEMENT = re.compile(r"^(.* was )(\w+)( and .* was )(\w+)\.$")


def adjectives_in(text: str) -> set[str]:
    """The sentiment adjectives a review uses."""
    return {word for word in re.findall(r"\w+", text) if word in POSITIVE or word in NEGATIVE}


def using_only(reviews: Sequence[Labelled], adjectives: frozenset[str]) -> list[Labelled]:
    """The reviews whose adjectives are all among ``adjectives``."""
    return [review for review in reviews if adjectives_in(review.text) <= adjectives]


def avoiding(reviews: Sequence[Labelled], adjectives: frozenset[str]) -> list[Labelled]:
    """The reviews that use none of ``adjectives``."""
    return [review for review in reviews if not adjectives_in(review.text) & adjectives]


def masked_inputs(
    tokenizer: WordPieceTokenizer, texts: Sequence[str]
) -> tuple[list[list[str]], list[str]]:
    """Each ``the X was A and the Y was B.`` twice, as tokens with B masked, then A; and the
    adjective left in place, whose polarity the masked one must have."""
    inputs, kept = [], []
    for text in texts:
        match = JUDGEMENT.match(text)
        if match is None:
            raise ValueError(f"not a review of the form 'the X was A and the Y was B.': {text!r}")
        before, first, middle, second = match.groups()
        for left, right, other in (
            (f"{before}{first}{middle}", ".", first),
            (before, f"{middle}{second}.", second),
        ):
            inputs.append(
                ["[CLS]", *tokenizer.tokenize(left), "[MASK]", *tokenizer.tokenize(right), "[SEP]"]
            )
            kept.append(other)
    return inputs, kept


@torch.no_grad()
def masked_adjective_polarity(
    model: BertForPreTraining, tokenizer: WordPieceTokenizer, texts: Sequence[str]
) -> float:
    """The share of masked adjectives to which the model gives the polarity that the other
    adjective of ``the X was A and the Y was B.`` requires (each text twice: B masked, then A)."""
    inputs, kept = masked_inputs(tokenizer, texts)
    ids, lengths = pad_batch(
        [tokenizer.convert_tokens_to_ids(tokens) for tokens in inputs], tokenizer.pad_id
    )
    with evaluating(model):
        states = model.bert(ids, (~padding_mask(lengths)).long()).last_hidden_state
    probabilities = model.mlm(states[ids == tokenizer.mask_id]).softmax(-1)
    positive = probabilities[:, tokenizer.convert_tokens_to_ids(list(POSITIVE))].sum(-1)
    negative = probabilities[:, tokenizer.convert_tokens_to_ids(list(NEGATIVE))].sum(-1)
    required = torch.tensor([adjective in POSITIVE for adjective in kept])
    return ((positive > negative) == required).float().mean().item()


def encoded(tokenizer: WordPieceTokenizer, reviews: Sequence[Labelled]) -> list[EncodedExample]:
    """``[CLS] review [SEP]`` ids, segments and label of every review."""
    return [TASKS["sentiment"].encode(tokenizer, review) for review in reviews]


@dataclass(frozen=True)
class Arm:
    """One way to start fine-tuning: from ``checkpoint``'s weights (``pretrained``) or from
    BERT's random initialisation with the same configuration and vocabulary."""

    name: str
    checkpoint: str | os.PathLike[str]
    pretrained: bool


ARMS = (
    Arm("pretrained", REVIEWS_BERT, pretrained=True),
    Arm("from scratch", REVIEWS_BERT, pretrained=False),
    Arm("control-pretrained", REVIEWS_CONTROL_BERT, pretrained=True),
)
"""The BERT pretrained on ``reviews``, the same network from BERT's initialisation, and the
BERT pretrained on ``reviews_control`` (the judgements as separate sentences)."""


@dataclass(frozen=True)
class Experiment:
    """A fine-tuning protocol: ``labels`` reviews drawn from ``pool``, scored on ``tests``."""

    name: str
    pool: list[Labelled]
    labels: int
    tests: dict[str, list[Labelled]]


def unseen_adjectives(split: str = "test") -> Experiment:
    """64 plain reviews whose adjectives are all among :data:`LABELLED_ADJECTIVES`; scored on
    the plain reviews of ``split`` that use none of them."""
    pool = using_only(load("sentiment", "train", plain_fraction=1.0), LABELLED_ADJECTIVES)
    held_out = load("sentiment", split, plain_fraction=1.0)
    return Experiment(
        "unseen adjectives", pool, 64, {split: avoiding(held_out, LABELLED_ADJECTIVES)}
    )


def few_labels(split: str = "test", labels: int = 64) -> Experiment:
    """``labels`` reviews drawn from sentiment's training split; scored on its ``split``."""
    return Experiment(
        f"{labels} random labels",
        load("sentiment", "train"),
        labels,
        {split: load("sentiment", split)},
    )


def compare_arms(
    arms: Sequence[Arm],
    learning_rates: Mapping[str, float],
    experiment: Experiment,
    draws: Sequence[int],
    steps: int = FINE_TUNING_STEPS,
) -> dict[str, dict[str, list[float]]]:
    """For each draw, ``experiment.labels`` reviews sampled from its pool (the same for every
    arm), every arm fine-tuned on them at its learning rate (head initialised and batches drawn
    from the draw's seed) and scored on every test set: ``{arm: {test set: [accuracy per
    draw]}}``. ``$COURSEKIT_SEED`` moves every draw."""
    scores: dict[str, dict[str, list[float]]] = {
        arm.name: {name: [] for name in experiment.tests} for arm in arms
    }
    for arm in arms:
        model, tokenizer = load_pretrained(arm.checkpoint)
        tests = {name: encoded(tokenizer, reviews) for name, reviews in experiment.tests.items()}
        for draw in draws:
            labelled = random.Random(shifted(draw)).sample(experiment.pool, experiment.labels)
            start = arm.checkpoint if arm.pretrained else None
            fine_tuned = task_model(TASKS["sentiment"], model.config, start, draw)
            fine_tune(
                fine_tuned, encoded(tokenizer, labelled), tokenizer.pad_id,
                learning_rate=learning_rates[arm.name], steps=steps, seed=draw,
            )  # fmt: skip
            for name, examples in tests.items():
                accuracy = score(fine_tuned, examples, tokenizer.pad_id, tokenizer.sep_id)
                scores[arm.name][name].append(accuracy)
    return scores


LEARNING_RATES = (3e-4, 1e-3, 3e-3, 1e-2)
PILOT_DRAWS = (100, 101, 102)
"""The pilot's draws: other labelled reviews than the experiments' draws 0, 1, 2, ..."""


def learning_rate_pilot(
    arms: Sequence[Arm] = ARMS,
    experiments: Sequence[Experiment] = (),
    learning_rates: Sequence[float] = LEARNING_RATES,
    draws: Sequence[int] = PILOT_DRAWS,
) -> dict[str, Any]:
    """Each arm's learning rate for each experiment, picked on *validation* reviews: the
    validation accuracy of every draw at every rate, and the rate of the best mean (by default
    the experiments :func:`unseen_adjectives` and :func:`few_labels` on the valid split)."""
    experiments = experiments or (unseen_adjectives("valid"), few_labels("valid"))
    table: dict[str, dict[str, dict[str, list[float]]]] = {}
    chosen: dict[str, dict[str, float]] = {}
    for experiment in experiments:
        (test_name,) = experiment.tests
        table[experiment.name] = {arm.name: {} for arm in arms}
        for rate in learning_rates:
            scores = compare_arms(arms, {arm.name: rate for arm in arms}, experiment, draws)
            for arm in arms:
                table[experiment.name][arm.name][f"{rate:g}"] = scores[arm.name][test_name]
        chosen[experiment.name] = {
            arm: float(max(row, key=lambda rate: sum(row[rate])))
            for arm, row in table[experiment.name].items()
        }
    return {
        "learning_rates": list(learning_rates), "draws": list(draws), "steps": FINE_TUNING_STEPS,
        "validation_accuracy": table, "chosen": chosen,
    }  # fmt: skip
