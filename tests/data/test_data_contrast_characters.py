"""The contrast_span reviews and the character corpus that Chapters 2, 3 and 5 share."""

from __future__ import annotations

import re

import pytest
import torch

from coursekit import data
from coursekit.data.characters import character_corpus, next_token_windows
from coursekit.data.contrast import NEUTRAL_ADJECTIVES, NEUTRAL_WORDS
from coursekit.data.sentiment import NEGATIVE, POSITIVE

CLAUSE = re.compile(r"^the [a-z ]+? was (?:\w+ )?(\w+)$")


def clause_sentiment(clause: str) -> int:
    adjective = clause.split()[-1]
    assert adjective in POSITIVE or adjective in NEGATIVE, clause
    return int(adjective in POSITIVE)


@pytest.mark.parametrize("span", [0, 3, 12])
def test_the_connective_decides_which_clause_labels_the_review(span: int) -> None:
    for review in data.load("contrast_span", "train", n=200, span=span):
        head, connective, tail = re.match(r"^(.*), (but|even though) (.*)\.$", review.text).groups()
        words = head.split()
        first_clause, filler = " ".join(words[: len(words) - span]), words[len(words) - span :]
        assert all(word in NEUTRAL_WORDS for word in filler)
        assert CLAUSE.match(first_clause) and CLAUSE.match(tail)
        expected = clause_sentiment(first_clause if connective == "even though" else tail)
        assert review.label == expected


def test_the_clauses_are_independent_so_the_end_does_not_give_the_label_away() -> None:
    reviews = data.load("contrast_span", "train", n=2000, span=5)
    though = [r for r in reviews if ", even though " in r.text]
    agree = sum(
        clause_sentiment(r.text.rstrip(".").split(", even though ")[1]) == r.label for r in though
    )
    assert 0.4 < agree / len(though) < 0.6
    assert 0.4 < len(though) / len(reviews) < 0.6


def test_the_control_keeps_the_memory_and_removes_the_conflict() -> None:
    """conflict=False: the last verdict word of every review is the one that labels it."""
    reviews = data.load("contrast_span", "train", n=400, span=7, conflict=False)
    though = [r for r in reviews if ", even though " in r.text]
    assert 0.4 < len(though) / len(reviews) < 0.6
    for review in reviews:
        words = review.text.rstrip(".").replace(",", "").split()
        verdicts = [word for word in words if word in POSITIVE or word in NEGATIVE]
        assert review.label == int(verdicts[-1] in POSITIVE)
    for review in though:
        assert review.text.rstrip(".").split()[-1] in NEUTRAL_ADJECTIVES
        assert len(review.text.split(", even though ")[0].split()) >= 3 + 7
    with pytest.raises(ValueError, match="conflict"):
        data.load("contrast_span", "train", n=5, span=2, conflict="no")


def test_splits_are_disjoint_and_the_span_is_checked() -> None:
    train = {r.text for r in data.load("contrast_span", "train", n=500, span=4)}
    test = {r.text for r in data.load("contrast_span", "test", n=200, span=4)}
    assert not train & test
    with pytest.raises(ValueError, match="span"):
        data.load("contrast_span", "train", n=5, span=-1)


def test_windows_are_inputs_and_targets_shifted_by_one() -> None:
    ids = torch.arange(23)
    windows = next_token_windows(ids, 5)
    inputs, targets = windows.tensors
    assert inputs.shape == targets.shape == (4, 5)
    torch.testing.assert_close(targets, inputs + 1)
    with pytest.raises(ValueError, match="too few"):
        next_token_windows(torch.arange(3), 5)


def test_the_character_corpus_frames_validation_and_test_by_newlines() -> None:
    corpus = character_corpus()
    assert corpus.vocab.get_itos()[0] == "<unk>"
    newline = corpus.vocab["\n"]
    for ids, (inputs, targets) in (
        (corpus.valid_ids, corpus.validation_batch()),
        (corpus.test_ids, corpus.test_batch()),
    ):
        assert ids[0] == ids[-1] == newline
        assert inputs.shape == targets.shape == (1, len(ids) - 1)
        torch.testing.assert_close(inputs[0, 1:], targets[0, :-1])
    assert not torch.equal(corpus.valid_ids, corpus.test_ids)
    assert len(corpus.windows(64)) == (len(corpus.train_ids) - 1) // 64
