"""``review_corpus``: unlabelled reviews for pretraining (Chapter 6) whose conjunctions carry
the adjectives' polarity, a control without them, and nothing from sentiment's held-out splits."""

from __future__ import annotations

import re

from coursekit import data
from coursekit.data.records import Labelled
from coursekit.data.sentiment import FRACTIONS, NEGATIVE, POSITIVE, bag_of_words
from coursekit.data.splits import split_of

CLAUSE = re.compile(r"was (not )?(?:(?:really|truly|quite) )?(\w+)")


def clause_sentiments(text: str) -> list[int]:
    """The sentiment of each clause, in order: the adjective's polarity, flipped by ``not``."""
    return [
        int(adjective in POSITIVE) ^ bool(negated) for negated, adjective in CLAUSE.findall(text)
    ]


def test_every_text_belongs_to_sentiments_split_of_its_words() -> None:
    for joined in (True, False):
        for split in ("train", "valid"):
            texts = data.load("review_corpus", split, n=300, joined=joined)
            assert len(set(texts)) == 300
            assert {split_of(bag_of_words(Labelled(t, -1)), FRACTIONS) for t in texts} == {split}


def test_no_text_is_a_held_out_review() -> None:
    texts = set(data.load("review_corpus", n=2000))
    for split in ("valid", "test", "hard"):
        assert not texts & {review.text for review in data.load("sentiment", split)}


def test_and_keeps_the_sentiment_and_but_changes_it() -> None:
    for text in data.load("review_corpus", n=400):
        if "although" in text or "even though" in text:
            continue
        sentiments = clause_sentiments(text)
        joins = re.findall(r" and |, but ", text)
        assert len(sentiments) == len(joins) + 1 in (2, 3), text
        for join, (left, right) in zip(
            joins, zip(sentiments[:-1], sentiments[1:], strict=True), strict=True
        ):
            assert (left == right) == (join == " and "), text
    assert all(
        a in POSITIVE + NEGATIVE
        for _, a in CLAUSE.findall(" ".join(data.load("review_corpus", n=50)))
    )


def test_the_control_has_the_clauses_but_nothing_that_relates_them() -> None:
    control = data.load("review_corpus", n=400, joined=False)
    assert not any(re.search(r"\b(and|but|although|though)\b", text) for text in control)
    clauses = [len(clause_sentiments(text)) for text in control]
    assert set(clauses) == {2, 3}
    agreeing = sum(len(set(clause_sentiments(t))) == 1 for t in control) / len(control)
    assert 0.25 < agreeing < 0.5  # independent sentiments: 1/2 of pairs, 1/4 of triples agree
