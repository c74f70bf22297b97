"""``numbers``: number words in one language translated into another (Chapter 4, Seq2seq).

An example is a short list of numbers written out twice, e.g. French -> English::

    Pair(source="soixante et onze, trois cent deux", target="seventy-one, three hundred and two")

The words come from ``num2words``, so any of its languages works (``fr``, ``de``, ``es``, ``it``,
``en``, ...), and ``"digits"`` writes ``71, 302``. Alignments are not monotonic: German puts
units before tens (``einundzwanzig`` is "one-and-twenty"), French says ``quatre-vingt-dix``
(4 x 20 + 10) for 90. Several numbers per example make long sentences, which is where attention
pays off. Commas inside one number (English ``one thousand, two hundred``) are dropped, so a comma
always separates two numbers.
"""

from __future__ import annotations

import functools
import random

from num2words import CONVERTER_CLASSES, num2words

from coursekit.data.records import Pair
from coursekit.data.registry import SEED_OPTION, SIZE_OPTION, DatasetInfo, Option, register
from coursekit.data.splits import generator_for, sample_split
from coursekit.data.validation import check_choice, check_int

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
) -> list[Pair]:
    """Pairs ``(numbers written in source, the same numbers written in target)`` (Chapter 4).

    The numbers themselves are the key that decides the split (:mod:`coursekit.data.splits`), so
    a list of numbers seen in training never appears in testing, in any language.
    """
    check_choice("source", source, LANGUAGES)
    check_choice("target", target, LANGUAGES)
    if source == target:
        raise ValueError(f"source and target are both {source!r}; choose two different languages")
    check_int("max_value", max_value, minimum=1)
    check_int("numbers_per_example", numbers_per_example, minimum=1)
    drawn = sample_split(
        lambda rng: [draw_numbers(rng, max_value, numbers_per_example)],
        key=lambda values: " ".join(map(str, values)),
        split=split,
        n=n,
        rng=generator_for("numbers", split, seed),
    )
    return [Pair(write(values, source), write(values, target)) for values in drawn]
