"""Datasets of the course: generated offline by default, real ones downloaded and checked.

``load(name, split="train", **options)`` returns a plain list of examples (a list is already a
``torch.utils.data.Dataset``). ``names()`` lists the datasets and ``describe(name)`` their splits
and options. Generated datasets (``numbers``, ``dates``, ``sentiment``, ``copy``, ``reverse``,
``sort``, ``docs_corpus``) need no network and depend only on their ``seed`` option; real ones
(``imdb``, ``eng_fra``, ``wikitext2``, ``tiny_shakespeare``) are fetched once into the cache by
``download(name)`` (Chapter 1, Text as sequences).
"""

from __future__ import annotations

from coursekit.data import (
    contrast,
    dates,
    docs_corpus,
    ner,
    nli,
    numbers,
    real,
    review_corpus,
    sentiment,
    story_qa,
    synthetic,
)
from coursekit.data.downloads import DownloadError, Resource, cache_dir
from coursekit.data.records import AlignedPair, Labelled, Pair, SequencePair
from coursekit.data.registry import DatasetInfo, Option, describe, download, load, names
from coursekit.data.synthetic import EOS_ID, FIRST_TOKEN_ID, PAD_ID, SOS_ID

__all__ = [
    "AlignedPair",
    "EOS_ID",
    "FIRST_TOKEN_ID",
    "PAD_ID",
    "SOS_ID",
    "DatasetInfo",
    "DownloadError",
    "Labelled",
    "Option",
    "Pair",
    "Resource",
    "SequencePair",
    "cache_dir",
    "contrast",
    "dates",
    "describe",
    "docs_corpus",
    "download",
    "load",
    "names",
    "ner",
    "nli",
    "numbers",
    "real",
    "review_corpus",
    "sentiment",
    "story_qa",
    "synthetic",
]
