"""``copy`` / ``reverse`` / ``sort`` targets and ids, and the ``docs_corpus`` paragraphs."""

from __future__ import annotations

import pytest

from coursekit.data import EOS_ID, FIRST_TOKEN_ID, PAD_ID, SOS_ID, describe, load

EXPECTED_TARGET = {"copy": lambda s: s, "reverse": lambda s: s[::-1], "sort": sorted}


def test_specials_are_the_documented_ids():
    assert (PAD_ID, SOS_ID, EOS_ID, FIRST_TOKEN_ID) == (0, 1, 2, 3)
    assert "pad=0, sos=1, eos=2" in describe("copy").description


@pytest.mark.parametrize("task", sorted(EXPECTED_TARGET))
def test_targets_ids_and_lengths(task):
    pairs = load(task, "train", n=500, vocab_size=9, min_len=2, max_len=6)
    lengths = set()
    for pair in pairs:
        assert pair.target == EXPECTED_TARGET[task](pair.source)
        assert all(FIRST_TOKEN_ID <= token < 9 for token in pair.source)
        lengths.add(len(pair.source))
    assert lengths == {2, 3, 4, 5, 6}
    assert {t for pair in pairs for t in pair.source} == set(range(FIRST_TOKEN_ID, 9))


def test_target_is_a_new_list_not_the_source():
    pair = load("copy", "valid", n=1)[0]
    pair.target.append(99)
    assert pair.source != pair.target


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"vocab_size": 3}, "vocab_size must be at least 4"),
        ({"min_len": 0}, "min_len must be a positive integer"),
        ({"min_len": 5, "max_len": 4}, "max_len must be at least 5"),
        ({"vocab_size": 4, "min_len": 1, "max_len": 1, "n": 5}, "could only find"),
    ],
)
def test_sequence_options_are_checked(options, message):
    with pytest.raises(ValueError, match=message):
        load("sort", "train", **options)


def test_docs_corpus_is_clean_prose():
    for split in ("train", "valid", "test"):
        paragraphs = load("docs_corpus", split)
        assert paragraphs
        for paragraph in paragraphs:
            assert "\n" not in paragraph and paragraph == paragraph.strip()
            assert len(paragraph.split()) >= 6
            assert paragraph.endswith((".", ":", "?", "!"))
            assert "****" not in paragraph and "====" not in paragraph and "+---" not in paragraph
    assert sum(len(p) for p in load("docs_corpus", "train")) > 50_000


def test_docs_corpus_joins_hyphenated_line_breaks():
    text = " ".join(load("docs_corpus", "train") + load("docs_corpus", "valid"))
    text += " ".join(load("docs_corpus", "test"))
    assert "left-hand" in text and "left- hand" not in text


def test_docs_corpus_splits_by_document_and_the_seed_moves_documents():
    train = load("docs_corpus", "train")
    valid = load("docs_corpus", "valid")
    assert len(train) > 5 * len(valid)
    assert valid != load("docs_corpus", "valid", seed=1)
