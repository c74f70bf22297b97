"""WordPiece's greedy longest-match-first, BERT's pre-tokenisation steps, the input format, and
clear errors on a bad vocabulary or argument."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coursekit.text.wordpiece import WordPieceTokenizer, greedy_longest_match
from coursekit.text.wordpiece_encoding import longest_first_lengths
from coursekit.text.wordpiece_pretokenizer import bert_normalize, split_words

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
VOCAB = SPECIALS + ["un", "##aff", "##able", "flight", "##less", "the", "bird", "##s", "a", "##b"]


def test_the_longest_prefix_wins_then_the_longest_continuation() -> None:
    assert greedy_longest_match("unaffable", VOCAB, "[UNK]") == ["un", "##aff", "##able"]
    assert greedy_longest_match("flightless", VOCAB, "[UNK]") == ["flight", "##less"]
    assert greedy_longest_match("abbb", VOCAB, "[UNK]") == ["a", "##b", "##b", "##b"]


def test_a_word_that_cannot_be_spelled_or_is_too_long_is_unknown() -> None:
    assert greedy_longest_match("flightz", VOCAB, "[UNK]") == ["[UNK]"]
    assert greedy_longest_match("ab" * 3, VOCAB, "[UNK]", max_input_chars_per_word=5) == ["[UNK]"]
    assert greedy_longest_match("abbbb", VOCAB, "[UNK]", max_input_chars_per_word=5) != ["[UNK]"]


@settings(max_examples=100, deadline=None)
@given(st.text("ab", min_size=1, max_size=12))
def test_greedy_pieces_spell_the_word_and_are_each_the_longest_possible(word: str) -> None:
    vocab = {"a", "b", "ab", "##a", "##b", "##ab", "##bab", "aba"}
    pieces = greedy_longest_match(word, vocab, "[UNK]")
    assert "".join(piece.removeprefix("##") for piece in pieces) == word
    position = 0
    for index, piece in enumerate(pieces):
        length = len(piece.removeprefix("##"))
        longer = word[position : position + length + 1]
        candidate = longer if index == 0 else "##" + longer
        assert len(longer) == length or candidate not in vocab
        position += length


def test_pre_tokenisation_cleans_spaces_cjk_strips_accents_and_splits_punctuation() -> None:
    assert bert_normalize("Ca\u0301fe\x00\u3000我!") == "cafe  我 !"
    assert bert_normalize("Café", lowercase_text=False, strip_accents_text=False) == "Café"
    assert split_words("(a+b), don't") == ["(", "a", "+", "b", ")", ",", "don", "'", "t"]


def test_encode_builds_cls_a_sep_b_sep_with_segments() -> None:
    tokenizer = WordPieceTokenizer(VOCAB)
    encoding = tokenizer.encode("The birds", "flightless")
    assert encoding.tokens == ["[CLS]", "the", "bird", "##s", "[SEP]", "flight", "##less", "[SEP]"]
    assert encoding.type_ids == [0, 0, 0, 0, 0, 1, 1, 1]
    assert encoding.attention_mask == [1] * 8
    assert encoding.ids == [VOCAB.index(token) for token in encoding.tokens]
    assert tokenizer.decode(encoding.ids) == "the birds flightless"


def test_special_tokens_written_in_the_text_stay_whole() -> None:
    tokenizer = WordPieceTokenizer(VOCAB)
    assert tokenizer.tokenize("the [MASK] birds[SEP]") == ["the", "[MASK]", "bird", "##s", "[SEP]"]
    assert tokenizer.tokenize("[mask]") == ["[UNK]", "[UNK]", "[UNK]"]


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 50), st.integers(0, 50), st.integers(1, 60))
def test_longest_first_fits_the_budget_and_cuts_the_longer_text_first(
    first: int, second: int, budget: int
) -> None:
    kept_first, kept_second = longest_first_lengths(first, second, budget)
    assert kept_first <= first and kept_second <= second
    assert kept_first + kept_second == min(first + second, budget)
    if kept_first < first and kept_second < second:
        assert abs(kept_first - kept_second) <= 1


def test_vocab_txt_round_trip_and_special_ids(tmp_path: Path) -> None:
    tokenizer = WordPieceTokenizer(VOCAB)
    loaded = WordPieceTokenizer.from_file(tokenizer.save(tmp_path / "vocab.txt"))
    assert loaded.vocab == tokenizer.vocab
    assert (loaded.pad_id, loaded.unk_token, loaded.cls_id, loaded.sep_id, loaded.mask_id) == (
        0, "[UNK]", 2, 3, 4,
    )  # fmt: skip
    assert sorted(loaded.special_ids) == [0, 1, 2, 3, 4]
    assert len(loaded) == len(VOCAB)


def test_bad_vocabularies_and_arguments_say_what_to_fix() -> None:
    with pytest.raises(ValueError, match="unknown token '\\[UNK\\]' is not in the vocabulary"):
        WordPieceTokenizer(["a", "b"])
    with pytest.raises(ValueError, match="lists 'a' twice"):
        WordPieceTokenizer(["[UNK]", "a", "a"])
    with pytest.raises(TypeError, match="vocab must be a list of tokens"):
        WordPieceTokenizer("vocab.txt")
    with pytest.raises(TypeError, match="text must be a str, got int"):
        WordPieceTokenizer(VOCAB).tokenize(3)
    with pytest.raises(ValueError, match="encode needs \\[CLS\\]"):
        WordPieceTokenizer(["[UNK]", "a"]).encode("a")
    with pytest.raises(ValueError, match="max_length=3 leaves no room"):
        WordPieceTokenizer(VOCAB).encode("the", "the", truncation=True, max_length=3)
    with pytest.raises(ValueError, match="token ids must lie in 0 .. 14"):
        WordPieceTokenizer(VOCAB).convert_ids_to_tokens([15])
