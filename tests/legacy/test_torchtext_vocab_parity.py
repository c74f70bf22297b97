"""build_vocab_from_iterator and Vocab give torchtext 0.18's ids, and fail where it fails."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

from coursekit.text import Vocab, build_vocab_from_iterator

SPECIALS = {
    "none": None,
    "usual": ["<unk>", "<pad>", "<bos>", "<eos>"],
    "frequent words": ["the", "<unk>", "."],  # specials that also occur in the text
}
CONFIGS = list(itertools.product(SPECIALS, [True, False], [1, 2, 5], [None, 10, 500]))


def assert_same_vocab(ours: Vocab, reference: Any, probe_tokens: list[str]) -> None:
    """Same itos, stoi, length, lookups both ways and default index."""
    assert ours.get_itos() == reference.get_itos()
    assert ours.get_stoi() == reference.get_stoi()
    assert len(ours) == len(reference)
    assert ours.get_default_index() == reference.get_default_index()
    known = [token for token in probe_tokens if token in reference]
    assert [token in ours for token in probe_tokens] == [
        token in reference for token in probe_tokens
    ]
    assert ours(known) == reference(known)
    assert ours.lookup_tokens(range(len(ours))) == reference.lookup_tokens(
        list(range(len(reference)))
    )


def outcome(action: Callable[..., Any], *arguments: Any) -> tuple[str, Any]:
    """("ok", result) or ("error", the kind of error) of ``action(*arguments)``."""
    try:
        return "ok", action(*arguments)
    except RuntimeError:
        return "error", "RuntimeError"
    except Exception as error:
        return "error", type(error).__name__


@pytest.mark.parametrize(("specials", "special_first", "min_freq", "max_tokens"), CONFIGS)
def test_vocab_matches_torchtext_on_python_docs(
    torchtext_api: SimpleNamespace,
    docs_tokens: list[list[str]],
    specials: str,
    special_first: bool,
    min_freq: int,
    max_tokens: int | None,
) -> None:
    options = {
        "min_freq": min_freq,
        "specials": SPECIALS[specials],
        "special_first": special_first,
        "max_tokens": max_tokens,
    }
    reference = torchtext_api.build_vocab_from_iterator(iter(docs_tokens), **options)
    ours = build_vocab_from_iterator(iter(docs_tokens), **options)
    probe = sorted({token for tokens in docs_tokens[:2000] for token in tokens}) + ["<unk>", "zzz"]
    assert_same_vocab(ours, reference, probe)
    if max_tokens is not None:
        assert len(ours) <= max_tokens


def test_default_index_matches_torchtext(
    torchtext_api: SimpleNamespace, docs_tokens: list[list[str]]
) -> None:
    reference = torchtext_api.build_vocab_from_iterator(docs_tokens, specials=["<unk>"])
    ours = build_vocab_from_iterator(docs_tokens, specials=["<unk>"])
    text = ["the", "never-seen-token", "python", "<unk>", "\u2603"]
    assert outcome(ours, text) == outcome(reference, text) == ("error", "RuntimeError")
    assert outcome(ours.__getitem__, "\u2603") == outcome(reference.__getitem__, "\u2603")
    for default in (0, 7, -1, len(ours) + 3):
        ours.set_default_index(default)
        reference.set_default_index(default)
        assert ours(text) == reference(text)
        assert_same_vocab(ours, reference, text)
    ours.set_default_index(None)
    reference.set_default_index(None)
    assert outcome(ours, text) == outcome(reference, text) == ("error", "RuntimeError")


@pytest.mark.parametrize("index", [-5, -1, 0, 1, 99, 100, 101, 10_000])
def test_index_lookups_fail_where_torchtext_fails(
    torchtext_api: SimpleNamespace, index: int
) -> None:
    corpus = [[f"w{i}"] * (i + 1) for i in range(100)]
    reference = torchtext_api.build_vocab_from_iterator(corpus)
    ours = build_vocab_from_iterator(corpus)
    assert outcome(ours.lookup_token, index) == outcome(reference.lookup_token, index)
    assert outcome(ours.lookup_tokens, [0, index]) == outcome(reference.lookup_tokens, [0, index])


def test_append_and_insert_match_torchtext(torchtext_api: SimpleNamespace) -> None:
    corpus = [["b", "a", "c", "a"], ["c", "b", "a"]]
    reference = torchtext_api.build_vocab_from_iterator(corpus, specials=["<unk>"])
    ours = build_vocab_from_iterator(corpus, specials=["<unk>"])
    reference.set_default_index(1)
    ours.set_default_index(1)
    operations = [
        ("append_token", ("d",)),
        ("append_token", ("a",)),  # already there
        ("insert_token", ("<pad>", 0)),
        ("insert_token", ("b", 0)),  # already there
        ("insert_token", ("e", 3)),
        ("insert_token", ("end", 7)),  # == len: allowed
        ("insert_token", ("far", 10)),  # > len
        ("insert_token", ("neg", -1)),
        ("append_token", ("",)),
    ]
    for name, arguments in operations:
        expected = outcome(getattr(reference, name), *arguments)
        assert outcome(getattr(ours, name), *arguments) == expected, (name, arguments)
        assert_same_vocab(ours, reference, ["a", "<pad>", "e", "unknown"])


@pytest.mark.parametrize("specials", [[], ["<unk>"], ["<unk>", "<pad>", "<bos>"]])
@pytest.mark.parametrize("max_tokens", [-1, 0, 1, 2, 3, 4])
def test_max_tokens_is_rejected_where_torchtext_rejects_it(
    torchtext_api: SimpleNamespace, specials: list[str], max_tokens: int
) -> None:
    corpus = [["a", "b", "b", "c", "c", "c", "<unk>"]]
    try:
        reference = torchtext_api.build_vocab_from_iterator(
            corpus, specials=specials, max_tokens=max_tokens
        )
    except AssertionError:  # torchtext asserts; coursekit raises a ValueError that explains
        with pytest.raises(ValueError, match="max_tokens"):
            build_vocab_from_iterator(corpus, specials=specials, max_tokens=max_tokens)
    else:
        ours = build_vocab_from_iterator(corpus, specials=specials, max_tokens=max_tokens)
        assert_same_vocab(ours, reference, ["a", "b", "c", "<unk>"])


def test_duplicate_specials_fail_in_both(torchtext_api: SimpleNamespace) -> None:
    def build(factory: Callable[..., Any]) -> Any:
        return factory([["a", "b"]], specials=["<pad>", "<pad>"])

    assert outcome(build, build_vocab_from_iterator) == ("error", "RuntimeError")
    assert outcome(build, torchtext_api.build_vocab_from_iterator) == (
        "error",
        "RuntimeError",
    )


@pytest.mark.parametrize("specials", [None, ["<unk>"]])
def test_empty_iterator_matches_torchtext(
    torchtext_api: SimpleNamespace, specials: list[str] | None
) -> None:
    reference = torchtext_api.build_vocab_from_iterator([], specials=specials)
    ours = build_vocab_from_iterator([], specials=specials)
    assert_same_vocab(ours, reference, ["<unk>", "a"])


def test_strings_in_the_iterator_are_counted_as_characters_in_both(
    torchtext_api: SimpleNamespace, docs_lines: list[str]
) -> None:
    reference = torchtext_api.build_vocab_from_iterator(docs_lines[:3000], specials=["<unk>"])
    ours = build_vocab_from_iterator(docs_lines[:3000], specials=["<unk>"])
    assert_same_vocab(ours, reference, list("abc XYZ\t{}"))


def test_min_freq_zero_is_rejected_where_torchtext_treats_it_as_one(
    torchtext_api: SimpleNamespace, docs_tokens: list[list[str]]
) -> None:
    reference = torchtext_api.build_vocab_from_iterator(docs_tokens, min_freq=0)
    assert reference.get_itos() == torchtext_api.build_vocab_from_iterator(docs_tokens).get_itos()
    assert_same_vocab(build_vocab_from_iterator(docs_tokens, min_freq=1), reference, ["the"])
    with pytest.raises(ValueError, match="min_freq"):
        build_vocab_from_iterator(docs_tokens, min_freq=0)
