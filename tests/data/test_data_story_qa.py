"""``story_qa``: the answer span points at the answer, and the answer is where the person went
last (replayed here from the story's sentences); the splits share no story and question."""

from __future__ import annotations

import re

import pytest

from coursekit.data import load
from coursekit.data.story_qa import SpanQuestion

MOVE = re.compile(r"(\w+) (?:went|moved|travelled|journeyed|walked|ran) to the (\w+)\.")


@pytest.mark.parametrize("split", ["train", "valid", "test"])
def test_the_span_is_the_last_move_of_the_person_asked_about(split: str) -> None:
    for example in load("story_qa", split):
        assert isinstance(example, SpanQuestion)
        start, answer = example.answer_start, example.answer
        assert example.context[start : start + len(answer)] == answer
        person = example.question.removeprefix("Where is ").removesuffix("?")
        moves = [(m.group(1), m.group(2), m.start(2)) for m in MOVE.finditer(example.context)]
        assert " ".join(m.group(0) for m in MOVE.finditer(example.context)) == example.context
        last = [move for move in moves if move[0] == person][-1]
        assert (last[1], last[2]) == (answer, start)


def test_stories_vary_in_length_and_distractors_are_common() -> None:
    examples = load("story_qa", "train")
    lengths = {example.context.count(".") for example in examples}
    assert lengths == set(range(2, 9))
    mentioned_earlier = sum(
        example.context.find(example.answer) < example.answer_start for example in examples
    )
    assert mentioned_earlier > 100
    short = load("story_qa", "valid", max_sentences=3)
    assert {example.context.count(".") for example in short} == {2, 3}


def test_splits_are_disjoint() -> None:
    keys = {
        split: {(e.context, e.question) for e in load("story_qa", split)}
        for split in ("train", "valid", "test")
    }
    assert not keys["train"] & keys["valid"] and not keys["train"] & keys["test"]
    assert not keys["valid"] & keys["test"]
    with pytest.raises(ValueError, match="max_sentences must be at least 2"):
        load("story_qa", "train", max_sentences=1)
