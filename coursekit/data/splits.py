"""Disjoint train/valid/test splits for generated data (Chapter 1, Text as sequences).

Every generated example has a *key*: the content that makes it what it is (the numbers behind a
sentence, the date behind a date string, the tokens of a sequence, the bag of words of a review).
The key alone decides the split, by hashing: ``u = SHA-256(key) / 2**256`` is a number in
``[0, 1)`` and the split is the one whose interval of the cumulative fractions holds ``u``. So a
key belongs to exactly one split whatever the seed, the size or the order of generation, and the
splits can never share an example. Within a split, no key is drawn twice.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

Example = TypeVar("Example")

STANDARD_FRACTIONS: Mapping[str, float] = {"train": 0.8, "valid": 0.1, "test": 0.1}


def hash_unit(key: str) -> float:
    """``u = SHA-256(key) / 2**256``: a number in ``[0, 1)`` that is the same on every machine."""
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def split_of(key: str, fractions: Mapping[str, float] = STANDARD_FRACTIONS) -> str:
    """The split that owns ``key``: the first ``s`` with ``u < sum of fractions up to s``."""
    unit = hash_unit(key)
    cumulative = 0.0
    for split, fraction in fractions.items():
        cumulative += fraction
        if unit < cumulative:
            return split
    return list(fractions)[-1]  # rounding left u just above the total: the last split owns it


def sample_split(
    draw: Callable[[random.Random], Sequence[Example]],
    key: Callable[[Example], str],
    *,
    split: str,
    n: int,
    rng: random.Random,
    fractions: Mapping[str, float] = STANDARD_FRACTIONS,
    patience: int = 10_000,
) -> list[Example]:
    """Draw ``n`` examples with distinct keys, all owned by ``split``.

    ``draw(rng)`` returns a group of examples that share one key (usually a group of one; a
    sentence and its mirror image for the hard sentiment split); a group is kept whole when its
    key belongs to ``split`` and has not been drawn before. After ``patience`` draws in a row
    without a new key, the space of examples is taken to be exhausted and a ``ValueError`` says so.
    """
    examples: list[Example] = []
    seen: set[str] = set()
    misses = 0
    while len(examples) < n:
        group = draw(rng)
        group_key = key(group[0])
        if group_key in seen or split_of(group_key, fractions) != split:
            misses += 1
            if misses >= patience:
                raise ValueError(
                    f"could only find {len(examples)} distinct {split!r} examples of the "
                    f"{n} requested: ask for fewer (a smaller n) or allow more variety "
                    "(for example a larger max_value, vocab_size or max_len)"
                )
            continue
        misses = 0
        seen.add(group_key)
        examples.extend(group)
    return examples[:n]


def generator_for(dataset: str, split: str, seed: int) -> random.Random:
    """A private ``random.Random`` for one dataset, split and seed, never the global one."""
    return random.Random(f"coursekit.data:{dataset}:{split}:{seed}")
