"""What every generated dataset guarantees: seeded, free of global RNGs, disjoint splits."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

from coursekit.data import Labelled, Pair, SequencePair, describe, load
from coursekit.data.ner import TaggedSentence
from coursekit.data.nli import SentencePair
from coursekit.data.story_qa import SpanQuestion


def bag_of_words(example: Labelled) -> str:
    return " ".join(sorted(re.findall(r"[\w']+|[^\w\s]", example.text)))


# What makes two examples "the same" across splits: for dates the day itself (not its spelling),
# for sentiment the multiset of words (so a mirror sentence counts as the same example).
IDENTITY: dict[str, Callable[[Any], object]] = {
    "numbers": lambda pair: pair.target,
    "dates": lambda pair: pair.target,
    "sentiment": bag_of_words,
    "copy": lambda pair: tuple(pair.source),
    "reverse": lambda pair: tuple(pair.source),
    "sort": lambda pair: tuple(pair.source),
    "docs_corpus": lambda paragraph: paragraph,
    "nli": lambda pair: pair.premise,
    "ner": lambda sentence: tuple(sentence.words),
    "story_qa": lambda question: question.context,
}
RECORD = {
    "numbers": Pair,
    "dates": Pair,
    "sentiment": Labelled,
    "copy": SequencePair,
    "reverse": SequencePair,
    "sort": SequencePair,
    "docs_corpus": str,
    "nli": SentencePair,
    "ner": TaggedSentence,
    "story_qa": SpanQuestion,
}
SMALL = {"n": 300}


def small(name: str) -> dict[str, int]:
    return SMALL if "n" in describe(name).defaults else {}


@pytest.mark.parametrize("name", sorted(IDENTITY))
def test_same_seed_same_data_other_seed_other_data(name):
    first = load(name, "valid", **small(name))
    assert first == load(name, "valid", **small(name))
    assert first != load(name, "valid", seed=1, **small(name))
    assert all(isinstance(example, RECORD[name]) for example in first)


@pytest.mark.parametrize("name", sorted(IDENTITY))
def test_global_random_state_does_not_matter(name):
    random.seed(1), np.random.seed(1), torch.manual_seed(1)
    before = load(name, "test", **small(name))
    random.seed(2), np.random.seed(2), torch.manual_seed(2)
    state = random.getstate()
    assert load(name, "test", **small(name)) == before
    assert random.getstate() == state  # the global generator was not used either


@pytest.mark.parametrize("name", sorted(IDENTITY))
def test_splits_never_share_an_example(name):
    identity = IDENTITY[name]
    keys = {
        split: [identity(example) for example in load(name, split, **small(name))]
        for split in describe(name).splits
    }
    for split, values in keys.items():
        assert values, f"{split} is empty"
    splits = list(keys)
    for i, one in enumerate(splits):
        for other in splits[i + 1 :]:
            assert not set(keys[one]) & set(keys[other]), (one, other)


@pytest.mark.parametrize("name", ["numbers", "dates", "copy"])
def test_splits_stay_disjoint_across_seeds(name):
    train = {IDENTITY[name](e) for e in load(name, "train", seed=0, n=1000)}
    test = {IDENTITY[name](e) for e in load(name, "test", seed=7, n=300)}
    assert not train & test


@pytest.mark.parametrize("name", ["numbers", "dates", "sentiment", "copy"])
def test_n_sets_the_size_and_examples_are_distinct(name):
    examples = load(name, "train", n=257)
    assert len(examples) == 257
    assert len({IDENTITY[name](e) for e in examples}) == len(examples)
    assert load(name, "train", n=0) == []
