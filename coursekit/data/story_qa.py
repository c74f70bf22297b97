"""``story_qa``: short stories, a question, and the answer as a span of the story
(Chapter 6, BERT).

In the style of bAbI's first tasks: people move between rooms, one sentence per move, and the
question asks where one of them is at the end:

    Mary went to the kitchen. John moved to the garden. Mary travelled to the office.
    Where is Mary?  ->  "office"

The answer is the room of the person's last move, given as the character offsets of that
mention in the story (``answer_start``, as in SQuAD), not of an earlier mention of the same
room. Reading it off needs the whole story: the person's earlier moves and the other people's
moves are distractors. This is span question answering, where BERT scores every token as the
start and as the end of the answer. The story and question decide the split.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from coursekit.arguments import require_int
from coursekit.data.registry import SEED_OPTION, SIZE_OPTION, DatasetInfo, Option, register
from coursekit.data.splits import generator_for, sample_split

PEOPLE = ("Mary", "John", "Sandra", "Daniel", "Emma", "Omar", "Yuki", "Lena")
ROOMS = ("kitchen", "garden", "office", "hallway", "bedroom", "bathroom", "cellar", "attic")
VERBS = ("went to", "moved to", "travelled to", "journeyed to", "walked to", "ran to")


class SpanQuestion(NamedTuple):
    """A question whose ``answer`` is ``context[answer_start : answer_start + len(answer)]``."""

    context: str
    question: str
    answer: str
    answer_start: int


def draw_story(rng: random.Random, max_sentences: int) -> list[SpanQuestion]:
    """A story of 2 .. ``max_sentences`` moves and the question about one person who moved."""
    people = rng.sample(PEOPLE, rng.randint(2, 4))
    sentences: list[str] = []
    where: dict[str, tuple[str, int]] = {}  # person -> (room, offset of its last mention)
    offset = 0
    for _ in range(rng.randint(2, max_sentences)):
        person, verb, room = rng.choice(people), rng.choice(VERBS), rng.choice(ROOMS)
        sentence = f"{person} {verb} the {room}."
        where[person] = (room, offset + sentence.index(f"the {room}") + len("the "))
        sentences.append(sentence)
        offset += len(sentence) + 1
    person = rng.choice(sorted(where))
    room, start = where[person]
    return [SpanQuestion(" ".join(sentences), f"Where is {person}?", room, start)]


@register(
    DatasetInfo(
        name="story_qa",
        description="bAbI-like stories: 'Where is Mary?' answered by a span of the story",
        kind="generated",
        splits=("train", "valid", "test"),
        options=(
            SIZE_OPTION,
            SEED_OPTION,
            Option("max_sentences", 8, "the longest story, in sentences (at least 2)"),
        ),
        sizes={"train": 2000, "valid": 200, "test": 200},
    )
)
def story_qa(split: str, *, n: int, seed: int, max_sentences: int) -> list[SpanQuestion]:
    """Stories with a question and the answer's character span (Chapter 6, BERT)."""
    require_int("max_sentences", max_sentences, minimum=2)
    return sample_split(
        lambda rng: draw_story(rng, max_sentences),
        key=lambda example: f"{example.context} {example.question}",
        split=split,
        n=n,
        rng=generator_for("story_qa", split, seed),
    )
