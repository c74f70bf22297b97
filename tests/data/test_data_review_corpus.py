"""``review_corpus``: unlabelled reviews for pretraining (Chapter 6) whose ``and`` joins two
judgements of one polarity, a control without that relation, and nothing from sentiment's
held-out splits."""

from __future__ import annotations

import re

from coursekit import data
from coursekit.data.records import Labelled
from coursekit.data.review_corpus import SHORT_SUBJECTS
from coursekit.data.sentiment import FRACTIONS, NEGATIVE, POSITIVE, bag_of_words
from coursekit.data.splits import split_of

JOINED = re.compile(r"^(the \w+) was (\w+) and (the \w+) was (\w+)\.$")
SEPARATE = re.compile(r"^(the \w+) was (\w+)\. (the \w+) was (\w+)\.$")


def test_every_text_belongs_to_sentiments_split_of_its_words() -> None:
    for joined in (True, False):
        for split in ("train", "valid"):
            texts = data.load("review_corpus", split, n=300, joined=joined)
            assert len(set(texts)) == 300
            assert {split_of(bag_of_words(Labelled(t, -1)), FRACTIONS) for t in texts} == {split}


def test_no_text_is_a_held_out_review() -> None:
    texts = set(data.load("review_corpus", n=3000))
    for split in ("valid", "test", "hard"):
        held_out = data.load(
            "sentiment", split, n=500, plain_fraction=1.0 if split != "hard" else 0.5
        )
        assert not texts & {review.text for review in held_out}


def test_and_joins_two_judgements_of_one_polarity_on_two_subjects() -> None:
    for text in data.load("review_corpus", n=400):
        match = JOINED.match(text)
        assert match is not None, text
        first, a, second, b = match.groups()
        assert first != second and {first, second} <= set(SHORT_SUBJECTS)
        assert a in POSITIVE + NEGATIVE and b in POSITIVE + NEGATIVE
        assert (a in POSITIVE) == (b in POSITIVE), text


def test_the_control_has_the_judgements_but_nothing_that_relates_them() -> None:
    control = data.load("review_corpus", n=800, joined=False)
    matches = [SEPARATE.match(text) for text in control]
    assert all(matches), [t for t, m in zip(control, matches, strict=True) if m is None][:3]
    agreeing = sum((m.group(2) in POSITIVE) == (m.group(4) in POSITIVE) for m in matches if m)
    assert 0.43 < agreeing / len(control) < 0.57  # independent polarities agree half the time
