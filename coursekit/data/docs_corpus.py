"""``docs_corpus``: English prose that ships with every Python (Chapter 2, RNNs; Chapter 6, BERT).

``pydoc_data.topics.topics`` holds the text of the language reference that ``help("assert")``
prints: about 80 documents and half a million characters of careful technical English, present
wherever CPython is, so the language-model chapters can train without a download. The corpus reads
the copy of CPython 3.11.7's topics in :mod:`coursekit.data.pydoc_topics`, so that it is the same
on every Python (the running Python's own topics change with its version). The documents
are cleaned into paragraphs: code, grammar rules, tables and headings are dropped, wrapped lines
are joined (``left-`` + ``hand`` -> ``left-hand``), and every paragraph is kept once.

The split is by *document*: the sorted document names are shuffled by the seed, and the first
80 % are ``train``, the next 10 % ``valid``, the rest ``test``. A language model is then tested
on documents it never read.
"""

from __future__ import annotations

import functools
import random
import re

from coursekit.data.pydoc_topics import topics
from coursekit.data.registry import DatasetInfo, Option, register

HEADING_UNDERLINE = re.compile(r"^([*=\-^~])\1+$")
FOOTNOTE_MARK = re.compile(r"^\[\d+\]\s+")
MIN_WORDS = 6
SENTENCE_ENDINGS = (".", ":", "?", "!")


def join_lines(lines: list[str]) -> str:
    """One line from wrapped ones: a line ending in ``-`` joins the next without a space."""
    text = ""
    for line in lines:
        line = line.strip()
        if text and not text.endswith("-"):
            text += " "
        text += line
    return re.sub(r"\s+", " ", text)


def clean_paragraph(block: str) -> str | None:
    """The prose of one blank-line-separated block, or ``None`` if it is not prose.

    Not prose: indented blocks (code, grammar), tables, headings, and short or unfinished lines
    such as ``See also:`` or ``object.__getattr__(self, name)``.
    """
    lines = block.rstrip().split("\n")
    if not lines[0] or lines[0][0].isspace() or lines[0].startswith(("+", "|")):
        return None
    if len(lines) == 2 and HEADING_UNDERLINE.match(lines[1]):
        return None
    text = FOOTNOTE_MARK.sub("", join_lines(lines)).removeprefix("* ")
    if len(text.split()) < MIN_WORDS or not text.endswith(SENTENCE_ENDINGS):
        return None
    return text


@functools.lru_cache(maxsize=1)
def documents() -> dict[str, list[str]]:
    """Every topic's paragraphs, in sorted topic order; a paragraph repeated later is dropped."""
    seen: set[str] = set()
    paragraphs_of: dict[str, list[str]] = {}
    texts = topics()
    for name in sorted(texts):
        kept = []
        for block in re.split(r"\n[ \t]*\n", texts[name]):
            paragraph = clean_paragraph(block)
            if paragraph is not None and paragraph not in seen:
                seen.add(paragraph)
                kept.append(paragraph)
        paragraphs_of[name] = kept
    return paragraphs_of


def split_documents(names: list[str], seed: int) -> dict[str, list[str]]:
    """Shuffle ``names`` with ``random.Random(seed)``; 80 % train, 10 % valid, 10 % test."""
    shuffled = sorted(names)
    random.Random(seed).shuffle(shuffled)
    held_out = max(1, round(0.1 * len(shuffled)))
    return {
        "valid": shuffled[:held_out],
        "test": shuffled[held_out : 2 * held_out],
        "train": shuffled[2 * held_out :],
    }


@register(
    DatasetInfo(
        name="docs_corpus",
        description="English paragraphs of the Python language reference (CPython 3.11.7), for LMs",
        kind="generated",
        splits=("train", "valid", "test"),
        options=(Option("seed", 0, "seed of the shuffle that assigns documents to splits"),),
    )
)
def docs_corpus(split: str, *, seed: int) -> list[str]:
    """The paragraphs of the documents in ``split``, in reading order (Chapter 2, RNNs)."""
    paragraphs_of = documents()
    chosen = split_documents(list(paragraphs_of), seed)[split]
    return [paragraph for name in sorted(chosen) for paragraph in paragraphs_of[name]]
