"""``contrast_span``: reviews whose verdict must be carried across a span (Chapter 3, LSTM and GRU).

A review joins two clauses of the ``sentiment`` grammar, each positive or negative at random,
with a connective, and puts ``span`` neutral words between the first clause and the connective::

    the acting was superb from start to finish in the, even though the plot was dull.   (label 1)
    the acting was superb from start to finish in the, but the plot was dull.           (label 0)

After ``but`` the second clause decides; after ``even though`` the first one does. The two
clauses are drawn independently, so on an ``even though`` review the last words say nothing about
the label: a model must have kept the first clause's verdict across the span and then refuse
to overwrite it, a conditional write that gates are made for. The last word of every review
is its second clause's adjective, so a model that only remembers recent words is at chance on
the ``even though`` half and right on the ``but`` half.

``conflict=False`` is the control that keeps the memory and removes the conditional write: the
second clause of an ``even though`` review gets a neutral adjective (``the plot was long``), so
the last verdict word of every review is the one that decides, as far from the end as before::

    the acting was superb from start to finish in the, even though the plot was long.  (label 1)
"""

from __future__ import annotations

import random

from coursekit.arguments import require_bool, require_non_negative_int
from coursekit.data.records import Labelled
from coursekit.data.registry import SEED_OPTION, SIZE_OPTION, DatasetInfo, Option, register
from coursekit.data.sentiment import FILLERS, SUBJECTS, draw_clause
from coursekit.data.splits import generator_for, sample_split

CONNECTIVES = ("but", "even though")
NEUTRAL_ADJECTIVES = ("long", "short", "loud", "quiet", "dark", "bright", "modern", "familiar")
NEUTRAL_WORDS = tuple(word for phrase in FILLERS for word in phrase.split())


def filler(rng: random.Random, span: int) -> str:
    """``span`` neutral words, drawn from the grammar's filler phrases."""
    return " ".join(rng.choices(NEUTRAL_WORDS, k=span))


def contrast_review(rng: random.Random, span: int, conflict: bool = True) -> Labelled:
    """``A <span words>, <connective> B.``; the label is A's after ``even though``, else B's.

    Without ``conflict``, B's adjective after ``even though`` is neutral (the control).
    """
    first_subject, second_subject = rng.sample(SUBJECTS, 2)
    first, second = (
        draw_clause(rng, subject, rng.randint(0, 1), negated=False)._replace(filler="")
        for subject in (first_subject, second_subject)
    )
    connective = rng.choice(CONNECTIVES)
    if connective == "even though" and not conflict:
        second = second._replace(adjective=rng.choice(NEUTRAL_ADJECTIVES))
    middle = " ".join(part for part in (first.text, filler(rng, span)) if part)
    label = first.sentiment if connective == "even though" else second.sentiment
    return Labelled(f"{middle}, {connective} {second.text}.", label)


@register(
    DatasetInfo(
        name="contrast_span",
        description="'A ..., but B' / 'A ..., even though B' with a span of neutral words",
        kind="generated",
        splits=("train", "valid", "test"),
        options=(
            SIZE_OPTION,
            SEED_OPTION,
            Option("span", 10, "neutral words between the first clause and the connective"),
            Option("conflict", True, "False: 'even though' clauses get a neutral adjective"),
        ),
        sizes={"train": 8000, "valid": 500, "test": 1000},
    )
)
def contrast_span(split: str, *, n: int, seed: int, span: int, conflict: bool) -> list[Labelled]:
    """Labelled reviews (1 positive, 0 negative), see the module docstring (Chapter 3)."""
    require_non_negative_int("span", span)
    require_bool("conflict", conflict)
    stream = f"contrast_span-{span}" if conflict else f"contrast_span-{span}-control"
    return sample_split(
        lambda rng: [contrast_review(rng, span, conflict)],
        key=lambda review: review.text,
        split=split,
        n=n,
        rng=generator_for(stream, split, seed),
    )
