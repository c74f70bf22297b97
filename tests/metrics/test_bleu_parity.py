"""corpus_bleu and sentence_bleu give sacrebleu's numbers on large randomized corpora."""

from __future__ import annotations

import random
from typing import Any

import pytest
import sacrebleu
from bleu_corpora import Corpus, perturb, random_sentence
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU

from coursekit.metrics import BLEUScore, corpus_bleu, sentence_bleu

RELATIVE = 1e-9

SETTINGS: list[dict[str, Any]] = [
    {},
    {"lowercase": True},
    {"tokenize": "none"},
    {"smooth_method": "floor"},
    {"smooth_method": "floor", "smooth_value": 0.3},
    {"smooth_method": "add-k"},
    {"smooth_method": "add-k", "smooth_value": 2},
    {"smooth_method": "none"},
    {"effective_order": True},
    {"max_order": 2},
    {"max_order": 6, "smooth_method": "none", "lowercase": True},
]


def sacrebleu_corpus(corpus: Corpus, **options: Any) -> Any:
    """The reference implementation, with our option names mapped to sacrebleu's."""
    metric = BLEU(
        lowercase=options.get("lowercase", False),
        tokenize=options.get("tokenize", "13a"),
        smooth_method=options.get("smooth_method", "exp"),
        smooth_value=options.get("smooth_value"),
        max_ngram_order=options.get("max_order", 4),
        effective_order=options.get("effective_order", False),
    )
    return metric.corpus_score(corpus.hypotheses, corpus.references)


def assert_same_bleu(ours: BLEUScore, theirs: Any, smooth_method: str, smooth_value: Any) -> None:
    assert ours.score == pytest.approx(theirs.score, rel=RELATIVE, abs=0)
    assert list(ours.precisions) == pytest.approx(theirs.precisions, rel=RELATIVE, abs=0)
    assert ours.bp == pytest.approx(theirs.bp, rel=RELATIVE, abs=0)
    assert (ours.sys_len, ours.ref_len) == (theirs.sys_len, theirs.ref_len)
    assert list(ours.totals) == list(theirs.totals) or smooth_method == "add-k"
    if smooth_method == "add-k" and any(ours.counts):
        # sacrebleu reports the smoothed statistics: k added to the orders n >= 2.
        k = 1 if smooth_value is None else smooth_value
        assert [ours.counts[0], *(c + k for c in ours.counts[1:])] == list(theirs.counts)
        assert [ours.totals[0], *(t + k for t in ours.totals[1:])] == list(theirs.totals)
    else:
        assert list(ours.counts) == list(theirs.counts)
    assert str(ours) == str(theirs)


def test_large_corpus_with_the_defaults(large_corpus: Corpus) -> None:
    ours = corpus_bleu(large_corpus.hypotheses, large_corpus.references)
    theirs = sacrebleu.corpus_bleu(large_corpus.hypotheses, large_corpus.references)
    assert 5 < ours.score < 95  # a corpus where BLEU is informative, not a degenerate 0 or 100
    assert_same_bleu(ours, theirs, "exp", None)


# Options that change the n-gram statistics; smoothing only matters where counts are zero, which
# the many small corpora below exercise.
@pytest.mark.parametrize(
    "options",
    [{"lowercase": True}, {"tokenize": "none"}, {"max_order": 2}, {"max_order": 6}],
    ids=str,
)
def test_large_corpus(large_corpus: Corpus, options: dict[str, Any]) -> None:
    ours = corpus_bleu(large_corpus.hypotheses, large_corpus.references, **options)
    theirs = sacrebleu_corpus(large_corpus, **options)
    assert_same_bleu(ours, theirs, "exp", None)


@pytest.mark.parametrize("options", SETTINGS, ids=lambda options: str(options) or "defaults")
def test_many_small_corpora(small_corpora: list[Corpus], options: dict[str, Any]) -> None:
    zero_scores = 0
    for corpus in small_corpora:
        ours = corpus_bleu(corpus.hypotheses, corpus.references, **options)
        theirs = sacrebleu_corpus(corpus, **options)
        assert_same_bleu(
            ours, theirs, options.get("smooth_method", "exp"), options.get("smooth_value")
        )
        zero_scores += ours.score == 0.0
    assert 0 < zero_scores < len(small_corpora)  # the edge cases were exercised


def test_sentence_bleu(large_corpus: Corpus) -> None:
    for index, hypothesis in enumerate(large_corpus.hypotheses[:1000]):
        references = [stream[index] for stream in large_corpus.references]
        ours = sentence_bleu(hypothesis, references)
        theirs = sacrebleu.sentence_bleu(hypothesis, references)
        assert_same_bleu(ours, theirs, "exp", None)


@pytest.mark.parametrize(
    "options", [{"smooth_method": "floor"}, {"smooth_method": "none"}, {"effective_order": False}]
)
def test_sentence_bleu_options(large_corpus: Corpus, options: dict[str, Any]) -> None:
    for index, hypothesis in enumerate(large_corpus.hypotheses[:200]):
        references = [stream[index] for stream in large_corpus.references]
        ours = sentence_bleu(hypothesis, references, **options)
        theirs = sacrebleu.sentence_bleu(
            hypothesis,
            references,
            smooth_method=options.get("smooth_method", "exp"),
            use_effective_order=options.get("effective_order", True),
        )
        assert_same_bleu(ours, theirs, options.get("smooth_method", "exp"), None)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 5), st.integers(1, 3))
def test_random_corpora_from_any_seed(seed: int, num_sentences: int, num_streams: int) -> None:
    rng = random.Random(seed)
    hypotheses, streams = [], [[] for _ in range(num_streams)]
    for _ in range(num_sentences):
        source = random_sentence(rng, max_pieces=8)
        hypotheses.append(perturb(rng, source))
        for stream in streams:
            stream.append(perturb(rng, source))
    corpus = Corpus(hypotheses, streams)
    assert_same_bleu(corpus_bleu(hypotheses, streams), sacrebleu_corpus(corpus), "exp", None)


def test_a_perfect_translation_scores_100() -> None:
    sentences = ["The cat sat on the mat.", "It was 3.14 degrees, wasn't it?"]
    ours = corpus_bleu(sentences, [sentences])
    assert_same_bleu(ours, sacrebleu.corpus_bleu(sentences, [sentences]), "exp", None)
    assert ours.score == pytest.approx(100.0)


@pytest.mark.parametrize(
    "references",
    [[["a b c"], [""]], [["a b c"], [None]], [[""], [""]], [["a"], [""]]],
    ids=["empty-reference", "missing-reference", "only-empty", "exact-and-empty"],
)
def test_empty_and_missing_references_count_as_sacrebleu_counts_them(
    references: list[list[str | None]],
) -> None:
    # An empty string is a reference of length 0 (the closest to a 1-token hypothesis); a
    # None is no reference at all for that sentence.
    ours = corpus_bleu(["a"], references)
    theirs = sacrebleu.corpus_bleu(["a"], references)
    assert_same_bleu(ours, theirs, "exp", None)
