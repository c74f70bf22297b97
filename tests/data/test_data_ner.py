"""``ner``: one tag per word, well-formed BIO sequences, every tagged span is a name of its type
and every name-free word is O; some words take several types; disjoint splits."""

from __future__ import annotations

import pytest

from coursekit.data import load
from coursekit.data.ner import ENTITIES, TAGS, TaggedSentence


def spans(tags: list[str]) -> list[tuple[str, int, int]]:
    """(type, start, end) of every entity of a BIO sequence."""
    found: list[tuple[str, int, int]] = []
    for index, tag in enumerate(tags):
        if tag.startswith("B-"):
            found.append((tag[2:], index, index + 1))
        elif tag.startswith("I-"):
            kind, start, _ = found[-1]
            found[-1] = (kind, start, index + 1)
    return found


@pytest.mark.parametrize("split", ["train", "valid", "test"])
def test_tags_are_aligned_well_formed_and_name_the_right_entities(split: str) -> None:
    for sentence in load("ner", split):
        assert isinstance(sentence, TaggedSentence)
        assert len(sentence.words) == len(sentence.tags)
        assert set(sentence.tags) <= set(TAGS)
        for previous, tag in zip(["O", *sentence.tags], sentence.tags, strict=False):
            if tag.startswith("I-"):
                assert previous[2:] == tag[2:], sentence
        for kind, start, end in spans(sentence.tags):
            assert " ".join(sentence.words[start:end]) in ENTITIES[kind], sentence


def test_ambiguous_words_appear_with_several_types() -> None:
    types_of: dict[str, set[str]] = {}
    for sentence in load("ner", "train"):
        for word, tag in zip(sentence.words, sentence.tags, strict=True):
            types_of.setdefault(word.lower(), set()).add(tag[2:] or "O")
    assert {"PER", "LOC"} <= types_of["jordan"]
    assert {"ORG", "O"} <= types_of["orange"]


def test_splits_share_no_sentence() -> None:
    sentences = {
        split: {" ".join(s.words) for s in load("ner", split)}
        for split in ("train", "valid", "test")
    }
    assert len(sentences["train"]) == 2000
    assert (
        not sentences["train"] & sentences["valid"] and not sentences["train"] & sentences["test"]
    )
    assert not sentences["valid"] & sentences["test"]
