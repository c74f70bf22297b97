"""``review_corpus``: unlabelled reviews to pretrain on, from the sentiment grammar (Chapter 6).

A pretrained model can only bring to a task what its unlabelled text teaches. These reviews use
the words of ``sentiment`` and say two things about a film with ``and``, which people use to
join judgements of the same polarity: ``the plot was superb and the cast was brilliant.``
(Hatzivassiloglou and McKeown, 1997, sorted adjectives into positive and negative from exactly
such conjunctions). Filling a masked adjective well therefore requires knowing which
adjectives go together, and a masked language model learns the two polarities with no label.

The *control* corpus (``joined=False``) removes only that relation: the same two judgements,
each its own sentence with a polarity of its own (``the plot was superb. the cast was dull.``),
so that nothing in a text relates one adjective to the other.

Every text has one shape, ``the X was A and the Y was B.`` (the subjects of two words), so that
a small model learns the relation in a couple of thousand steps on a laptop; longer subjects,
adverbs, fillers, negation and ``but`` between opposite judgements all make the same model
need far longer. A text's bag of words decides its split exactly as it decides sentiment's, so
the ``train`` texts that pretraining reads are never a validation, test or hard review of
``sentiment``, and the ``valid`` and ``test`` texts measure the model on texts it never read.
"""

from __future__ import annotations

import random

from coursekit.data.records import Labelled
from coursekit.data.registry import SEED_OPTION, SIZE_OPTION, DatasetInfo, Option, register
from coursekit.data.sentiment import FRACTIONS, NEGATIVE, POSITIVE, SUBJECTS, bag_of_words
from coursekit.data.splits import generator_for, sample_split

SHORT_SUBJECTS = tuple(subject for subject in SUBJECTS if len(subject.split()) == 2)
"""The subjects of two words (``the plot``, ...; not ``the camera work``)."""


def judgement(rng: random.Random, subject: str, positive: bool) -> str:
    """``<subject> was <adjective>`` with an adjective of the given polarity."""
    return f"{subject} was {rng.choice(POSITIVE if positive else NEGATIVE)}"


def joined_review(rng: random.Random) -> tuple[Labelled]:
    """``X was A and Y was B.``: two judgements of the same polarity joined by ``and``."""
    first, second = rng.sample(SHORT_SUBJECTS, 2)
    positive = rng.random() < 0.5
    text = f"{judgement(rng, first, positive)} and {judgement(rng, second, positive)}."
    return (Labelled(text, -1),)


def separate_judgements(rng: random.Random) -> tuple[Labelled]:
    """``X was A. Y was B.``: two judgements, each its own sentence with its own polarity."""
    first, second = rng.sample(SHORT_SUBJECTS, 2)
    text = f"{judgement(rng, first, rng.random() < 0.5)}. {judgement(rng, second, rng.random() < 0.5)}."
    return (Labelled(text, -1),)


@register(
    DatasetInfo(
        name="review_corpus",
        description="unlabelled 'X was A and Y was B.' reviews, for pretraining (Ch. 6)",
        kind="generated",
        splits=("train", "valid", "test"),
        options=(
            SIZE_OPTION,
            SEED_OPTION,
            Option("joined", True, "False: the control, two sentences of independent polarity"),
        ),
        sizes={"train": 10000, "valid": 1000, "test": 1000},
    )
)
def review_corpus(split: str, *, n: int, seed: int, joined: bool) -> list[str]:
    """``n`` distinct unlabelled review texts of ``split`` (Chapter 6, BERT); the split is
    sentiment's split of the text's bag of words."""
    reviews = sample_split(
        joined_review if joined else separate_judgements,
        key=bag_of_words,
        split=split,
        n=n,
        rng=generator_for(f"review_corpus-{joined}", split, seed),
        fractions=FRACTIONS,
    )
    return [review.text for review in reviews]
