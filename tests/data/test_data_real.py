"""Real loaders end to end (download, check, extract, parse) on tiny files in the real formats."""

from __future__ import annotations

import re
import socket

import pytest
from data_fixtures import tar_gz, zip_bytes

from coursekit.data import DownloadError, Labelled, Pair, describe, download, load
from coursekit.data.downloads import MIRROR_ENV

REAL = ["eng_fra", "imdb", "tiny_shakespeare", "wikitext2"]


def imdb_archive(per_class: int = 10) -> bytes:
    """An aclImdb_v1.tar.gz tree: {train,test}/{pos,neg}/<id>_<stars>.txt, plus unsup and extras."""
    members = {"aclImdb/README": "Large Movie Review Dataset v1.0", "aclImdb/imdb.vocab": "the\n"}
    for split in ("train", "test"):
        for polarity, stars, word in (("pos", 9, "wonderful"), ("neg", 2, "dreadful")):
            for i in range(per_class):
                members[f"aclImdb/{split}/{polarity}/{i}_{stars}.txt"] = (
                    f"{split} review {i}: a {word} film.<br /><br />Truly {word}."
                )
    members["aclImdb/train/unsup/0_0.txt"] = "an unlabelled review"
    return tar_gz(members)


ENG_FRA_LINES = ["Go.\tVa !", "Go.\tMarche.", "Go.\tBouge !", "a line without a tab"] + [
    f"I see {k} cats.\tJe vois {k} chats." for k in range(80)
]


def tutorial_zip() -> bytes:
    """The PyTorch tutorial's data.zip: data/eng-fra.txt next to other tutorial files."""
    return zip_bytes(
        {"data/eng-fra.txt": "\n".join(ENG_FRA_LINES) + "\n", "data/names/French.txt": "Abel\n"}
    )


WIKI = {
    "train": " \n = Valkyria Chronicles = \n \n Senjō no Valkyria is a game . \n \n"
    " = = Gameplay = = \n \n It plays in turns . \n",
    "valid": " \n = Homarus = \n \n Homarus is a lobster . \n",
    "test": " \n = Robert Boulter = \n \n Robert Boulter is an actor . \n",
}


def wikitext_zip() -> bytes:
    return zip_bytes({f"wikitext-2-raw/wiki.{split}.raw": text for split, text in WIKI.items()})


SPEECHES = [f"SPEAKER {i}:\nThis is line one of speech {i}.\nAnd line two." for i in range(40)]


def test_resources_are_pinned_https_files():
    filenames = set()
    for name in REAL:
        resource = describe(name).resource
        assert resource is not None
        assert re.fullmatch(r"[0-9a-f]{64}", resource.sha256)
        assert resource.url.startswith("https://")
        assert resource.size is None or resource.size > 0
        filenames.add(resource.filename)
    assert len(filenames) == len(REAL)


def test_imdb_reads_the_tree_and_cuts_valid_from_train(serve_dataset, file_server):
    serve_dataset("imdb", imdb_archive())
    train, valid, test = (load("imdb", split) for split in ("train", "valid", "test"))
    assert (len(train), len(valid), len(test)) == (18, 2, 20)
    assert not {r.text for r in train} & {r.text for r in valid}
    assert all(r.text.startswith("train review") for r in train + valid)
    assert all(r.text.startswith("test review") for r in test)
    for review in train + valid + test:
        assert isinstance(review, Labelled)
        assert review.label == (1 if "wonderful" in review.text else 0)
    assert sum(r.label for r in test) == 10
    assert len(file_server.requests) == 1  # downloaded once, then read from the cache


def test_imdb_options(serve_dataset):
    serve_dataset("imdb", imdb_archive())
    assert len(load("imdb", "test", n=5)) == 5
    assert load("imdb", "test", seed=3) == load("imdb", "test", seed=3)
    assert load("imdb", "test", seed=3) != load("imdb", "test", seed=4)
    assert sorted(load("imdb", "test", seed=3)) == sorted(load("imdb", "test", seed=4))


def test_eng_fra_keeps_every_translation_of_a_sentence_in_one_split(serve_dataset):
    serve_dataset("eng_fra", tutorial_zip())
    splits = {split: load("eng_fra", split) for split in ("train", "valid", "test")}
    everything = [pair for pairs in splits.values() for pair in pairs]
    assert len(everything) == len(ENG_FRA_LINES) - 1  # the line without a tab is skipped
    assert all(isinstance(pair, Pair) for pair in everything)
    owners = [split for split, pairs in splits.items() if any(p.source == "Go." for p in pairs)]
    assert len(owners) == 1
    go = [pair.target for pair in splits[owners[0]] if pair.source == "Go."]
    assert sorted(go) == ["Bouge !", "Marche.", "Va !"]
    assert all(splits.values())


def test_eng_fra_can_translate_from_french(serve_dataset):
    serve_dataset("eng_fra", tutorial_zip())
    english_first = load("eng_fra", "train", seed=1)
    french_first = load("eng_fra", "train", seed=1, source="fr", target="en")
    assert [(p.target, p.source) for p in french_first] == english_first
    with pytest.raises(ValueError, match="both 'fr'"):
        load("eng_fra", "train", source="fr", target="fr")


def test_wikitext2_gives_the_stripped_non_empty_lines(serve_dataset):
    serve_dataset("wikitext2", wikitext_zip())
    assert load("wikitext2", "train") == [
        "= Valkyria Chronicles =",
        "Senjō no Valkyria is a game .",
        "= = Gameplay = =",
        "It plays in turns .",
    ]
    assert load("wikitext2", "test") == ["= Robert Boulter =", "Robert Boulter is an actor ."]


def test_tiny_shakespeare_cuts_speeches_into_contiguous_splits(serve_dataset):
    serve_dataset("tiny_shakespeare", ("\n\n".join(SPEECHES) + "\n").encode())
    train, valid, test = (load("tiny_shakespeare", s) for s in ("train", "valid", "test"))
    assert (len(train), len(valid), len(test)) == (36, 2, 2)
    assert train + valid + test == SPEECHES


def test_download_returns_the_checked_file_in_the_cache(serve_dataset, cache):
    payload = ("\n\n".join(SPEECHES) + "\n").encode()
    resource = serve_dataset("tiny_shakespeare", payload)
    path = download("tiny_shakespeare", progress=False)
    assert path == cache / resource.filename
    assert path.read_bytes() == payload


def test_loading_offline_says_where_to_put_the_file(serve_dataset, cache, monkeypatch):
    resource = serve_dataset("imdb", imdb_archive())
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv(MIRROR_ENV, f"http://127.0.0.1:{port}")
    with pytest.raises(DownloadError, match="could not connect") as failure:
        load("imdb", "test")
    assert str(cache / resource.filename) in str(failure.value)
    assert not any(cache.iterdir())
