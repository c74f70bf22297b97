"""``review_corpus``: unlabelled reviews to pretrain on, from the sentiment grammar (Chapter 6).

A pretrained model can only bring to a task what its unlabelled text teaches. These reviews use
the words of ``sentiment`` (its subjects, adjectives, adverbs, fillers and openers) and join two
or three clauses the way people write: with ``and`` when the next clause has the same
sentiment, with ``but`` when it has the opposite one (Hatzivassiloglou and McKeown, 1997, found
adjective polarity from exactly these conjunctions). A clause is negated now and then, which
flips its adjective's polarity. So filling a masked adjective well requires knowing which
adjectives are positive and which negative, and a masked language model learns it with no label.

The *control* corpus (``joined=False``) removes only that relation: each text holds as many
clauses, drawn the same way, but each one its own sentence with a sentiment of its own, so
that no word relates one adjective to another.

A text's bag of words decides its split exactly as it decides sentiment's, so the ``train``
texts that pretraining reads can never be a validation, test or hard review, and the ``valid``
and ``test`` texts measure the masked language model on reviews it never read.
"""

from __future__ import annotations

import random

from coursekit.data.records import Labelled
from coursekit.data.registry import SEED_OPTION, SIZE_OPTION, DatasetInfo, Option, register
from coursekit.data.sentiment import (
    ADVERBS,
    FILLERS,
    FRACTIONS,
    NEGATIVE,
    OPENERS,
    POSITIVE,
    SUBJECTS,
    Clause,
    bag_of_words,
    sentence,
)
from coursekit.data.splits import generator_for, sample_split

NEGATION_PROBABILITY = 0.15
FILLER_PROBABILITY = 0.2
CHANGE_PROBABILITY = 0.3


def clause_with_sentiment(rng: random.Random, subject: str, sentiment: int) -> Clause:
    """A clause with the given sentiment; negated with probability 0.15 (the adjective then has
    the opposite polarity), a filler with probability 0.2."""
    negated = rng.random() < NEGATION_PROBABILITY
    adjectives = POSITIVE if sentiment ^ negated else NEGATIVE
    filler = rng.choice(FILLERS[1:]) if rng.random() < FILLER_PROBABILITY else ""
    return Clause(subject, rng.choice(ADVERBS), rng.choice(adjectives), filler, negated)


def opinion_clauses(rng: random.Random) -> tuple[list[Clause], list[str]]:
    """Two or three clauses on different subjects and the words that join them: ``and`` where
    the sentiment stays, ``but`` where it changes (with probability 0.3)."""
    subjects = rng.sample(SUBJECTS, rng.choice((2, 3)))
    sentiment = rng.randint(0, 1)
    clauses, joins = [clause_with_sentiment(rng, subjects[0], sentiment)], []
    for subject in subjects[1:]:
        changes = rng.random() < CHANGE_PROBABILITY
        sentiment ^= changes
        joins.append(", but" if changes else " and")
        clauses.append(clause_with_sentiment(rng, subject, sentiment))
    return clauses, joins


def joined_review(rng: random.Random) -> tuple[Labelled]:
    """``[opener] A and B, but C.``: clauses joined by what relates their sentiments; two
    clauses of opposite sentiments are also written ``although A, B`` or ``B, even though A``."""
    clauses, joins = opinion_clauses(rng)
    if joins == [", but"] and rng.random() < 2 / 3:  # two clauses: "although" or "even though"
        first, second = (clause.text for clause in clauses)
        body = (
            f"although {first}, {second}"
            if rng.random() < 0.5
            else f"{second}, even though {first}"
        )
    else:
        body = clauses[0].text + "".join(
            f"{join} {clause.text}" for join, clause in zip(joins, clauses[1:], strict=True)
        )
    return (Labelled(sentence(rng.choice(OPENERS), body), -1),)


def independent_clauses(rng: random.Random) -> tuple[Labelled]:
    """``A. B. C.``: as many clauses, each its own sentence with a sentiment of its own."""
    subjects = rng.sample(SUBJECTS, rng.choice((2, 3)))
    clauses = [clause_with_sentiment(rng, subject, rng.randint(0, 1)) for subject in subjects]
    return (Labelled(" ".join(sentence(rng.choice(OPENERS), c.text) for c in clauses), -1),)


@register(
    DatasetInfo(
        name="review_corpus",
        description="unlabelled reviews joining clauses with and/but, for pretraining (Ch. 6)",
        kind="generated",
        splits=("train", "valid", "test"),
        options=(
            SIZE_OPTION,
            SEED_OPTION,
            Option("joined", True, "False: the control, clauses as separate sentences"),
        ),
        sizes={"train": 20000, "valid": 1000, "test": 1000},
    )
)
def review_corpus(split: str, *, n: int, seed: int, joined: bool) -> list[str]:
    """``n`` unlabelled review texts of ``split`` (Chapter 6, BERT); the split is sentiment's
    split of the text's bag of words."""
    reviews = sample_split(
        joined_review if joined else independent_clauses,
        key=bag_of_words,
        split=split,
        n=n,
        rng=generator_for(f"review_corpus-{joined}", split, seed),
        fractions=FRACTIONS,
    )
    return [review.text for review in reviews]
