"""The verdict lines of the book: every claim, parity and check that a chapter prints.

A chapter prints each statement it makes on its own line, so that nbval and any reader can find
them all:

- ``claim: <finding, with its margin>: True``: something measured that could have come out
  otherwise;
- ``parity: <our code equals its production twin>: True``;
- ``check: <an identity, or a property built into the data>: True``.

Statements longer than the book's text column wrap, the continuation lines indented by two
spaces, so that nothing runs off the page.
"""

from __future__ import annotations

import re
import textwrap
from typing import Literal

Kind = Literal["claim", "parity", "check"]
KINDS: tuple[Kind, ...] = ("claim", "parity", "check")
#: The characters of output that fit the width of the book's text column.
COLUMN = 88
VERDICT_START = re.compile(r"^(claim|parity|check): ")
VERDICT_END = re.compile(r": (True|False)$")


def verdict_text(kind: Kind, statement: str, holds: object) -> str:
    """``kind: statement: True`` (or ``False``), wrapped to :data:`COLUMN` characters."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    line = f"{kind}: {statement}: {bool(holds)}"
    return textwrap.fill(
        line, width=COLUMN, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False
    )


def verdict(kind: Kind, statement: str, holds: object) -> None:
    """Print a verdict line (see the module docstring); ``holds`` is any truth value."""
    print(verdict_text(kind, statement, holds))


def verdicts_in(text: str) -> list[str]:
    """The verdict lines printed in ``text``, each wrapped one joined back into one line."""
    verdicts, current = [], None
    for line in text.splitlines():
        if VERDICT_START.match(line):
            current = line
        elif current is not None and line.startswith("  "):
            current += " " + line.strip()
        else:
            current = None
        if current is not None and VERDICT_END.search(current):
            verdicts.append(current)
            current = None
    return verdicts
