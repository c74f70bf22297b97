"""A fixed copy of ``pydoc_data.topics``, the text behind ``help("assert")`` (Chapters 1, 2, 3, 6).

The ``docs_corpus`` reads Python's own documentation so that the language-model chapters need no
download. The running Python's ``pydoc_data.topics`` changes with every release (Chapter 1's
vocabulary was 1399 tokens on Python 3.10, 1523 on 3.11, 1548 on 3.12, 1556 on 3.13), so the
book's printed numbers would hold on one Python only. The course therefore reads a snapshot,
``pydoc_topics.json``: the topics of CPython 3.11.7, byte for byte, with the version that made
them. The file is checked against its SHA-256 whenever it is read.

The snapshot was made, on CPython 3.11.7, with::

    python -m coursekit.data.pydoc_topics

which writes ``coursekit/data/pydoc_topics.json`` from the running Python and prints its SHA-256.
The text is the Python documentation's, under the PSF licence (https://docs.python.org/3/license.html).
"""

from __future__ import annotations

import functools
import hashlib
import json
import platform
from pathlib import Path
from typing import Any

SNAPSHOT_FILE = Path(__file__).with_name("pydoc_topics.json")
SNAPSHOT_PYTHON = "3.11.7"
SNAPSHOT_SHA256 = "734db6f9d9fa0782ea7506936267b87f464831086dbccb293a90b84072e62e09"


def snapshot_of_running_python() -> bytes:
    """The running Python's ``pydoc_data.topics`` as the snapshot's bytes (sorted JSON)."""
    from pydoc_data.topics import topics

    document: dict[str, Any] = {"python": platform.python_version(), "topics": dict(topics)}
    return (json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()


def sha256(data: bytes) -> str:
    """The SHA-256 of ``data`` as 64 hexadecimal digits."""
    return hashlib.sha256(data).hexdigest()


@functools.lru_cache(maxsize=1)
def topics() -> dict[str, str]:
    """The snapshot's topics, ``{name: text}``, after checking the file's SHA-256."""
    data = SNAPSHOT_FILE.read_bytes()
    if sha256(data) != SNAPSHOT_SHA256:
        raise ValueError(
            f"{SNAPSHOT_FILE} has SHA-256 {sha256(data)}, not {SNAPSHOT_SHA256}: the file was "
            f"changed; restore it (git checkout) or remake it on Python {SNAPSHOT_PYTHON} with "
            "python -m coursekit.data.pydoc_topics"
        )
    return json.loads(data)["topics"]


def main() -> None:
    """Write the running Python's topics to the snapshot file and print their SHA-256."""
    data = snapshot_of_running_python()
    SNAPSHOT_FILE.write_bytes(data)
    print(f"{SNAPSHOT_FILE}: Python {platform.python_version()}, SHA-256 {sha256(data)}")


if __name__ == "__main__":
    main()
