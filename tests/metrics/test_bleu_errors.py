"""corpus_bleu and sentence_bleu reject malformed input with a message that says what to do."""

from __future__ import annotations

import pytest

from coursekit.metrics import corpus_bleu, sentence_bleu


def test_empty_corpus() -> None:
    with pytest.raises(ValueError, match="empty corpus"):
        corpus_bleu([], [[]])


def test_no_reference_stream() -> None:
    with pytest.raises(ValueError, match="no reference stream"):
        corpus_bleu(["a"], [])


def test_streams_of_the_wrong_length() -> None:
    with pytest.raises(ValueError, match=r"one entry per hypothesis \(2\).*\[2, 1\]"):
        corpus_bleu(["a", "b"], [["a", "b"], ["a"]])


def test_references_passed_as_one_flat_list() -> None:
    with pytest.raises(TypeError, match=r"corpus_bleu\(hyps, \[refs\]\)"):
        corpus_bleu(["a", "b"], ["a", "b"])  # type: ignore[list-item]


def test_hypotheses_passed_as_a_string() -> None:
    with pytest.raises(TypeError, match="hypotheses must be a list of strings"):
        corpus_bleu("a b", [["a b"]])


def test_sentence_without_any_reference() -> None:
    with pytest.raises(ValueError, match="sentence 1 has no reference"):
        corpus_bleu(["a", "b"], [["a", None], ["a", None]])


def test_non_string_entries() -> None:
    with pytest.raises(TypeError, match="hypothesis 0 must be a string"):
        corpus_bleu([None], [["a"]])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="references of sentence 0"):
        corpus_bleu(["a"], [[3]])  # type: ignore[list-item]


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="max_order must be a positive integer"):
        corpus_bleu(["a"], [["a"]], max_order=0)
    with pytest.raises(ValueError, match="tokenize must be one of"):
        corpus_bleu(["a"], [["a"]], tokenize="intl")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="smooth_method must be one of"):
        corpus_bleu(["a"], [["a"]], smooth_method="laplace")  # type: ignore[arg-type]


def test_sentence_bleu_arguments() -> None:
    with pytest.raises(TypeError, match="sentence_bleu\\(hyp, \\[ref\\]\\)"):
        sentence_bleu("a", "a")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="hypothesis must be a string"):
        sentence_bleu(["a"], ["a"])  # type: ignore[arg-type]
