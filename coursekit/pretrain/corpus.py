"""The pretraining corpus: documents of ``docs_corpus``, and WikiText-2 when it is cached
(Chapter 6, BERT).

Next sentence prediction needs document boundaries (NotNext text comes from another document),
so the corpus is a list of documents, each a list of paragraphs. ``docs_corpus`` splits the
Python language reference by document (80 / 10 / 10); WikiText-2's articles start with a
``= Title =`` line. WikiText-2 is read only when it already sits in the data cache: pretraining
never downloads anything.
"""

from __future__ import annotations

import re

from coursekit.data import load
from coursekit.data.docs_corpus import documents, split_documents
from coursekit.data.downloads import cache_dir, problem_with
from coursekit.data.real import WIKITEXT2_ARCHIVE

ARTICLE_TITLE = re.compile(r"^= [^=].* =$")

Corpus = list[list[str]]
"""Documents, each a list of paragraphs."""


def docs_corpus_documents(split: str, seed: int = 0) -> Corpus:
    """The documents of one ``docs_corpus`` split (the same documents as
    ``coursekit.data.load("docs_corpus", split, seed=seed)``), in sorted order.
    """
    paragraphs_of = documents()
    chosen = split_documents(list(paragraphs_of), seed)[split]
    return [paragraphs_of[name] for name in sorted(chosen) if paragraphs_of[name]]


def wikitext2_is_cached() -> bool:
    """Whether the WikiText-2 archive is in the data cache with the right checksum."""
    path = cache_dir() / WIKITEXT2_ARCHIVE.filename
    return path.is_file() and problem_with(path, WIKITEXT2_ARCHIVE) is None


def wikitext2_documents(split: str) -> Corpus:
    """WikiText-2's articles: the lines from one ``= Title =`` line to the next."""
    articles: Corpus = []
    for line in load("wikitext2", split):
        if ARTICLE_TITLE.match(line):
            articles.append([])
        elif articles and not line.startswith("="):
            articles[-1].append(line)
    return [article for article in articles if article]


def corpus_names(use_wikitext2: bool = True) -> list[str]:
    """The datasets pretraining reads: ``docs_corpus``, and ``wikitext2`` when asked and cached."""
    return ["docs_corpus", *(["wikitext2"] if use_wikitext2 and wikitext2_is_cached() else [])]


def pretraining_corpus(split: str, use_wikitext2: bool = True) -> Corpus:
    """The documents of ``split`` of every dataset of :func:`corpus_names`."""
    corpus = docs_corpus_documents(split)
    if "wikitext2" in corpus_names(use_wikitext2):
        corpus += wikitext2_documents(split)
    return corpus
