"""``nli``: every label follows from the two sentences (checked by a parser and judge written
here, independently of the generator), three hypotheses per premise, balanced labels, and no
premise in two splits."""

from __future__ import annotations

import re
from collections import Counter, defaultdict

import pytest

from coursekit.data import load
from coursekit.data.nli import SentencePair

PREMISE = re.compile(r"^an? (\w+) (woman|man|girl|boy) is (.+) (in|on) the ([a-z ]+)\.$")
INDOOR = {"kitchen", "library", "office", "living room", "museum"}
KINDS = {"tall": "height", "short": "height", "young": "age", "old": "age"}
MOODS = {"happy", "tired", "hungry", "bored"}
PURPOSES = ("for work", "for fun", "with a friend", "after lunch")


def judge(premise: str, hypothesis: str) -> int:
    """0 entailment, 1 neutral, 2 contradiction, from the words of the two sentences."""
    adjective, noun, activity, preposition, place = PREMISE.match(premise).groups()
    where = f"{preposition} the {place}"
    subject, _, predicate = hypothesis.removesuffix(".").partition(" is ")
    subject_words = subject.split()[1:]
    described = subject_words[:-1]
    assert subject_words[-1] in (noun, "person")
    if described and KINDS[described[0]] != KINDS[adjective]:
        return 1
    if described and described[0] != adjective:
        return 2
    if predicate in MOODS:
        return 1
    if predicate.startswith("not "):
        return 2 if predicate == f"not {activity}" else 0
    if predicate in ("indoors", "outdoors"):
        return 0 if (predicate == "indoors") == (place in INDOOR) else 2
    if predicate.startswith(("in the ", "on the ")):
        return 0 if predicate == where else 2
    if not predicate.startswith(activity):
        return 2
    rest = predicate.removeprefix(activity).strip()
    if rest in PURPOSES:
        return 1
    if rest in ("", where, "indoors" if place in INDOOR else "outdoors"):
        return 0
    raise AssertionError(f"unexpected hypothesis {hypothesis!r}")


@pytest.mark.parametrize("split", ["train", "valid", "test"])
def test_every_label_follows_from_the_sentences(split: str) -> None:
    pairs = load("nli", split)
    assert all(isinstance(pair, SentencePair) for pair in pairs)
    assert [judge(p.premise, p.hypothesis) for p in pairs] == [p.label for p in pairs]


def test_each_premise_has_one_hypothesis_of_each_label_and_labels_are_balanced() -> None:
    pairs = load("nli", "train")
    labels_of = defaultdict(list)
    for pair in pairs:
        labels_of[pair.premise].append(pair.label)
    assert all(sorted(labels) == [0, 1, 2] for labels in labels_of.values())
    assert Counter(pair.label for pair in pairs) == {0: 1000, 1: 1000, 2: 1000}
    denials = Counter(pair.label for pair in pairs if " is not " in pair.hypothesis)
    assert denials[0] > 100 and denials[2] > 100  # "not" alone does not give the label away


def test_splits_share_no_premise_and_the_seed_decides_the_data() -> None:
    premises = {
        split: {p.premise for p in load("nli", split)} for split in ("train", "valid", "test")
    }
    assert not premises["train"] & premises["valid"]
    assert not premises["train"] & premises["test"]
    assert not premises["valid"] & premises["test"]
    assert load("nli", "valid", seed=3) == load("nli", "valid", seed=3) != load("nli", "valid")
