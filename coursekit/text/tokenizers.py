"""Tokenizers: a function from a string to a list of tokens (Chapter 1, Text as sequences).

:func:`get_tokenizer` mirrors ``torchtext.data.utils.get_tokenizer`` from torchtext 0.18, whose
``"basic_english"`` rules are reproduced here exactly (the torchtext lane of the tests proves it on
real text). Every tokenizer is a module-level function, so collate functions that hold one can be
pickled into ``DataLoader`` worker processes.
"""

from __future__ import annotations

import re
from collections.abc import Callable

Tokenizer = Callable[[str], list[str]]

# torchtext 0.18's normalisation, applied in this order after lowercasing. Order matters: the
# double quote is deleted before "<br />" is matched, and whitespace is squeezed last.
BASIC_ENGLISH_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"'"), " '  "),  # split off the apostrophe: "don't" -> "don ' t"
    (re.compile(r'"'), ""),  # delete double quotes
    (re.compile(r"\."), " . "),
    (re.compile(r"<br />"), " "),  # HTML line breaks, as in IMDB reviews
    (re.compile(r","), " , "),
    (re.compile(r"\("), " ( "),
    (re.compile(r"\)"), " ) "),
    (re.compile(r"!"), " ! "),
    (re.compile(r"\?"), " ? "),
    (re.compile(r";"), " "),  # semicolons and colons are dropped
    (re.compile(r":"), " "),
    (re.compile(r"\s+"), " "),
)


def basic_english(text: str) -> list[str]:
    """torchtext's ``basic_english`` tokenizer (Chapter 1, Text as sequences).

    Rule: lowercase, apply :data:`BASIC_ENGLISH_RULES` in order (split off ``' . , ( ) ! ?``;
    delete ``"``; replace ``<br />``, ``;`` and ``:`` by a space), then split on whitespace.
    ``basic_english("Don't stop!") == ["don", "'", "t", "stop", "!"]``.
    """
    normalized = text.lower()
    for pattern, replacement in BASIC_ENGLISH_RULES:
        normalized = pattern.sub(replacement, normalized)
    return normalized.split()


def whitespace(text: str) -> list[str]:
    """Split on runs of whitespace, ``str.split()`` (Chapter 1, Text as sequences)."""
    return text.split()


def characters(text: str) -> list[str]:
    """One token per character, spaces included: ``"hi !" -> ["h", "i", " ", "!"]`` (Chapter 1)."""
    return list(text)


NAMED_TOKENIZERS: dict[str, Tokenizer] = {
    "basic_english": basic_english,
    "whitespace": whitespace,
    "char": characters,
}

# Names torchtext resolves by importing a third-party library; coursekit does not bundle them.
THIRD_PARTY_TOKENIZERS: dict[str, str] = {
    "spacy": "spacy",
    "moses": "sacremoses",
    "toktok": "nltk",
    "revtok": "revtok",
    "subword": "revtok",
}


def get_tokenizer(tokenizer: str | Tokenizer | None, language: str = "en") -> Tokenizer:
    """Return a tokenizer by name, like ``torchtext.data.utils.get_tokenizer`` (Chapter 1).

    ``None`` and ``"whitespace"`` give ``str.split``; ``"basic_english"`` gives torchtext's
    rules (English only, as in torchtext); ``"char"`` gives one token per character; a callable
    is returned unchanged.
    """
    if tokenizer is None:
        return whitespace
    if callable(tokenizer):
        return tokenizer
    if tokenizer == "basic_english" and language != "en":
        raise ValueError(
            f"the basic_english tokenizer only supports language='en', got {language!r}"
        )
    if tokenizer in NAMED_TOKENIZERS:
        return NAMED_TOKENIZERS[tokenizer]
    if tokenizer in THIRD_PARTY_TOKENIZERS:
        raise ValueError(
            f"the {tokenizer!r} tokenizer is not bundled with coursekit: install "
            f"{THIRD_PARTY_TOKENIZERS[tokenizer]!r} and pass its tokenize function to "
            f"get_tokenizer, or use one of {sorted(NAMED_TOKENIZERS)}"
        )
    raise ValueError(
        f"unknown tokenizer {tokenizer!r}: choose None, a callable, or one of "
        f"{sorted(NAMED_TOKENIZERS)}"
    )
