"""``nli``: premise and hypothesis pairs labelled entailment / neutral / contradiction
(Chapter 6, BERT).

A premise describes one scene, ``a tall woman is reading a book in the kitchen.``; the
hypothesis says something about the same person, and its label follows from the scene:

- entailment: it says less (``the woman is reading a book.``), says it more generally
  (``a person is reading a book indoors.``), or denies another activity (``the woman is not
  sleeping.``: one does one thing at a time);
- contradiction: it gets the height or age, the activity (one thing at a time), the room or
  indoors/outdoors wrong, or denies the activity (``the woman is not reading a book.``);
- neutral: it adds what the scene does not tell (a mood, a purpose, an adjective of another
  kind).

Every premise comes with one hypothesis of each label, so the labels are balanced and the
premise alone tells nothing: a model has to compare the two sentences, the sentence-pair
classification BERT reads as ``[CLS] premise [SEP] hypothesis [SEP]``. The premise decides the
split, so no premise appears in two splits. Labels: 0 entailment, 1 neutral, 2 contradiction
(MultiNLI's order).
"""

from __future__ import annotations

import random
from typing import NamedTuple

from coursekit.data.registry import SEED_OPTION, SIZE_OPTION, DatasetInfo, register
from coursekit.data.splits import generator_for, sample_split

LABELS = ("entailment", "neutral", "contradiction")
ENTAILMENT, NEUTRAL, CONTRADICTION = range(3)

NOUNS = ("woman", "man", "girl", "boy")
OPPOSITES = {"tall": "short", "short": "tall", "young": "old", "old": "young"}
ACTIVITIES = (
    "reading a book", "playing the guitar", "eating an apple", "painting a picture",
    "writing a letter", "cooking dinner", "sleeping", "singing a song", "drinking tea",
    "talking on the phone",
)  # fmt: skip
INDOOR = ("kitchen", "library", "office", "living room", "museum")
OUTDOOR = ("garden", "park", "beach", "street", "forest")
ON_PLACES = ("beach", "street")
MOODS = ("happy", "tired", "hungry", "bored")
PURPOSES = ("for work", "for fun", "with a friend", "after lunch")


class SentencePair(NamedTuple):
    """An NLI example: ``label`` is 0 (entailment), 1 (neutral) or 2 (contradiction)."""

    premise: str
    hypothesis: str
    label: int


class Scene(NamedTuple):
    """What a premise says: who (adjective, noun), does what, where."""

    adjective: str
    noun: str
    activity: str
    place: str

    @property
    def premise(self) -> str:
        """``a tall woman is reading a book in the kitchen.``"""
        article = "an" if self.adjective[0] in "aeiou" else "a"
        return f"{article} {self.adjective} {self.noun} is {self.activity} {at(self.place)}."


def at(place: str) -> str:
    """``in the kitchen``, ``on the beach``: the place with its preposition."""
    return f"{'on' if place in ON_PLACES else 'in'} the {place}"


def setting(place: str) -> str:
    """``indoors`` or ``outdoors``: what a room or an open-air place implies."""
    return "indoors" if place in INDOOR else "outdoors"


def other(rng: random.Random, choices: tuple[str, ...], excluded: str) -> str:
    """A random element of ``choices`` other than ``excluded``."""
    return rng.choice([choice for choice in choices if choice != excluded])


def entailed(rng: random.Random, scene: Scene) -> str:
    """Say less or more generally: drop the adjective or the place, ``person``, ``indoors``;
    or deny another activity (one does one thing at a time).
    """
    noun = rng.choice([scene.noun, "person"])
    subject = f"a {noun}" if noun == "person" else f"the {noun}"
    if rng.random() < 0.2:
        return f"{subject} is not {other(rng, ACTIVITIES, scene.activity)}."
    where = rng.choice(["", f" {at(scene.place)}", f" {setting(scene.place)}"])
    if noun != "person" and rng.random() < 0.3:
        subject = f"the {scene.adjective} {noun}"
    return f"{subject} is {scene.activity}{where}."


def contradicted(rng: random.Random, scene: Scene) -> str:
    """Get one fact wrong: the adjective, the activity, the place, or deny the activity."""
    subject = f"the {scene.noun}"
    kind = rng.choice(["adjective", "activity", "place", "setting", "negation"])
    if kind == "adjective":
        return f"the {OPPOSITES[scene.adjective]} {scene.noun} is {scene.activity}."
    if kind == "activity":
        return f"{subject} is {other(rng, ACTIVITIES, scene.activity)}."
    if kind == "place":
        places = INDOOR if scene.place in INDOOR else OUTDOOR
        return f"{subject} is {at(other(rng, places, scene.place))}."
    if kind == "setting":
        return f"{subject} is {other(rng, ('indoors', 'outdoors'), setting(scene.place))}."
    return f"{subject} is not {scene.activity}."


def neutral(rng: random.Random, scene: Scene) -> str:
    """Add what the scene does not tell: a mood, a purpose, an adjective of another kind."""
    kind = rng.choice(["mood", "purpose", "adjective"])
    if kind == "mood":
        return f"the {scene.noun} is {rng.choice(MOODS)}."
    if kind == "purpose":
        return f"the {scene.noun} is {scene.activity} {rng.choice(PURPOSES)}."
    unrelated = [
        word for word in OPPOSITES if word not in (scene.adjective, OPPOSITES[scene.adjective])
    ]
    return f"the {rng.choice(unrelated)} {scene.noun} is {scene.activity}."


def draw_scene(rng: random.Random) -> Scene:
    """A random premise scene."""
    place = rng.choice(INDOOR + OUTDOOR)
    return Scene(rng.choice(sorted(OPPOSITES)), rng.choice(NOUNS), rng.choice(ACTIVITIES), place)


def draw_pairs(rng: random.Random) -> list[SentencePair]:
    """One premise with an entailed, a neutral and a contradicted hypothesis, in random order."""
    scene = draw_scene(rng)
    pairs = [
        SentencePair(scene.premise, entailed(rng, scene), ENTAILMENT),
        SentencePair(scene.premise, neutral(rng, scene), NEUTRAL),
        SentencePair(scene.premise, contradicted(rng, scene), CONTRADICTION),
    ]
    rng.shuffle(pairs)
    return pairs


@register(
    DatasetInfo(
        name="nli",
        description="premise/hypothesis pairs: entailment (0), neutral (1), contradiction (2)",
        kind="generated",
        splits=("train", "valid", "test"),
        options=(SIZE_OPTION, SEED_OPTION),
        sizes={"train": 3000, "valid": 300, "test": 300},
    )
)
def nli(split: str, *, n: int, seed: int) -> list[SentencePair]:
    """Sentence pairs for natural language inference (Chapter 6, BERT); three hypotheses per
    premise, one of each label, and a premise in one split only.
    """
    return sample_split(
        draw_pairs,
        key=lambda pair: pair.premise,
        split=split,
        n=n,
        rng=generator_for("nli", split, seed),
    )
