"""True word alignments of generated pairs (Chapter 4, Seq2seq and attention).

The generated datasets know why each target token is there: every token carries the
*concepts* it expresses (a digit of a number, the month of a date). Target token i aligns with
source token j when they share a concept,

    A(i) = { j : concepts(target_i) & concepts(source_j) != {} },

so a model's attention can be scored against A: does step i put its weight on A(i)? Two
target tokens i < i' cross when some j in A(i) lies after some j' in A(i'), as German units
before tens ("ein und zwanzig" -> "twenty one").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

Concept = tuple[object, ...]
Alignment = list[list[int]]


class Token(NamedTuple):
    """One token of a generated text and the concepts it expresses (none for "and", "-")."""

    text: str
    concepts: frozenset[Concept]


def align(source: Sequence[Token], target: Sequence[Token]) -> Alignment:
    """A(i) for each target token i: the sorted source positions sharing one of its concepts."""
    return [
        [
            j
            for j, source_token in enumerate(source)
            if source_token.concepts & target_token.concepts
        ]
        for target_token in target
    ]


def crossings(alignment: Alignment) -> int:
    """The number of crossing pairs (i < i' with some j in A(i) after some j' in A(i')); 0 for a
    monotone alignment.
    """
    return sum(
        1
        for i, positions in enumerate(alignment)
        for later in alignment[i + 1 :]
        if positions and later and max(positions) > min(later)
    )
