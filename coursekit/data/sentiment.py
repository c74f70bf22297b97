"""``sentiment``: movie-review sentences where word order decides (Chapter 3, LSTM and GRU).

Reviews come from a small grammar. A *clause* says that an aspect of the film was good or bad,
``the plot was (not) (really) dull (in the second half)``; its sentiment is the polarity of the
adjective, flipped by ``not``. Sentences combine clauses with the rules a reader applies:

- plain: one clause, or two with the same sentiment joined by ``and``;
- negation: ``the acting was not good`` is negative;
- contrast: in ``A, but B`` and ``although A, B`` the second clause decides; in
  ``B, even though A`` the first one does, however long ``A`` is (a long-range cue);
- moved negation: ``x was not dull and y was superb`` is positive, while
  ``x was dull and y was not superb``, with exactly the same words, is negative.

The ``hard`` split holds only contrast and moved-negation sentences, in *mirror pairs*: each
sentence comes with another made of the same multiset of words and the opposite label (swap the
clauses, or move the ``not``). A bag-of-words model sees the two as one input, so it gets exactly
one of each pair right: 50 %, whatever it learned. Word order is the only way up from chance.
Labels: ``1`` positive, ``0`` negative. Everything is lowercase.
"""

from __future__ import annotations

import random
import re
from typing import NamedTuple

from coursekit.arguments import require_fraction
from coursekit.data.records import Labelled
from coursekit.data.registry import SEED_OPTION, SIZE_OPTION, DatasetInfo, Option, register
from coursekit.data.splits import generator_for, sample_split

SUBJECTS = (
    "the plot", "the acting", "the script", "the dialogue", "the soundtrack", "the pacing",
    "the ending", "the cast", "the direction", "the camera work", "the story", "the humour",
    "the score", "the editing", "the lead performance", "the villain", "the first act",
)  # fmt: skip
POSITIVE = (
    "good", "great", "superb", "brilliant", "wonderful", "excellent", "moving", "gripping",
    "charming", "clever", "beautiful", "fresh", "stunning", "delightful", "solid",
)  # fmt: skip
NEGATIVE = (
    "bad", "dull", "boring", "awful", "terrible", "weak", "clumsy", "tedious", "bland",
    "predictable", "lifeless", "forgettable", "messy", "dreadful", "poor",
)  # fmt: skip
ADVERBS = ("", "really", "truly", "quite")
FILLERS = (
    "", "from start to finish", "in the second half", "for most of its two hours",
    "despite all the hype", "in almost every scene", "by the standards of the genre",
)  # fmt: skip
OPENERS = ("", "honestly,", "overall,", "frankly,", "to be fair,", "in my opinion,", "all in all,")
NEGATION_PROBABILITY = 0.3
FRACTIONS = {"train": 0.7, "valid": 0.1, "test": 0.1, "hard": 0.1}


class Clause(NamedTuple):
    """``<subject> was [not] [adverb] <adjective> [filler]``; sentiment = polarity XOR not."""

    subject: str
    adverb: str
    adjective: str
    filler: str
    negated: bool

    @property
    def sentiment(self) -> int:
        """1 if the clause praises its subject, 0 if it criticises it."""
        return int(self.adjective in POSITIVE) ^ int(self.negated)

    @property
    def text(self) -> str:
        """The clause as words."""
        words = (self.subject, "was", "not" if self.negated else "", self.adverb, self.adjective)
        return " ".join(word for word in (*words, self.filler) if word)

    def with_negation(self, negated: bool) -> Clause:
        """The same words with or without ``not`` (so the sentiment flips when it changes)."""
        return self._replace(negated=negated)


def draw_clause(rng: random.Random, subject: str, sentiment: int, negated: bool) -> Clause:
    """A clause with the given sentiment: the adjective's polarity is ``sentiment XOR negated``."""
    adjectives = POSITIVE if sentiment ^ negated else NEGATIVE
    return Clause(
        subject, rng.choice(ADVERBS), rng.choice(adjectives), rng.choice(FILLERS), negated
    )


def sentence(opener: str, body: str) -> str:
    """``[opener] body.``"""
    return f"{opener} {body}.".strip()


def plain_review(rng: random.Random) -> Labelled:
    """One clause, or two with the same sentiment joined by ``and``; no negation, no contrast."""
    label = rng.randint(0, 1)
    subjects = rng.sample(SUBJECTS, rng.randint(1, 2))
    clauses = [draw_clause(rng, subject, label, negated=False) for subject in subjects]
    return Labelled(sentence(rng.choice(OPENERS), " and ".join(c.text for c in clauses)), label)


def negated_review(rng: random.Random) -> Labelled:
    """One negated clause: ``the acting was not good`` (label 0)."""
    clause = draw_clause(rng, rng.choice(SUBJECTS), rng.randint(0, 1), negated=True)
    return Labelled(sentence(rng.choice(OPENERS), clause.text), clause.sentiment)


def contrast_pair(rng: random.Random) -> tuple[Labelled, Labelled]:
    """``A, but B`` / ``although A, B`` / ``B, even though A`` and the same with A and B swapped.

    A and B have opposite sentiments; the main clause (B) decides the label.
    """
    first_sentiment = rng.randint(0, 1)
    subject_a, subject_b = rng.sample(SUBJECTS, 2)
    a = draw_clause(rng, subject_a, first_sentiment, rng.random() < NEGATION_PROBABILITY)
    b = draw_clause(rng, subject_b, 1 - first_sentiment, rng.random() < NEGATION_PROBABILITY)
    templates = ("{a}, but {b}", "although {a}, {b}", "{b}, even though {a}")
    template, opener = rng.choice(templates), rng.choice(OPENERS)

    def review(minor: Clause, main: Clause) -> Labelled:
        return Labelled(
            sentence(opener, template.format(a=minor.text, b=main.text)), main.sentiment
        )

    return review(a, b), review(b, a)


def moved_negation_pair(rng: random.Random) -> tuple[Labelled, Labelled]:
    """``x was not P and y was Q`` and ``x was P and y was not Q``, with P, Q of opposite polarity.

    Both clauses of each sentence agree, so the label is their common sentiment.
    """
    subject_x, subject_y = rng.sample(SUBJECTS, 2)
    x = draw_clause(rng, subject_x, rng.randint(0, 1), negated=False)
    y = draw_clause(rng, subject_y, 1 - x.sentiment, negated=False)
    opener = rng.choice(OPENERS)

    def review(negate_x: bool) -> Labelled:
        left, right = x.with_negation(negate_x), y.with_negation(not negate_x)
        return Labelled(sentence(opener, f"{left.text} and {right.text}"), left.sentiment)

    return review(True), review(False)


def mirror_pair(rng: random.Random) -> tuple[Labelled, Labelled]:
    """Two reviews with the same words and opposite labels (2/3 contrast, 1/3 moved negation)."""
    return contrast_pair(rng) if rng.random() < 2 / 3 else moved_negation_pair(rng)


def mixed_review(rng: random.Random, plain_fraction: float) -> Labelled:
    """A plain review with probability ``plain_fraction``; otherwise negation (1 in 4) or one
    sentence of a mirror pair (3 in 4)."""
    if rng.random() < plain_fraction:
        return plain_review(rng)
    if rng.random() < 0.25:
        return negated_review(rng)
    return rng.choice(mirror_pair(rng))


def bag_of_words(review: Labelled) -> str:
    """The key of a review: its sorted words and punctuation, i.e. the multiset of its tokens."""
    return " ".join(sorted(re.findall(r"[\w']+|[^\w\s]", review.text)))


@register(
    DatasetInfo(
        name="sentiment",
        description="reviews with negation and contrast; the 'hard' split defeats bag-of-words",
        kind="generated",
        splits=("train", "valid", "test", "hard"),
        options=(
            SIZE_OPTION,
            SEED_OPTION,
            Option(
                "plain_fraction",
                0.5,
                "share of plain reviews in train/valid/test (1.0: only plain); hard has none",
            ),
        ),
        sizes={"train": 5000, "valid": 500, "test": 500, "hard": 500},
    )
)
def sentiment(split: str, *, n: int, seed: int, plain_fraction: float) -> list[Labelled]:
    """Labelled reviews (1 positive, 0 negative) (Chapter 3, LSTM and GRU).

    The ``hard`` split is made of mirror pairs (an odd ``n`` cuts the last pair). The bag of words
    is the key that decides the split, so no multiset of words is shared by two splits: the hard
    split's word bags never occur in training.
    """
    fraction = require_fraction("plain_fraction", plain_fraction)
    return sample_split(
        lambda rng: mirror_pair(rng) if split == "hard" else (mixed_review(rng, fraction),),
        key=bag_of_words,
        split=split,
        n=n,
        rng=generator_for("sentiment", split, seed),
        fractions=FRACTIONS,
    )
