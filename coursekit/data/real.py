"""Real datasets, downloaded once into the cache and checked (Chapter 1, Text as sequences).

Each dataset is one public file, pinned by its SHA-256 as published by a third party (quoted
next to each :class:`Resource`), so the copy you get is byte for byte the one the course used.
:func:`coursekit.data.download` fetches it; :func:`coursekit.data.load` also parses it:

- ``imdb``: 50,000 movie reviews labelled positive (1) or negative (0) (Maas et al., 2011);
- ``eng_fra``: English-French sentence pairs from Tatoeba, as in the PyTorch seq2seq tutorial;
- ``wikitext2``: WikiText-2 (raw), Wikipedia's good and featured articles (Merity et al., 2016);
- ``tiny_shakespeare``: Karpathy's char-rnn corpus, 1 MB of Shakespeare's plays.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import TypeVar

from coursekit.arguments import require_choice
from coursekit.data.archives import extract_archive
from coursekit.data.downloads import Resource
from coursekit.data.records import Labelled, Pair
from coursekit.data.registry import DatasetInfo, Option, register
from coursekit.data.splits import split_of

Example = TypeVar("Example")

# SHA-256 and size from TensorFlow Datasets, url_checksums/imdb_reviews.txt.
IMDB_ARCHIVE = Resource(
    url="https://ai.stanford.edu/~amaas/data/sentiment/aclImdb_v1.tar.gz",
    filename="aclImdb_v1.tar.gz",
    sha256="c40f74a18d3b61f90feba1e17730e0d38e8b97c05fde7008942e91923d1658fe",
    size=84125825,
)
# SHA-256 from the PyTorch tutorials' own CI download script (pytorch/tutorials,
# .jenkins/download_data.py); no published size, so only the hash is checked.
TUTORIAL_DATA_ARCHIVE = Resource(
    url="https://download.pytorch.org/tutorial/data.zip",
    filename="pytorch_tutorial_data.zip",
    sha256="fb317e80248faeb62dc25ef3390ae24ca34b94e276bbc5141fd8862c2200bff5",
)
# The original Amazon S3 address of WikiText now refuses requests; its author serves the same
# archive here. SHA-256 and size as pinned by lm-evaluation-harness and llama.cpp users.
WIKITEXT2_ARCHIVE = Resource(
    url="https://wikitext.smerity.com/wikitext-2-raw-v1.zip",
    filename="wikitext-2-raw-v1.zip",
    sha256="ef7edb566e3e2b2d31b29c1fdb0c89a4cc683597484c3dc2517919c615435a11",
    size=4721645,
)
# SHA-256 and size from TensorFlow Datasets, url_checksums/tiny_shakespeare.txt.
TINY_SHAKESPEARE_TEXT = Resource(
    url="https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/input.txt",
    filename="tiny_shakespeare.txt",
    sha256="86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed",
    size=1115394,
)

FIRST_N = Option("n", None, "keep the first n examples of the shuffled split (None: all)")


def shuffled(examples: list[Example], seed: int) -> list[Example]:
    """A copy of ``examples`` in the order of ``random.Random(seed).shuffle``."""
    order = list(examples)
    random.Random(seed).shuffle(order)
    return order


def first(examples: list[Example], n: int | None) -> list[Example]:
    """The first ``n`` examples, or all of them when ``n`` is ``None``."""
    return examples if n is None else examples[:n]


def read_reviews(folder: Path) -> list[Labelled]:
    """IMDB reviews of one official split: ``pos/*.txt`` (label 1) and ``neg/*.txt`` (label 0)."""
    return [
        Labelled(path.read_text(encoding="utf-8"), label)
        for label, polarity in ((1, "pos"), (0, "neg"))
        for path in sorted((folder / polarity).glob("*.txt"))
    ]


@register(
    DatasetInfo(
        name="imdb",
        description="IMDB movie reviews, 1 positive / 0 negative; valid = 10% of official train",
        kind="download",
        splits=("train", "valid", "test"),
        options=(FIRST_N, Option("seed", 0, "seed of the shuffle and of the train/valid cut")),
        resource=IMDB_ARCHIVE,
    )
)
def imdb(split: str, archive: Path, *, n: int | None, seed: int) -> list[Labelled]:
    """The official test split, or the official train split cut 90/10 into train/valid.

    Used for sentiment classification on real reviews (Chapter 3, LSTM and GRU).
    """
    root = extract_archive(archive) / "aclImdb"
    if split == "test":
        return first(shuffled(read_reviews(root / "test"), seed), n)
    training = shuffled(read_reviews(root / "train"), seed)
    held_out = len(training) // 10
    return first(training[:held_out] if split == "valid" else training[held_out:], n)


@register(
    DatasetInfo(
        name="eng_fra",
        description="English-French sentence pairs (Tatoeba, PyTorch tutorial's eng-fra.txt)",
        kind="download",
        splits=("train", "valid", "test"),
        options=(
            FIRST_N,
            Option("seed", 0, "seed of the shuffle (the split depends on the sentence only)"),
            Option("source", "en", "language of the source side: 'en' or 'fr'"),
            Option("target", "fr", "language of the target side: 'en' or 'fr'"),
        ),
        resource=TUTORIAL_DATA_ARCHIVE,
    )
)
def eng_fra(
    split: str, archive: Path, *, n: int | None, seed: int, source: str, target: str
) -> list[Pair]:
    """Pairs from ``data/eng-fra.txt`` (``english<TAB>french`` per line) (Chapter 4, Seq2seq).

    The English sentence decides the split (80/10/10 by hash, as in :mod:`coursekit.data.splits`),
    so an English sentence with several translations never sits in two splits.
    """
    require_choice("source", source, ("en", "fr"))
    require_choice("target", target, ("en", "fr"))
    if source == target:
        raise ValueError(f"source and target are both {source!r}; choose 'en' and 'fr'")
    text = (extract_archive(archive) / "data" / "eng-fra.txt").read_text(encoding="utf-8")
    pairs = []
    for line in text.splitlines():
        fields = line.split("\t")
        if len(fields) >= 2 and split_of(fields[0]) == split:
            english, french = fields[0].strip(), fields[1].strip()
            pairs.append(Pair(english, french) if source == "en" else Pair(french, english))
    return first(shuffled(pairs, seed), n)


@register(
    DatasetInfo(
        name="wikitext2",
        description="WikiText-2 (raw): Wikipedia articles, one non-empty line per item",
        kind="download",
        splits=("train", "valid", "test"),
        resource=WIKITEXT2_ARCHIVE,
    )
)
def wikitext2(split: str, archive: Path) -> list[str]:
    """The non-empty lines of the official split, stripped; headings look like ``= Title =``.

    The word-level language-modelling benchmark of Chapter 7 (Transformer-XL and XLNet).
    """
    path = extract_archive(archive) / "wikitext-2-raw" / f"wiki.{split}.raw"
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip()]


@register(
    DatasetInfo(
        name="tiny_shakespeare",
        description="Tiny Shakespeare (char-rnn): one speech per item; 90/5/5 contiguous split",
        kind="download",
        splits=("train", "valid", "test"),
        resource=TINY_SHAKESPEARE_TEXT,
    )
)
def tiny_shakespeare(split: str, text_file: Path) -> list[str]:
    """Speeches (``"NAME:\\nline\\nline"``, blank-line separated), for char LMs (Chapter 2).

    The first 90 % of the speeches are ``train``, the next 5 % ``valid``, the last 5 % ``test``:
    contiguous blocks, so a scene is cut across splits only at the two borders.
    """
    speeches = [s.strip() for s in text_file.read_text(encoding="utf-8").split("\n\n") if s.strip()]
    train_end, valid_end = round(0.9 * len(speeches)), round(0.95 * len(speeches))
    bounds = {"train": (0, train_end), "valid": (train_end, valid_end), "test": (valid_end, None)}
    start, stop = bounds[split]
    return speeches[start:stop]
