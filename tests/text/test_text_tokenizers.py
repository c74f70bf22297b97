"""Tokenizers of coursekit.text: torchtext's basic_english rules, char, whitespace, by name."""

from __future__ import annotations

import pickle
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from coursekit.text import basic_english, characters, get_tokenizer, whitespace


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "You can now install TorchText using pip!",
            ["you", "can", "now", "install", "torchtext", "using", "pip", "!"],
        ),
        ("Don't stop.", ["don", "'", "t", "stop", "."]),
        ('She said "hello"', ["she", "said", "hello"]),
        ("one<br />two<br />three", ["one", "two", "three"]),
        ("a,b(c)d!e?f", ["a", ",", "b", "(", "c", ")", "d", "!", "e", "?", "f"]),
        ("semi;colon:gone", ["semi", "colon", "gone"]),
        ("Wait...", ["wait", ".", ".", "."]),
        ("  tabs\tand\nnewlines  ", ["tabs", "and", "newlines"]),
        ("", []),
        ("ÉCOLE Ünïcode", ["école", "ünïcode"]),
        ("<BR />upper", ["upper"]),
    ],
)
def test_basic_english_applies_torchtext_rules(text: str, expected: list[str]) -> None:
    assert basic_english(text) == expected


def test_quote_is_deleted_before_line_breaks_are_matched() -> None:
    # '"' disappears first, so '<br "/>' becomes '<br />' and is then replaced by a space.
    assert basic_english('a<br "/>b') == ["a", "b"]


def _characters_kept_by_basic_english(text: str) -> str:
    """What basic_english keeps, derived from its rules: everything but quotes, breaks, ; : and
    whitespace."""
    kept = text.lower().replace('"', "").replace("<br />", " ")
    return re.sub(r"[;:\s]", "", kept)


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=60))
def test_basic_english_loses_only_what_its_rules_delete(text: str) -> None:
    tokens = basic_english(text)
    assert "".join(tokens) == _characters_kept_by_basic_english(text)
    assert all(token and not any(ch.isspace() for ch in token) for token in tokens)


@given(st.text(alphabet="ab.,!?()' ", max_size=40))
def test_punctuation_is_always_its_own_token(text: str) -> None:
    for token in basic_english(text):
        assert len(token) == 1 or not set(token) & set(".,!?()'")


def test_whitespace_and_char_tokenizers() -> None:
    assert whitespace(" a  b\tc\n") == ["a", "b", "c"]
    assert characters("hi !") == ["h", "i", " ", "!"]
    assert characters("") == []


def test_get_tokenizer_by_name() -> None:
    assert get_tokenizer(None) is whitespace
    assert get_tokenizer("whitespace") is whitespace
    assert get_tokenizer("basic_english") is basic_english
    assert get_tokenizer("char") is characters


def test_get_tokenizer_returns_a_callable_unchanged() -> None:
    def shout(text: str) -> list[str]:
        return text.upper().split()

    assert get_tokenizer(shout) is shout


def test_basic_english_is_english_only() -> None:
    with pytest.raises(ValueError, match="language='en'"):
        get_tokenizer("basic_english", language="fr")


def test_unknown_tokenizer_lists_the_valid_names() -> None:
    with pytest.raises(ValueError, match="basic_english.*char.*whitespace"):
        get_tokenizer("nonsense")


@pytest.mark.parametrize(("name", "package"), [("spacy", "spacy"), ("moses", "sacremoses")])
def test_third_party_tokenizers_are_not_bundled(name: str, package: str) -> None:
    with pytest.raises(ValueError, match=f"not bundled.*{package}"):
        get_tokenizer(name)


@pytest.mark.parametrize("name", [None, "basic_english", "char", "whitespace"])
def test_tokenizers_survive_pickling(name: str | None) -> None:
    tokenizer = get_tokenizer(name)
    restored = pickle.loads(pickle.dumps(tokenizer))
    assert restored("Hello, world!") == tokenizer("Hello, world!")
