"""The "13a" tokenizer of mteval-v13a.pl, which BLEU uses by default (Chapter 1, Text as sequences).

BLEU counts matching n-grams of *tokens*, so the score depends on how text is cut into tokens.
WMT's reference script ``mteval-v13a.pl`` fixed one tokenization, and ``sacrebleu`` reproduces it
as its default tokenizer ``"13a"``. :func:`tokenize_13a` applies the same rules, in the same order,
so that our BLEU and sacrebleu's see the same tokens.
"""

from __future__ import annotations

import re
import string

# ASCII punctuation that always becomes a token of its own. The apostrophe, comma, hyphen and
# period are left out: "don't" and "state-of-the-art" stay whole, and "3.14" or "1,000" keep
# their separators, which are split off only away from digits (rules below).
ALWAYS_SPLIT_SYMBOLS = "".join(sorted(set(string.punctuation) - set("',-.")))

# The HTML escapes mteval undoes, in its order: "&amp;quot;" becomes "&quot;", not '"'.
HTML_ESCAPES: tuple[tuple[str, str], ...] = (
    ("&quot;", '"'),
    ("&amp;", "&"),
    ("&lt;", "<"),
    ("&gt;", ">"),
)

# The tokenization rules, applied in this order to the line padded with one space on each side.
# `[0-9]` is spelled out on purpose: only ASCII digits protect a period, comma or hyphen.
TOKENIZATION_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(f"([{re.escape(ALWAYS_SPLIT_SYMBOLS)}])"), r" \1 "),
    (re.compile(r"([^0-9])([.,])"), r"\1 \2 "),  # period or comma not after a digit
    (re.compile(r"([.,])([^0-9])"), r" \1 \2"),  # period or comma not before a digit
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),  # hyphen after a digit: "5-6" -> "5 - 6"
)


def tokenize_13a(line: str) -> str:
    """Tokenize one segment with the mteval-v13a rules and return the tokens joined by spaces.

    Chapter 1, Text as sequences. The rules, in order:

    1. drop ``<skipped>`` markers, join words hyphenated across a line break (``"-\\n"``),
       turn the remaining newlines into spaces;
    2. undo the HTML escapes ``&quot; &amp; &lt; &gt;`` (:data:`HTML_ESCAPES`);
    3. pad the line with a space on each side, then apply :data:`TOKENIZATION_RULES`: every symbol
       of :data:`ALWAYS_SPLIT_SYMBOLS` becomes a token; a period or comma is split off unless it
       sits between digits; a hyphen after a digit is split off;
    4. squeeze runs of whitespace (any Unicode space) to one space and strip both ends.

    ``tokenize_13a('He said "3.5-4, maybe".') == 'He said " 3.5 - 4 , maybe " .'``
    """
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        for escape, character in HTML_ESCAPES:
            line = line.replace(escape, character)
    line = f" {line} "
    for pattern, replacement in TOKENIZATION_RULES:
        line = pattern.sub(replacement, line)
    return " ".join(line.split())
