"""tokenize_13a equals sacrebleu's default "13a" tokenizer."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from coursekit.metrics import tokenize_13a

SACREBLEU_13A = Tokenizer13a()


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Hello, world!", "Hello , world !"),
        ("It costs 3.14 or 1,000.", "It costs 3.14 or 1,000 ."),
        ("pages 5-6", "pages 5 - 6"),
        ("state-of-the-art", "state-of-the-art"),
        ("don't", "don't"),
        ('say "hi"', 'say " hi "'),
        ("a&amp;b &lt;tag&gt;", "a & b < tag >"),
        ("hyphen-\nated line\nbreak", "hyphenated line break"),
        ("<skipped>kept", "kept"),
        ("  spaced \t out\xa0 ", "spaced out"),
        (".5 at the start", ". 5 at the start"),
    ],
)
def test_rules_on_hand_checked_examples(line: str, expected: str) -> None:
    assert tokenize_13a(line) == expected


def test_every_short_string_over_the_tricky_characters() -> None:
    alphabet = " .,-0a!'&\n"
    for length in range(1, 5):
        for characters in itertools.product(alphabet, repeat=length):
            line = "".join(characters)
            assert tokenize_13a(line) == SACREBLEU_13A(line), repr(line)


def test_every_ascii_and_some_unicode_characters_between_words_and_digits() -> None:
    characters = [chr(code) for code in range(32, 127)] + list("\xa0\u2009\u3000«»“”’–—٣")
    for character in characters:
        for line in (f"a{character}b", f"1{character}2", f"{character}", f"x {character}1"):
            assert tokenize_13a(line) == SACREBLEU_13A(line), repr(line)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_arbitrary_text(line: str) -> None:
    assert tokenize_13a(line) == SACREBLEU_13A(line)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "1", ".", ",", "-", " ", "&amp;", "&quot;", "\n", "<skipped>"]))
)
def test_arbitrary_text_made_of_rule_triggers(pieces: list[str]) -> None:
    line = "".join(pieces)
    assert tokenize_13a(line) == SACREBLEU_13A(line)
