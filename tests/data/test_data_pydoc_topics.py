"""The ``docs_corpus`` reads one fixed copy of Python's documentation topics on every Python."""

from __future__ import annotations

import hashlib
import json
import platform

import pytest

from coursekit.data import load
from coursekit.data import pydoc_topics as snapshot

# The corpus of Chapters 1-3 and 6, digested: the same on Python 3.10, 3.11, 3.12 and 3.13.
CORPUS_SHA256 = "dac151d2a6abb63e8214410128aa5024ae9e3f00da8bfab8ace5e684f3f0d439"


def corpus_digest() -> str:
    splits = [load("docs_corpus", split) for split in ("train", "valid", "test")]
    text = "\n\n".join("\n".join(paragraphs) for paragraphs in splits)
    return hashlib.sha256(text.encode()).hexdigest()


def test_the_snapshot_is_the_recorded_file():
    data = snapshot.SNAPSHOT_FILE.read_bytes()
    assert snapshot.sha256(data) == snapshot.SNAPSHOT_SHA256
    document = json.loads(data)
    assert document["python"] == snapshot.SNAPSHOT_PYTHON
    assert len(document["topics"]) > 70
    assert "assert_stmt" in document["topics"]["assert"]


@pytest.mark.skipif(
    platform.python_version() != snapshot.SNAPSHOT_PYTHON,
    reason=f"the snapshot was made on CPython {snapshot.SNAPSHOT_PYTHON}",
)
def test_the_recorded_command_remakes_the_snapshot():
    assert snapshot.snapshot_of_running_python() == snapshot.SNAPSHOT_FILE.read_bytes()


def test_the_corpus_is_the_same_on_every_python():
    assert corpus_digest() == CORPUS_SHA256


def test_a_changed_snapshot_is_refused_with_the_way_back(tmp_path, monkeypatch):
    changed = tmp_path / "pydoc_topics.json"
    changed.write_bytes(snapshot.SNAPSHOT_FILE.read_bytes().replace(b"assert", b"insert", 1))
    monkeypatch.setattr(snapshot, "SNAPSHOT_FILE", changed)
    snapshot.topics.cache_clear()
    try:
        with pytest.raises(ValueError, match="was changed.*git checkout.*3.11.7"):
            snapshot.topics()
    finally:
        snapshot.topics.cache_clear()
