"""True word alignments of ``numbers`` and ``dates`` (Chapter 4): valid indices in the stated
tokenisation, monotone English -> digits, crossing German -> English, texts that are num2words'
and Babel's own, and the existing behaviour unchanged without the option.
"""

from __future__ import annotations

import datetime
import random

import pytest
from num2words import num2words

from coursekit.data import load
from coursekit.data.alignment import Token, align, crossings
from coursekit.data.number_words import segment
from coursekit.data.records import AlignedPair, Pair
from coursekit.text import basic_english, characters, whitespace

LANGUAGE_PAIRS = [("de", "en"), ("en", "digits"), ("fr", "en"), ("digits", "de"), ("fr", "de")]


def assert_valid(pair: AlignedPair, tokenize) -> None:
    source, target = tokenize(pair.source), tokenize(pair.target)
    assert len(pair.alignment) == len(target)
    for positions in pair.alignment:
        assert positions == sorted(set(positions))
        assert all(0 <= j < len(source) for j in positions)


@pytest.mark.parametrize(("source", "target"), LANGUAGE_PAIRS)
def test_number_alignments_are_valid_whitespace_indices(source: str, target: str) -> None:
    pairs = load("numbers", "train", n=300, source=source, target=target, alignments=True)
    for pair in pairs:
        assert isinstance(pair, AlignedPair)
        assert_valid(pair, whitespace)
        assert basic_english(pair.source) == whitespace(pair.source.lower())
        assert basic_english(pair.target) == whitespace(pair.target.lower())
        separators = [i for i, token in enumerate(whitespace(pair.target)) if token == ","]
        source_separators = [j for j, token in enumerate(whitespace(pair.source)) if token == ","]
        assert [pair.alignment[i] for i in separators] == [[j] for j in source_separators]


def test_english_to_digits_is_monotone_and_every_digit_is_aligned() -> None:
    pairs = load(
        "numbers", "valid", n=300, source="en", target="digits", max_value=999_999, alignments=True
    )
    for pair in pairs:
        assert crossings(pair.alignment) == 0
        for token, positions in zip(whitespace(pair.target), pair.alignment, strict=True):
            assert token == "," or token.isdigit()
            assert positions or token == "0", pair  # only an inner zero is said by no word


def test_german_to_english_alignments_cross_where_units_come_before_tens() -> None:
    options = {"source": "de", "target": "en", "max_value": 99, "numbers_per_example": 1}
    pairs = load("numbers", "train", n=70, alignments=True, **options)
    crossed = 0
    for pair in pairs:
        value = int(num2words_value(pair.target))
        has_units_and_tens = value > 20 and value % 10 != 0
        assert (crossings(pair.alignment) > 0) == has_units_and_tens
        crossed += has_units_and_tens
        if has_units_and_tens:  # "ein und zwanzig" -> "twenty one": twenty <- 2, one <- 0
            assert whitespace(pair.source)[1] == "und"
            assert pair.alignment == [[2], [0]]
    assert crossed > 40


def num2words_value(english: str) -> int:
    """The value of an English number below 100 written by num2words (segmented)."""
    for value in range(100):
        if num2words(value, lang="en").replace("-", " ") == english:
            return value
    raise AssertionError(english)


def test_aligned_numbers_are_the_same_numbers_as_without_the_option() -> None:
    options = {"source": "de", "target": "en", "n": 100, "seed": 4}
    plain, aligned = (
        load("numbers", "test", **options),
        load("numbers", "test", alignments=True, **options),
    )
    for pair, aligned_pair in zip(plain, aligned, strict=True):
        assert isinstance(pair, Pair) and not isinstance(pair, AlignedPair)
        for text, segmented in (
            (pair.source, aligned_pair.source),
            (pair.target, aligned_pair.target),
        ):
            squeeze = lambda s: s.replace(" ", "").replace("-", "").replace(",", "|")  # noqa: E731
            assert squeeze(text) == squeeze(segmented)


@pytest.mark.parametrize("language", ["en", "de", "fr"])
def test_morphemes_spell_num2words_for_many_numbers(language: str) -> None:
    numbers = list(range(1200)) + random.Random(language).sample(range(1200, 1_000_000), 1500)
    for number in numbers:
        spelled = num2words(number, lang=language).replace(",", "")
        tokens = segment(number, language, spelled)
        assert "".join(token.text for token in tokens) == spelled.replace(" ", "").replace("-", "")


@pytest.mark.parametrize(
    ("number", "language", "expected"),
    [
        (21, "de", ["ein", "und", "zwanzig"]),
        (101_000, "de", ["ein", "hundert", "eins", "tausend"]),
        (1000, "de", ["ein", "tausend"]),
        (71, "fr", ["soixante", "et", "onze"]),
        (180, "fr", ["cent", "quatre", "vingts"]),
        (80_000, "fr", ["quatre", "vingt", "mille"]),
        (2121, "en", ["two", "thousand", "one", "hundred", "and", "twenty", "one"]),
        (305, "digits", ["3", "0", "5"]),
    ],
)
def test_segmentation_splits_compounds_and_hyphens(
    number: int, language: str, expected: list[str]
) -> None:
    spelled = (
        str(number) if language == "digits" else num2words(number, lang=language).replace(",", "")
    )
    assert [token.text for token in segment(number, language, spelled)] == expected


def test_digits_align_with_the_words_that_say_them() -> None:
    def tokens(number: int, language: str) -> list[Token]:
        spelled = (
            str(number)
            if language == "digits"
            else num2words(number, lang=language).replace(",", "")
        )
        return segment(number, language, spelled)

    # 3 <- three hundred, 2 <- twenty, 1 <- one; "and" says nothing
    assert align(tokens(321, "en"), tokens(321, "digits")) == [[0, 1], [3], [4]]
    # trailing zeros are said by the last word: 20 <- twenty, 300 <- hundred
    assert align(tokens(20, "en"), tokens(20, "digits")) == [[0], [0]]
    assert align(tokens(300, "de"), tokens(300, "digits")) == [[0, 1], [1], [1]]
    # quatre-vingt-dix-sept = 4 x 20 + 10 + 7: ninety <- quatre vingt dix, seven <- sept
    assert align(tokens(97, "fr"), tokens(97, "en")) == [[0, 1, 2], [3]]


def test_numbers_with_alignments_check_languages_and_range() -> None:
    with pytest.raises(
        ValueError, match=r"alignments=True needs languages among .* got target='es'"
    ):
        load("numbers", "train", n=3, source="de", target="es", alignments=True)
    with pytest.raises(
        ValueError, match=r"max_value \(with alignments=True\) must be at most 999999"
    ):
        load("numbers", "train", n=3, source="de", target="en", max_value=10**6, alignments=True)
    with pytest.raises(ValueError, match="alignments must be True or False, got 'yes'"):
        load("numbers", "train", n=3, alignments="yes")


def test_date_alignments_count_characters_and_link_each_iso_field_to_its_source_field() -> None:
    pairs = load("dates", "train", n=300, alignments=True)
    for pair in pairs:
        assert_valid(pair, characters)
        day = datetime.date.fromisoformat(pair.target)
        assert not pair.alignment[4] and not pair.alignment[7]  # the dashes
        year_text = "".join(pair.source[j] for j in pair.alignment[0])
        assert year_text in (str(day.year), f"{day.year % 100:02d}")
        assert pair.alignment[0] == pair.alignment[3]
        day_text = "".join(pair.source[j] for j in pair.alignment[8])
        assert int(day_text) == day.day
        assert pair.alignment[5] and set(pair.alignment[5]).isdisjoint(pair.alignment[8])


def test_dates_with_alignments_are_the_same_pairs() -> None:
    plain = load("dates", "valid", n=50, seed=2)
    aligned = load("dates", "valid", n=50, seed=2, alignments=True)
    assert [(p.source, p.target) for p in plain] == [(p.source, p.target) for p in aligned]
    with pytest.raises(ValueError, match="alignments must be True or False"):
        load("dates", "valid", n=3, alignments=1)


def test_crossings_counts_pairs_out_of_order() -> None:
    assert crossings([[0], [1, 2], [], [2]]) == 0
    assert crossings([[2], [0]]) == 1
    assert crossings([[1], [2], [0]]) == 2
