"""``numbers`` and ``dates``: the outputs of num2words and Babel are what they should be."""

from __future__ import annotations

import datetime

import pytest

from coursekit.data import load

GERMAN_UNITS = {1: "ein", 2: "zwei", 3: "drei", 4: "vier", 5: "fünf", 6: "sechs", 7: "sieben"}
GERMAN_UNITS |= {8: "acht", 9: "neun"}
GERMAN_TENS = {2: "zwanzig", 3: "dreißig", 4: "vierzig", 5: "fünfzig", 6: "sechzig"}
GERMAN_TENS |= {7: "siebzig", 8: "achtzig", 9: "neunzig"}
GERMAN_WEEKDAYS = ["Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"]


def test_digit_targets_hold_one_to_k_numbers_in_range():
    pairs = load("numbers", "train", n=400, target="digits", max_value=50, numbers_per_example=4)
    counts = set()
    for pair in pairs:
        values = [int(value) for value in pair.target.split(", ")]
        counts.add(len(values))
        assert all(0 <= value <= 50 for value in values)
        assert len(pair.source.split(", ")) == len(values)
    assert counts == {1, 2, 3, 4}


def test_german_puts_units_before_tens():
    pairs = load("numbers", "train", n=60, source="de", target="digits", max_value=99,
                 numbers_per_example=1)  # fmt: skip
    checked = 0
    for pair in pairs:
        value = int(pair.target)
        if value > 20 and value % 10:
            assert pair.source == f"{GERMAN_UNITS[value % 10]}und{GERMAN_TENS[value // 10]}"
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("language", ["fr", "de", "es", "it", "en"])
def test_every_required_language_spells_numbers(language):
    pairs = load("numbers", "test", n=50, source="digits", target=language)
    assert all(pair.target and not any(ch.isdigit() for ch in pair.target) for pair in pairs)


def test_english_thousands_lose_their_comma_so_commas_separate_numbers():
    pairs = load("numbers", "valid", n=200, source="digits", target="en", max_value=99_999)
    for pair in pairs:
        assert pair.target.count(",") == pair.source.count(",")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"source": "xx"}, "source must be one of"),
        ({"target": "en"}, None),
        ({"source": "en"}, "both 'en'"),
        ({"max_value": 0}, "max_value must be a positive integer"),
        ({"numbers_per_example": 0}, "numbers_per_example must be a positive integer"),
    ],
)
def test_numbers_options_are_checked(options, message):
    if message is None:
        assert load("numbers", "valid", n=3, **options)
    else:
        with pytest.raises(ValueError, match=message):
            load("numbers", "valid", n=3, **options)


def test_asking_for_more_than_exists_fails_clearly():
    with pytest.raises(ValueError, match="could only find"):
        load("numbers", "train", n=20, max_value=9, numbers_per_example=1)


def test_date_targets_are_iso_dates_in_the_year_range():
    pairs = load("dates", "train", n=500, min_year=1990, max_year=2010)
    for pair in pairs:
        day = datetime.date.fromisoformat(pair.target)
        assert 1990 <= day.year <= 2010
        assert str(day.year) in pair.source or f"{day.year % 100:02d}" in pair.source


def test_long_us_dates_read_back_to_their_target():
    pairs = load("dates", "valid", n=100, locales=["en_US"], formats=["long"])
    for pair in pairs:
        read = datetime.datetime.strptime(pair.source, "%B %d, %Y").date()
        assert read.isoformat() == pair.target


def test_full_german_dates_name_the_right_weekday():
    pairs = load("dates", "valid", n=100, locales=["de_DE"], formats=["full"])
    for pair in pairs:
        weekday = datetime.date.fromisoformat(pair.target).weekday()
        assert pair.source.startswith(GERMAN_WEEKDAYS[weekday] + ", ")


def test_default_locales_and_formats_are_unambiguous():
    meaning: dict[str, str] = {}
    for split in ("train", "valid", "test"):
        for pair in load("dates", split):
            assert meaning.setdefault(pair.source, pair.target) == pair.target


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"locales": ["en_US", "es_ES"], "formats": ["short"]},
            r"ambiguous dates: '\d+/\d+/50' means",
        ),
        ({"min_year": 1900, "max_year": 2099}, "two-digit years"),
        ({"locales": ["xx_YY"]}, "does not know the locale 'xx_YY'"),
        ({"locales": "en_US"}, "non-empty list"),
        ({"formats": ["tiny"]}, "formats must be one of"),
        ({"min_year": 2000, "max_year": 1999}, "max_year must be at least 2000"),
    ],
)
def test_dates_options_are_checked(options, message):
    with pytest.raises(ValueError, match=message):
        load("dates", "valid", n=3, **options)


def test_a_century_without_short_formats_is_fine():
    pairs = load("dates", "valid", n=50, min_year=1900, max_year=2099, formats=["long", "full"])
    assert len(pairs) == 50
