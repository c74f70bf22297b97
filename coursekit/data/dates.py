"""``dates``: human-readable dates -> ISO ``YYYY-MM-DD`` (Chapter 4, Seq2seq and attention).

The source side is a date written by Babel's ``format_date`` in one of several locales and
formats (``short``, ``medium``, ``long``, ``full``); the target is its ISO 8601 form::

    Pair(source="Montag, 2. Januar 1950", target="1950-01-02")
    Pair(source="1/2/50", target="1950-01-02")

To translate, a model must find the day, the month and the year wherever the format puts them,
read month names in several languages and ignore the weekday: a small task whose attention maps
are easy to read.

With ``alignments=True`` each example is an :class:`~coursekit.data.records.AlignedPair` (same
texts) whose alignment counts CHARACTERS (coursekit's ``characters`` tokenizer, spaces
included), the natural tokens of this task: each digit of the ISO year, month and day aligns
with every character of the source field that writes it (``"50"`` of ``yy``, ``"Januar"`` of
``MMMM``), and the dashes and the weekday align with nothing.
"""

from __future__ import annotations

import datetime
import random
import re
from typing import Literal, cast

from babel import Locale, UnknownLocaleError
from babel.dates import DateTimeFormat, format_date, get_date_format, parse_pattern

from coursekit.arguments import require_bool, require_choices, require_int
from coursekit.data.alignment import Token, align
from coursekit.data.records import AlignedPair, Pair
from coursekit.data.registry import SEED_OPTION, SIZE_OPTION, DatasetInfo, Option, register
from coursekit.data.splits import generator_for, sample_split

DateStyle = Literal["full", "long", "medium", "short"]

FORMATS = ("short", "medium", "long", "full")
DEFAULT_LOCALES = ("en_US", "en_GB", "fr_FR", "de_DE", "nl_NL", "pt_BR")

DateSpec = tuple[datetime.date, str, str]  # (date, locale, format)

FIELD_OF_LETTER = {"y": "year", "M": "month", "L": "month", "d": "day"}  # E (weekday): none
ISO_FIELDS = ("year",) * 4 + ("-",) + ("month",) * 2 + ("-",) + ("day",) * 2
PATTERN_FIELD = re.compile(r"%\((\w+)\)s")


def require_locales(locales: object) -> tuple[str, ...]:
    """Return ``locales`` as a tuple if Babel knows every one of them, else raise."""
    if isinstance(locales, str) or not isinstance(locales, list | tuple) or not locales:
        raise ValueError(f"locales must be a non-empty list of names like 'fr_FR', got {locales!r}")
    for name in locales:
        try:
            Locale.parse(name)
        except (UnknownLocaleError, ValueError, TypeError) as error:
            raise ValueError(f"Babel does not know the locale {name!r}: {error}") from error
    return tuple(locales)


def find_ambiguity(
    locales: tuple[str, ...], formats: tuple[str, ...], year: int, span_years: int
) -> str | None:
    """Why these locales and formats would write one string for two dates, or ``None``.

    Two rules: short formats write two-digit years, so there may be at most 100 years;
    and no two (locale, format) pairs may order day and month differently with the same
    separators (en_US ``1/2/50`` is January 2, es_ES ``1/2/50`` is February 1). The second rule
    is probed on every day <= 12 of every month of ``year``.
    """
    if "short" in formats and span_years > 100:
        return (
            "short formats write two-digit years, so min_year..max_year may hold 100 years at most"
        )
    meaning: dict[str, tuple[datetime.date, str]] = {}
    for month in range(1, 13):
        for day in range(1, 13):
            date = datetime.date(year, month, day)
            for locale in locales:
                for style in formats:
                    text = format_date(date, format=style, locale=locale)
                    earlier = meaning.setdefault(text, (date, f"{locale} {style}"))
                    if earlier[0] != date:
                        return (
                            f"{text!r} means {earlier[0]} in {earlier[1]} but {date} in "
                            f"{locale} {style}; drop one of these locales or formats"
                        )
    return None


def draw_date(
    rng: random.Random,
    first: datetime.date,
    last: datetime.date,
    locales: tuple[str, ...],
    formats: tuple[str, ...],
) -> DateSpec:
    """A uniform day in ``[first, last]``, written in a uniform locale and format."""
    day = datetime.date.fromordinal(rng.randint(first.toordinal(), last.toordinal()))
    return day, rng.choice(locales), rng.choice(formats)


def characters_with_fields(day: datetime.date, locale: str, style: str) -> list[Token]:
    """The characters of ``format_date(day, style, locale)``, each tagged with the date field
    (year, month, day) whose text it belongs to; literals and the weekday get none.
    """
    date_format = get_date_format(cast(DateStyle, style), locale=locale)
    pattern = cast(str, parse_pattern(date_format.pattern).format)  # "%(y)s-%(MM)s-..."
    formatter = DateTimeFormat(day, Locale.parse(locale))
    pieces = PATTERN_FIELD.split(pattern)  # literal, field, literal, field, ..., literal
    tokens: list[Token] = []
    for index, piece in enumerate(pieces):
        is_field = index % 2 == 1
        text = formatter[piece] if is_field else piece.replace("%%", "%")
        field = FIELD_OF_LETTER.get(piece[0]) if is_field else None
        concepts = frozenset({(field,)} if field else ())
        tokens.extend(Token(character, concepts) for character in text)
    written = format_date(day, format=style, locale=locale)
    if "".join(token.text for token in tokens) != written:
        raise RuntimeError(
            f"Babel's pattern {pattern!r} for {locale} {style} does not rebuild {written!r}"
        )
    return tokens


def aligned_date(day: datetime.date, locale: str, style: str) -> AlignedPair:
    """The pair of :func:`dates` with its character alignment (see the module's doc)."""
    source = characters_with_fields(day, locale, style)
    target = [
        Token(character, frozenset({(field,)} if field != "-" else ()))
        for character, field in zip(day.isoformat(), ISO_FIELDS, strict=True)
    ]
    return AlignedPair(
        "".join(token.text for token in source), day.isoformat(), align(source, target)
    )


@register(
    DatasetInfo(
        name="dates",
        description="dates in many locales and formats (Babel) -> ISO YYYY-MM-DD",
        kind="generated",
        splits=("train", "valid", "test"),
        options=(
            SIZE_OPTION,
            SEED_OPTION,
            Option("locales", DEFAULT_LOCALES, "Babel locales the source side is written in"),
            Option("formats", FORMATS, "Babel date formats: any of short, medium, long, full"),
            Option("min_year", 1950, "first year drawn"),
            Option("max_year", 2049, "last year drawn"),
            Option("alignments", False, "True: AlignedPair records with character alignments"),
        ),
        sizes={"train": 4000, "valid": 500, "test": 500},
    )
)
def dates(
    split: str,
    *,
    n: int,
    seed: int,
    locales: tuple[str, ...],
    formats: tuple[str, ...],
    min_year: int,
    max_year: int,
    alignments: bool,
) -> list[Pair] | list[AlignedPair]:
    """Pairs ``(format_date(d, format, locale), d.isoformat())``, ``d`` uniform (Chapter 4).

    The ISO date is the key that decides the split: a day seen in training, in any format, is
    never a test example. Raises ``ValueError`` for locales or formats that make a string
    ambiguous (see :func:`find_ambiguity`). ``alignments=True`` adds each pair's character
    alignment (see the module's doc).
    """
    chosen_locales = require_locales(locales)
    chosen_formats = require_choices("formats", formats, FORMATS)
    require_int("min_year", min_year, minimum=1, maximum=9999)
    require_int("max_year", max_year, minimum=min_year, maximum=9999)
    require_bool("alignments", alignments)
    problem = find_ambiguity(chosen_locales, chosen_formats, min_year, max_year - min_year + 1)
    if problem is not None:
        raise ValueError(f"ambiguous dates: {problem}")
    first, last = datetime.date(min_year, 1, 1), datetime.date(max_year, 12, 31)
    drawn = sample_split(
        lambda rng: [draw_date(rng, first, last, chosen_locales, chosen_formats)],
        key=lambda spec: spec[0].isoformat(),
        split=split,
        n=n,
        rng=generator_for("dates", split, seed),
    )
    if alignments:
        return [aligned_date(day, locale, style) for day, locale, style in drawn]
    return [
        Pair(format_date(day, format=style, locale=locale), day.isoformat())
        for day, locale, style in drawn
    ]
