"""Row: ``coursekit.metrics.corpus_bleu`` against ``sacrebleu.corpus_bleu`` on the same corpus."""

from __future__ import annotations

import math
import random

import sacrebleu

from benchmarks.registry import Row, benchmark, best_time
from coursekit.metrics import corpus_bleu

PUNCTUATION = (".", ",", "!", "?", ";", ":", "'s", "-", '"', "(", ")", "3.5", "1,000")


def synthetic_corpus(
    num_sentences: int, num_references: int, seed: int = 0
) -> tuple[list[str], list[list[str]]]:
    """Hypotheses and reference streams built from a 2000-word vocabulary with punctuation; each
    reference is a noisy copy of its hypothesis, as in a real translation system's output.
    """
    rng = random.Random(seed)
    vocabulary = [f"w{index}" for index in range(2000)] + list(PUNCTUATION)

    def noisy_copy(words: list[str]) -> str:
        kept = [word if rng.random() > 0.3 else rng.choice(vocabulary) for word in words]
        return " ".join(kept)

    hypotheses, streams = [], [[] for _ in range(num_references)]
    for _ in range(num_sentences):
        words = [rng.choice(vocabulary) for _ in range(rng.randint(5, 40))]
        hypotheses.append(" ".join(words))
        for stream in streams:
            stream.append(noisy_copy(words))
    return hypotheses, streams


@benchmark
def corpus_bleu_vs_sacrebleu(quick: bool) -> Row:
    """Corpus BLEU with the default options: 13a tokenisation, exp smoothing, max order 4."""
    hypotheses, references = synthetic_corpus(200 if quick else 5000, num_references=2)
    ours = corpus_bleu(hypotheses, references)
    theirs = sacrebleu.corpus_bleu(hypotheses, references)
    if not math.isclose(ours.score, theirs.score, rel_tol=1e-9):
        raise AssertionError(f"BLEU differs: ours {ours.score!r}, sacrebleu {theirs.score!r}")
    repeat = 1 if quick else 5
    return Row(
        name=f"corpus BLEU, {len(hypotheses)} sentences x {len(references)} references",
        ours="coursekit.metrics.corpus_bleu",
        reference=f"sacrebleu {sacrebleu.__version__}",
        ours_seconds=best_time(lambda: corpus_bleu(hypotheses, references), repeat),
        reference_seconds=best_time(lambda: sacrebleu.corpus_bleu(hypotheses, references), repeat),
    )
