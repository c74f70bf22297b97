"""Numbers spelled as morphemes, each tagged with what it means, for true word alignments
(Chapter 4, Seq2seq and attention).

num2words writes 321 as "three hundred and twenty-one" in English and "dreihunderteinundzwanzig"
in German, one word. Split into morphemes, "drei hundert ein und zwanzig", each morpheme names
parts of the number, its *concepts*:

    ("digit", g, p)   the digit at place p (0 units, 1 tens, 2 hundreds) of group g (0: below a
                      thousand, 1: thousands); a teen word ("fifteen", "onze") names two digits
    ("hundred", g)    the word hundred of group g
    ("thousand",)     the word thousand

and a number's last meaningful word also names its trailing zero digits ("twenty" in 20 names
the 0). Function words ("and", "und", "et") name nothing. A digit token names its place, plus
("hundred", g) at p = 2 and ("thousand",) for the thousands' units digit, so that "3" in 321
aligns with "three hundred". Two tokens align when they share a concept. The morphemes of
:func:`segment` join (spaces and hyphens removed) into num2words' own spelling, which
:func:`segment` checks for every number it spells.
"""

from __future__ import annotations

from coursekit.data.alignment import Concept, Token

ALIGNED_LANGUAGES = ("de", "digits", "en", "fr")
LARGEST_ALIGNED = 999_999


def words(text: str) -> list[str]:
    """The words of ``text``, in order (the tables below are written as one line each)."""
    return text.split()


ENGLISH_UNITS = words("zero one two three four five six seven eight nine")
ENGLISH_TEENS = words(
    "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen"
)
ENGLISH_TENS = words("_ _ twenty thirty forty fifty sixty seventy eighty ninety")
GERMAN_UNITS = words("null ein zwei drei vier fünf sechs sieben acht neun")
GERMAN_TEENS = words(
    "zehn elf zwölf dreizehn vierzehn fünfzehn sechzehn siebzehn achtzehn neunzehn"
)
GERMAN_TENS = words("_ _ zwanzig dreißig vierzig fünfzig sechzig siebzig achtzig neunzig")
FRENCH_UNITS = words("zéro un deux trois quatre cinq six sept huit neuf")
FRENCH_TEENS = words("dix onze douze treize quatorze quinze seize")  # 17-19: dix-sept ...
FRENCH_TENS = words("_ _ vingt trente quarante cinquante soixante")


def digit(group: int, place: int) -> Concept:
    """The concept of the digit at ``place`` of ``group``."""
    return ("digit", group, place)


def word(text: str, *concepts: Concept) -> Token:
    """A morpheme naming ``concepts`` (none for a function word)."""
    return Token(text, frozenset(concepts))


def times_hundred(multiplier: str, hundred: str, group: int) -> list[Token]:
    """ "three hundred": the hundreds digit's word and the word for hundred."""
    return [word(multiplier, digit(group, 2)), word(hundred, ("hundred", group))]


def english_below_hundred(value: int, group: int) -> list[Token]:
    """1..99 in English: "seven", "fifteen", "twenty one" (num2words' hyphen split off)."""
    tens, units = divmod(value, 10)
    if value < 10:
        return [word(ENGLISH_UNITS[value], digit(group, 0))]
    if value < 20:
        return [word(ENGLISH_TEENS[units], digit(group, 1), digit(group, 0))]
    parts = [word(ENGLISH_TENS[tens], digit(group, 1))]
    return parts + ([word(ENGLISH_UNITS[units], digit(group, 0))] if units else [])


def english_group(value: int, group: int) -> list[Token]:
    """1..999 in English: "three hundred and twenty one"."""
    hundreds, rest = divmod(value, 100)
    parts = times_hundred(ENGLISH_UNITS[hundreds], "hundred", group) if hundreds else []
    if hundreds and rest:
        parts.append(word("and"))
    return parts + (english_below_hundred(rest, group) if rest else [])


def english(number: int) -> list[Token]:
    """num2words' English, segmented: "two thousand one hundred and twenty one"."""
    thousands, rest = divmod(number, 1000)
    parts = [*english_group(thousands, 1), word("thousand", ("thousand",))] if thousands else []
    if thousands and 0 < rest < 100:
        parts.append(word("and"))
    return parts + (english_group(rest, 0) if rest else [])


def german_group(value: int, group: int) -> list[Token]:
    """1..999 in German morphemes: "drei hundert ein und zwanzig"; a final 1 is "eins" except
    in a bare "ein tausend".
    """
    hundreds, rest = divmod(value, 100)
    tens, units = divmod(rest, 10)
    parts = times_hundred(GERMAN_UNITS[hundreds], "hundert", group) if hundreds else []
    if rest == 1:
        parts.append(word("eins" if group == 0 or hundreds else "ein", digit(group, 0)))
    elif 1 < rest < 10:
        parts.append(word(GERMAN_UNITS[rest], digit(group, 0)))
    elif 10 <= rest < 20:
        parts.append(word(GERMAN_TEENS[units], digit(group, 1), digit(group, 0)))
    elif rest:
        if units:
            parts += [word(GERMAN_UNITS[units], digit(group, 0)), word("und")]
        parts.append(word(GERMAN_TENS[tens], digit(group, 1)))
    return parts


def german(number: int) -> list[Token]:
    """num2words' German, segmented: "zwei tausend ein hundert ein und zwanzig"."""
    thousands, rest = divmod(number, 1000)
    parts = [*german_group(thousands, 1), word("tausend", ("thousand",))] if thousands else []
    return parts + german_group(rest, 0)


def french_below_twenty(value: int, group: int) -> list[Token]:
    """1..19 in French: "un" .. "seize" one word each, then "dix sept" .. "dix neuf"."""
    if value < 10:
        return [word(FRENCH_UNITS[value], digit(group, 0))]
    if value < 17:
        return [word(FRENCH_TEENS[value - 10], digit(group, 1), digit(group, 0))]
    return [word("dix", digit(group, 1)), word(FRENCH_UNITS[value - 10], digit(group, 0))]


def french_base(value: int, group: int, final: bool) -> list[Token]:
    """The tens word of 20..99: "vingt" .. "soixante", and for 70..99 "soixante" (60 + 10..19)
    or "quatre vingt(s)" (4 x 20 + 0..19; plural only when it ends the number).
    """
    if value < 70:
        return [word(FRENCH_TENS[value // 10], digit(group, 1))]
    if value < 80:
        return [word("soixante", digit(group, 1))]
    plural = "vingts" if value == 80 and final else "vingt"
    return [word("quatre", digit(group, 1)), word(plural, digit(group, 1))]


def french_below_hundred(value: int, group: int, final: bool) -> list[Token]:
    """1..99 in French: 71 "soixante et onze", 97 "quatre vingt dix sept"."""
    if value < 20:
        return french_below_twenty(value, group)
    rest = value % 10 if value < 70 else value - (60 if value < 80 else 80)
    link = [word("et")] if rest in (1, 11) and value < 80 else []
    return (
        french_base(value, group, final) + link + (french_below_twenty(rest, group) if rest else [])
    )


def french_group(value: int, group: int) -> list[Token]:
    """1..999 in French: "cent", "deux cents", "deux cent un" ("cents" only at the very end)."""
    hundreds, rest = divmod(value, 100)
    final = group == 0
    if hundreds == 1:
        parts = [word("cent", digit(group, 2), ("hundred", group))]
    else:
        plural = "cents" if rest == 0 and final else "cent"
        parts = times_hundred(FRENCH_UNITS[hundreds], plural, group) if hundreds else []
    return parts + (french_below_hundred(rest, group, final) if rest else [])


def french(number: int) -> list[Token]:
    """num2words' French, segmented: "deux mille cent vingt et un"."""
    thousands, rest = divmod(number, 1000)
    if thousands == 1:
        parts = [word("mille", digit(1, 0), ("thousand",))]
    else:
        parts = [*french_group(thousands, 1), word("mille", ("thousand",))] if thousands else []
    return parts + (french_group(rest, 0) if rest else [])


def digits(number: int) -> list[Token]:
    """One token per digit; each names its place, the hundreds digit also "hundred" and the
    thousands' units digit also "thousand".
    """
    text = str(number)
    parts = []
    for index, character in enumerate(text):
        group, place = divmod(len(text) - 1 - index, 3)
        concepts = [digit(group, place)]
        concepts += [("hundred", group)] if place == 2 else []
        concepts += [("thousand",)] if (group, place) == (1, 0) else []
        parts.append(word(character, *concepts))
    return parts


SPELLERS = {"en": english, "de": german, "fr": french, "digits": digits}
ZERO = {"en": "zero", "de": "null", "fr": "zéro", "digits": "0"}


def with_trailing_zeros(morphemes: list[Token], number: int) -> list[Token]:
    """The last meaningful word also names the zero digits after the last nonzero one."""
    text = str(number)
    zero_places = len(text) - len(text.rstrip("0")) if number else 1
    zeros = {digit(*divmod(place, 3)) for place in range(zero_places)}
    last = max(i for i, morpheme in enumerate(morphemes) if morpheme.concepts)
    tagged = morphemes[last]._replace(concepts=morphemes[last].concepts | zeros)
    return [*morphemes[:last], tagged, *morphemes[last + 1 :]]


def segment(number: int, language: str, spelled: str) -> list[Token]:
    """The morphemes of ``number`` in ``language`` (one of :data:`ALIGNED_LANGUAGES`), checked
    to join into ``spelled``, num2words' text (spaces and hyphens aside).
    """
    speller = SPELLERS[language]
    morphemes = speller(number) if number else [word(ZERO[language], digit(0, 0))]
    if language != "digits":
        morphemes = with_trailing_zeros(morphemes, number)
    joined = "".join(morpheme.text for morpheme in morphemes)
    if joined != spelled.replace(" ", "").replace("-", ""):
        raise RuntimeError(
            f"the morphemes {joined!r} of {number} in {language!r} do not spell num2words' "
            f"{spelled!r}: this num2words writes numbers differently from the version the "
            "alignments were written for"
        )
    return morphemes
