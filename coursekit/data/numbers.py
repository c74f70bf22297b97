"""``numbers``: number words in one language translated into another (Chapter 4, Seq2seq).

An example is a short list of numbers written out twice, e.g. French -> English::

    Pair(source="soixante et onze, trois cent deux", target="seventy-one, three hundred and two")

The words come from ``num2words``, so any of its languages works (``fr``, ``de``, ``es``, ``it``,
``en``, ...), and ``"digits"`` writes ``71, 302``. Alignments are not monotonic: German puts
units before tens (``einundzwanzig`` is "one-and-twenty"), French says ``quatre-vingt-dix``
(4 x 20 + 10) for 90. Several numbers per example make long sentences, which is where attention
pays off. Commas inside one number (English ``one thousand, two hundred``) are dropped, so a comma
always separates two numbers.

With ``alignments=True`` (languages ``en``, ``de``, ``fr`` and ``digits``, numbers up to 999,999)
each example is an :class:`~coursekit.data.records.AlignedPair` written in *segmented* form: one
token per morpheme, separated by single spaces, so that ``str.split()`` (coursekit's
``whitespace`` tokenizer, and ``basic_english``, which splits these texts the same way) gives the
tokens the alignment counts in. German compounds are split into their morphemes, hyphens become
spaces, digits are one token each and the comma is a token of its own::

    AlignedPair(source="drei hundert ein und zwanzig , sieben",
                target="three hundred and twenty one , seven",
                alignment=[[0], [1], [], [4], [2], [5], [6]])

Joined back (spaces and hyphens aside) each number is num2words' own spelling; what each
morpheme means, and so which tokens align, is defined in :mod:`coursekit.data.number_words`.
"""

from __future__ import annotations

import functools
import random

from num2words import CONVERTER_CLASSES, num2words

from coursekit.arguments import require_bool, require_choice, require_int, require_positive_int
from coursekit.data.alignment import Token, align
from coursekit.data.number_words import ALIGNED_LANGUAGES, LARGEST_ALIGNED, segment
from coursekit.data.records import AlignedPair, Pair
from coursekit.data.registry import SEED_OPTION, SIZE_OPTION, DatasetInfo, Option, register
from coursekit.data.splits import generator_for, sample_split

DIGITS = "digits"
LANGUAGES: tuple[str, ...] = (*sorted(CONVERTER_CLASSES), DIGITS)
SEPARATOR = ", "


@functools.lru_cache(maxsize=100_000)
def spell(number: int, language: str) -> str:
    """``number`` written out in ``language`` with num2words (or in digits), without commas."""
    if language == DIGITS:
        return str(number)
    return num2words(number, lang=language).replace(",", "")


def draw_numbers(rng: random.Random, max_value: int, numbers_per_example: int) -> tuple[int, ...]:
    """``k ~ U{1, ..., numbers_per_example}`` numbers, each ``~ U{0, ..., max_value}``."""
    count = rng.randint(1, numbers_per_example)
    return tuple(rng.randint(0, max_value) for _ in range(count))


def write(numbers: tuple[int, ...], language: str) -> str:
    """The sentence for ``numbers`` in ``language``: the spelled numbers joined by ``", "``."""
    return SEPARATOR.join(spell(number, language) for number in numbers)


def segmented(numbers: tuple[int, ...], language: str) -> list[Token]:
    """The tokens of the sentence for ``numbers``: each number's morphemes (their concepts
    tagged with the number's index k in the sentence), with a "," token between numbers.
    """
    tokens: list[Token] = []
    for k, number in enumerate(numbers):
        if k:
            tokens.append(Token(",", frozenset({("separator", k)})))
        for token in segment(number, language, spell(number, language)):
            tokens.append(Token(token.text, frozenset((k, *c) for c in token.concepts)))
    return tokens


def aligned_pair(numbers: tuple[int, ...], source: str, target: str) -> AlignedPair:
    """The segmented sentences of ``numbers`` in both languages and their true alignment."""
    source_tokens, target_tokens = segmented(numbers, source), segmented(numbers, target)
    return AlignedPair(
        " ".join(token.text for token in source_tokens),
        " ".join(token.text for token in target_tokens),
        align(source_tokens, target_tokens),
    )


def require_alignable(source: str, target: str, max_value: int) -> None:
    """Alignments exist for :data:`ALIGNED_LANGUAGES` and numbers up to 999,999."""
    for side, language in (("source", source), ("target", target)):
        if language not in ALIGNED_LANGUAGES:
            raise ValueError(
                f"alignments=True needs languages among {list(ALIGNED_LANGUAGES)}, got "
                f"{side}={language!r}; use alignments=False for other languages"
            )
    require_int("max_value (with alignments=True)", max_value, minimum=1, maximum=LARGEST_ALIGNED)


@register(
    DatasetInfo(
        name="numbers",
        description="number words in one language -> another (num2words), e.g. French -> English",
        kind="generated",
        splits=("train", "valid", "test"),
        options=(
            SIZE_OPTION,
            SEED_OPTION,
            Option("source", "fr", "language of the source side: a num2words code or 'digits'"),
            Option("target", "en", "language of the target side: a num2words code or 'digits'"),
            Option("max_value", 999, "largest number drawn (numbers are uniform on 0..max_value)"),
            Option("numbers_per_example", 3, "each example holds 1 to this many numbers"),
            Option(
                "alignments",
                False,
                "True: AlignedPair records, texts split into morphemes, with word alignments",
            ),
        ),
        sizes={"train": 4000, "valid": 500, "test": 500},
    )
)
def numbers(
    split: str,
    *,
    n: int,
    seed: int,
    source: str,
    target: str,
    max_value: int,
    numbers_per_example: int,
    alignments: bool,
) -> list[Pair] | list[AlignedPair]:
    """Pairs ``(numbers written in source, the same numbers written in target)`` (Chapter 4);
    with ``alignments=True``, segmented :class:`AlignedPair` records (see the module's doc).

    The numbers themselves are the key that decides the split (:mod:`coursekit.data.splits`), so
    a list of numbers seen in training never appears in testing, in any language.
    """
    require_choice("source", source, LANGUAGES)
    require_choice("target", target, LANGUAGES)
    if source == target:
        raise ValueError(f"source and target are both {source!r}; choose two different languages")
    require_positive_int("max_value", max_value)
    require_positive_int("numbers_per_example", numbers_per_example)
    if require_bool("alignments", alignments):
        require_alignable(source, target, max_value)
    drawn = sample_split(
        lambda rng: [draw_numbers(rng, max_value, numbers_per_example)],
        key=lambda values: " ".join(map(str, values)),
        split=split,
        n=n,
        rng=generator_for("numbers", split, seed),
    )
    if alignments:
        return [aligned_pair(values, source, target) for values in drawn]
    return [Pair(write(values, source), write(values, target)) for values in drawn]
