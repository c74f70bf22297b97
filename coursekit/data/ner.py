"""``ner``: sentences with person, location and organisation names, tagged word by word in the
BIO scheme (Chapter 6, BERT).

Sentences come from templates whose slots are filled from lists of names, some of them several
words long (``New York``, ``Ada Lovelace``, ``Bank of Lagos``). Each word gets a tag: ``B-X``
for the first word of an entity of type X (PER, LOC, ORG), ``I-X`` for the following words of
the same entity, ``O`` for the rest:

    Ada   Lovelace moved to New   York  .
    B-PER I-PER    O     O  B-LOC I-LOC O

Some words are ambiguous and only the context tells the type: ``Jordan`` and ``Washington``
are people and places, ``Orange`` an organisation or not a name at all. This is token
classification, where BERT labels every token from its final state. The sentence decides the
split.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from coursekit.data.registry import SEED_OPTION, SIZE_OPTION, DatasetInfo, register
from coursekit.data.splits import generator_for, sample_split

ENTITIES = {
    "PER": (
        "Ada Lovelace", "Alan Turing", "Grace Hopper", "Jordan", "Washington", "Maria Silva",
        "Kenji Sato", "Amara Okafor", "Lena", "Omar Haddad", "Priya Nair", "Jordan Lee",
    ),
    "LOC": (
        "Paris", "New York", "Lagos", "Jordan", "Washington", "Kyoto", "Lima", "Cape Town",
        "Oslo", "Buenos Aires", "Mumbai", "Lake Geneva",
    ),
    "ORG": (
        "Orange", "Acme Corporation", "Bank of Lagos", "United Nations", "Red Cross",
        "Kyoto University", "Nordic Rail", "Green Energy Group", "Apple", "Siemens",
    ),
}  # fmt: skip
TEMPLATES = (
    "{PER} moved to {LOC} .",
    "{PER} works for {ORG} in {LOC} .",
    "{ORG} opened an office in {LOC} .",
    "{PER} met {PER} in {LOC} last year .",
    "{PER} founded {ORG} .",
    "the new director of {ORG} is {PER} .",
    "we flew from {LOC} to {LOC} on Monday .",
    "{PER} said that {ORG} will hire more people .",
    "an orange and an apple were on the table in {LOC} .",
    "{ORG} and {ORG} signed an agreement .",
)
TAGS = ("O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG")


class TaggedSentence(NamedTuple):
    """A sentence as ``words`` and one BIO tag per word (:data:`TAGS`)."""

    words: list[str]
    tags: list[str]


def entity_tags(entity_type: str, name: str) -> list[str]:
    """``B-X`` for the first word of the name, ``I-X`` for each further word."""
    words = name.split()
    return [f"B-{entity_type}"] + [f"I-{entity_type}"] * (len(words) - 1)


def fill(rng: random.Random, template: str) -> TaggedSentence:
    """The template's words with every ``{X}`` slot replaced by a random name of type X."""
    words: list[str] = []
    tags: list[str] = []
    for word in template.split():
        if word.startswith("{") and word.endswith("}"):
            entity_type = word[1:-1]
            name = rng.choice(ENTITIES[entity_type])
            words += name.split()
            tags += entity_tags(entity_type, name)
        else:
            words.append(word)
            tags.append("O")
    words[0] = words[0][0].upper() + words[0][1:]
    return TaggedSentence(words, tags)


@register(
    DatasetInfo(
        name="ner",
        description="sentences tagged word by word with BIO tags for PER, LOC and ORG",
        kind="generated",
        splits=("train", "valid", "test"),
        options=(SIZE_OPTION, SEED_OPTION),
        sizes={"train": 2000, "valid": 200, "test": 200},
    )
)
def ner(split: str, *, n: int, seed: int) -> list[TaggedSentence]:
    """Tagged sentences for named-entity recognition (Chapter 6, BERT)."""
    return sample_split(
        lambda rng: [fill(rng, rng.choice(TEMPLATES))],
        key=lambda sentence: " ".join(sentence.words),
        split=split,
        n=n,
        rng=generator_for("ner", split, seed),
    )
