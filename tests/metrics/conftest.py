"""Fixtures of the metric tests: seeded random corpora for BLEU."""

from __future__ import annotations

import random

import pytest
from bleu_corpora import Corpus, random_corpus


@pytest.fixture(scope="session")
def large_corpus() -> Corpus:
    """2000 sentences with three reference streams."""
    return random_corpus(random.Random(2024), num_sentences=2000, num_streams=3)


@pytest.fixture(scope="session")
def small_corpora() -> list[Corpus]:
    """400 corpora of 1 to 3 sentences, where zero matches and short hypotheses are common."""
    rng = random.Random(7)
    return [
        random_corpus(rng, num_sentences=rng.randint(1, 3), num_streams=rng.randint(1, 4))
        for _ in range(400)
    ]
