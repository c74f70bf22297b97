"""get_tokenizer gives torchtext 0.18's tokens, token for token, on real and adversarial text."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from coursekit.text import get_tokenizer

EDGE_CASES = [
    "",
    "   ",
    "\t\n\r\x0b\x0c",
    "Don't stop believin'",
    "rock 'n' roll ''quoted'' '''",
    'She said "hello" and ""left""',
    'a"b"c',
    "first<br />second<br /><br />third",
    "<BR />shouting<Br />mixed",
    "<br/>not a break<br >nor this",
    "Wait... what?!?! (Really??) ((nested))",
    "e.g. i.e. U.S.A. 3.14 $1,000.00",
    "semi;colons;and:colons::here",
    "a,b,c;d:e!f?g(h)i",
    "ÉCOLE École ß ẞ İstanbul ǅemal",
    "naïve café — “smart quotes” ‘single’ …",
    "emoji 🙂🙃 and ZWJ 👩\u200d💻",
    "no\u00a0break\u2009thin\u2028line\u3000ideographic",
    "日本語のテキスト。句読点、です！",
    "combining e\u0301 and a\u0308",
    "\x1c\x1d\x1e\x1fcontrol separators",
    "tabs\tinside\twords and trailing space ",
]


def test_whitespace_tokenizer_matches_torchtext_on_python_docs(
    torchtext_api: SimpleNamespace, docs_lines: list[str]
) -> None:
    reference = torchtext_api.get_tokenizer(None)
    ours = get_tokenizer(None)
    assert [ours(line) for line in docs_lines] == [reference(line) for line in docs_lines]


def test_basic_english_matches_torchtext_on_python_docs(
    torchtext_api: SimpleNamespace, docs_lines: list[str]
) -> None:
    reference = torchtext_api.get_tokenizer("basic_english")
    ours = get_tokenizer("basic_english")
    mismatches = [line for line in docs_lines if ours(line) != reference(line)]
    assert mismatches == []
    assert sum(len(ours(line)) for line in docs_lines) > 50_000


@pytest.mark.parametrize("text", EDGE_CASES)
@pytest.mark.parametrize("name", [None, "basic_english"])
def test_edge_cases_match_torchtext(
    torchtext_api: SimpleNamespace, name: str | None, text: str
) -> None:
    assert get_tokenizer(name)(text) == torchtext_api.get_tokenizer(name)(text)


def test_random_punctuation_soup_matches_torchtext(torchtext_api: SimpleNamespace) -> None:
    alphabet = "aZ '\".,()!?;:<br />\t\n\u00a0İéß-_"
    rng = random.Random(0)
    texts = ["".join(rng.choices(alphabet, k=rng.randint(0, 40))) for _ in range(3000)]
    texts += [
        "".join(rng.choices(["<br />", "'", '"', ".", " ", "x", "<br", "/>"], k=12))
        for _ in range(1000)
    ]
    reference = torchtext_api.get_tokenizer("basic_english")
    ours = get_tokenizer("basic_english")
    assert [ours(text) for text in texts] == [reference(text) for text in texts]


def test_both_reject_basic_english_for_other_languages(torchtext_api: SimpleNamespace) -> None:
    with pytest.raises(ValueError):
        torchtext_api.get_tokenizer("basic_english", language="de")
    with pytest.raises(ValueError):
        get_tokenizer("basic_english", language="de")


def test_both_reject_unknown_names(torchtext_api: SimpleNamespace) -> None:
    with pytest.raises(ValueError):
        torchtext_api.get_tokenizer("no-such-tokenizer")
    with pytest.raises(ValueError):
        get_tokenizer("no-such-tokenizer")


def test_both_return_a_callable_unchanged(torchtext_api: SimpleNamespace) -> None:
    assert torchtext_api.get_tokenizer(str.split) is get_tokenizer(str.split) is str.split
