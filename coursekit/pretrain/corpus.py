"""The pretraining corpora: documents of ``docs_corpus``, and WikiText-2 when it is cached; or
the reviews of ``review_corpus`` (Chapter 6, BERT).

Next sentence prediction needs document boundaries (NotNext text comes from another document),
so its corpus is a list of documents, each a list of paragraphs. A masked language model alone
reads texts: ``reviews`` (``the plot was superb and the cast was brilliant.``) or its control
``reviews_control`` (the same judgements as two sentences of independent polarity); their
WordPiece vocabulary is learned from those texts and the unlabelled texts of ``sentiment``'s
training split, so that every word of the sentiment task is a token. ``docs_corpus`` splits the
Python language reference by document (80 / 10 / 10); WikiText-2's articles start with a
``= Title =`` line. WikiText-2 is read only when it already sits in the data cache: pretraining
never downloads anything.
"""

from __future__ import annotations

import hashlib
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


REVIEW_CORPORA = {"reviews": True, "reviews_control": False}
"""The review corpora, and whether their judgements are joined by ``and``."""
CORPORA = ("docs_corpus", *REVIEW_CORPORA)
VOCABULARY_REVIEWS = 5000
"""How many of sentiment's training reviews the reviews' vocabulary is also learned from."""


def review_texts(corpus: str, split: str) -> list[str]:
    """The texts of ``split`` of ``reviews`` or ``reviews_control`` (``review_corpus``)."""
    return load("review_corpus", split, joined=REVIEW_CORPORA[corpus])


def vocabulary_texts(corpus: str) -> list[str]:
    """What the WordPiece vocabulary of a review corpus is learned from: its training texts
    and the texts (not the labels) of sentiment's first training reviews."""
    reviews = load("sentiment", "train", n=VOCABULARY_REVIEWS)
    return review_texts(corpus, "train") + [review.text for review in reviews]


def corpus_sha256(texts: list[str]) -> str:
    """The SHA-256 of the texts joined by newlines: what a test compares with the generator's."""
    return hashlib.sha256("\n".join(texts).encode("utf-8")).hexdigest()
