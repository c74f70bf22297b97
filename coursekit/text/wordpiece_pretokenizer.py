"""BERT's pre-tokenisation: clean, normalise, split into words and punctuation (Chapter 6, BERT).

Before WordPiece cuts words into pieces, BERT's "basic tokenizer" turns raw text into a list of
words, in this order:

1. clean: delete NUL, U+FFFD and control characters (categories Cc, Cf, Co, Cs, except tab,
   newline and carriage return), and turn every whitespace character into a space;
2. CJK: put spaces around every CJK ideograph, so that each Chinese character is a word;
3. strip accents: decompose (NFD) and drop the non-spacing marks (category Mn),
   ``"café" -> "cafe"`` (by default exactly when lowercasing);
4. lowercase, character by character;
5. split on whitespace, then isolate every punctuation character (ASCII punctuation or a
   Unicode category P*) as a word of its own: ``"don't!" -> ["don", "'", "t", "!"]``.

The rules are those of Hugging Face ``tokenizers``' ``BertNormalizer`` and
``BertPreTokenizer``. Two details differ from the original BERT code: unassigned code points
(category Cn) are kept, and lowercasing maps each character on its own (a final capital sigma
becomes the ordinary sigma). Character classes come from Python's ``unicodedata``; ``tokenizers``
takes its categories from an older Unicode version, so the two disagree on a few hundred
characters added to Unicode in recent years (new combining marks, mostly).
"""

from __future__ import annotations

import string
import unicodedata

WHITESPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000"
    + "".join(map(chr, range(0x2000, 0x200B)))
)
"""The Unicode White_Space characters (those of Rust's ``char::is_whitespace``)."""

CONTROL_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs"})
ASCII_PUNCTUATION = frozenset(string.punctuation)
CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B920, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)
"""The CJK Unified Ideographs blocks (and compatibility ideographs) that BERT splits apart."""


def is_whitespace(char: str) -> bool:
    """Whether ``char`` is Unicode whitespace (tab, newline and carriage return included)."""
    return char in WHITESPACE


def is_control(char: str) -> bool:
    """Whether ``char`` is a control, format, private-use or surrogate character that cleaning
    deletes; tab, newline and carriage return count as whitespace instead.
    """
    return char not in "\t\n\r" and unicodedata.category(char) in CONTROL_CATEGORIES


def is_cjk(char: str) -> bool:
    """Whether ``char`` is a CJK ideograph (one of :data:`CJK_RANGES`)."""
    code = ord(char)
    return code >= 0x3400 and any(low <= code <= high for low, high in CJK_RANGES)


def is_punctuation(char: str) -> bool:
    """Whether ``char`` is ASCII punctuation (``$``, ``+``, ``^`` too) or in a category P*."""
    return char in ASCII_PUNCTUATION or unicodedata.category(char).startswith("P")


def clean_text(text: str) -> str:
    """Delete NUL, U+FFFD and control characters; every whitespace character becomes a space."""
    kept = (char for char in text if char not in "\x00\ufffd" and not is_control(char))
    return "".join(" " if is_whitespace(char) else char for char in kept)


def space_around_cjk(text: str) -> str:
    """Put a space on both sides of every CJK ideograph: ``"我爱" -> " 我  爱 "``."""
    return "".join(f" {char} " if is_cjk(char) else char for char in text)


def strip_accents(text: str) -> str:
    """NFD-decompose and drop the non-spacing marks (Mn): ``"Ærø café" -> "Ærø cafe"``."""
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(char for char in decomposed if unicodedata.category(char) != "Mn")


def lowercase(text: str) -> str:
    """Lowercase every character on its own (``"ΣΑΣ" -> "σασ"``, no final-sigma rule)."""
    return "".join(char.lower() for char in text)


def bert_normalize(text: str, lowercase_text: bool = True, strip_accents_text: bool = True) -> str:
    """clean -> spaces around CJK -> (strip accents) -> (lowercase), BERT's normaliser
    (Chapter 6, BERT).
    """
    text = space_around_cjk(clean_text(text))
    if strip_accents_text:
        text = strip_accents(text)
    if lowercase_text:
        text = lowercase(text)
    return text


def split_words(text: str) -> list[str]:
    """Split on whitespace, then cut every punctuation character out as a word of its own:
    ``"(a+b), c" -> ["(", "a", "+", "b", ")", ",", "c"]`` (Chapter 6, BERT).
    """
    words: list[str] = []
    for chunk in text.split(" "):
        current = ""
        for char in chunk:
            if is_punctuation(char):
                words.extend(word for word in (current, char) if word)
                current = ""
            else:
                current += char
        if current:
            words.append(current)
    return words


def pre_tokenize(
    text: str, lowercase_text: bool = True, strip_accents_text: bool = True
) -> list[str]:
    """The words WordPiece receives: ``split_words(bert_normalize(text))`` (Chapter 6, BERT)."""
    return split_words(bert_normalize(text, lowercase_text, strip_accents_text))
