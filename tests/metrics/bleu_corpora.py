"""A seeded generator of messy translation corpora for the BLEU parity tests."""

from __future__ import annotations

import random
from dataclasses import dataclass

# fmt: off
WORDS = (
    "the", "cat", "Cat", "THE", "sat", "on", "mat", "dog", "a", "an", "is", "was", "don't", "it's",
    "state-of-the-art", "e-mail", "naïve", "café", "Straße", "über", "façade", "日本語", "東京",
    "😀", "Ωmega", "x", "y", "z",
)
NUMBERS = ("3.14", "1,000", "5-6", "2024", "10.", "0,5", "-7", "42-", ".5", "1.2.3", "٣")
SYMBOLS = (
    ".", ",", "!", "?", ";", ":", "(", ")", '"', "'", "-", "--", "...", "&", "&amp;", "&quot;",
    "&lt;", "&gt;", "&amp;quot;", "<skipped>", "/", "[", "]", "{", "}", "@", "#", "$", "%", "^",
    "*", "+", "=", "|", "~", "`", "_", "\\", "«", "»", "„", "“", "”", "’", "–", "—",
)
# fmt: on
# How pieces are glued: mostly a space, sometimes nothing (so "cat." or "3.14," appear), and the
# whitespace that 13a treats specially.
JOINERS = (" ",) * 12 + ("",) * 4 + ("  ", "\t", "\xa0", "\u3000", "\n", "-\n")


@dataclass(frozen=True)
class Corpus:
    """Hypotheses and reference streams in sacrebleu's layout."""

    hypotheses: list[str]
    references: list[list[str | None]]


def random_sentence(rng: random.Random, max_pieces: int = 25) -> str:
    """A sentence of words, numbers and symbols with irregular spacing (possibly empty)."""
    pieces = [
        rng.choice(rng.choice((WORDS, WORDS, WORDS, NUMBERS, SYMBOLS)))
        for _ in range(rng.randint(0, max_pieces))
    ]
    text = "".join(piece + rng.choice(JOINERS) for piece in pieces)
    return text if rng.random() < 0.3 else text.strip()


def perturb(rng: random.Random, sentence: str) -> str:
    """A noisy copy of ``sentence``: tokens dropped, replaced, swapped or re-cased."""
    tokens = sentence.split(" ")
    edited: list[str] = []
    for token in tokens:
        roll = rng.random()
        if roll < 0.1:
            continue
        if roll < 0.2:
            edited.append(random_sentence(rng, max_pieces=2))
        elif roll < 0.25:
            edited.append(token.upper())
        else:
            edited.append(token)
    if len(edited) > 1 and rng.random() < 0.3:
        i = rng.randrange(len(edited) - 1)
        edited[i], edited[i + 1] = edited[i + 1], edited[i]
    return " ".join(edited)


def random_corpus(rng: random.Random, num_sentences: int, num_streams: int) -> Corpus:
    """Hypotheses that are noisy copies of a source sentence (or unrelated, or empty) and
    ``num_streams`` reference streams of other noisy copies, with ``None`` (missing) and ``""``
    (empty) references scattered in, never all missing for one sentence.
    """
    hypotheses: list[str] = []
    streams: list[list[str | None]] = [[] for _ in range(num_streams)]
    for _ in range(num_sentences):
        source = random_sentence(rng)
        roll = rng.random()
        if roll < 0.05:
            hypotheses.append("")
        elif roll < 0.15:
            hypotheses.append(random_sentence(rng))
        else:
            hypotheses.append(perturb(rng, source))
        keep = rng.randrange(num_streams)  # this stream always has a reference
        for index, stream in enumerate(streams):
            roll = rng.random()
            if index != keep and roll < 0.15:
                stream.append(None)
            elif roll < 0.18:
                stream.append("")
            else:
                stream.append(perturb(rng, source))
    return Corpus(hypotheses, streams)
