"""coursekit's WordPieceTokenizer equals Hugging Face ``tokenizers``' BertWordPieceTokenizer built
from the same vocabulary, id for id: on every paragraph of every docs_corpus split, on pairs
with longest-first truncation, on adversarial Unicode (accents, CJK, emoji, control
characters, odd whitespace, very long words, special tokens written in the text), with and
without lowercasing and accent stripping, and on hypothesis-generated text.

Where the two disagree by design: ``tokenizers`` takes character categories from an older
Unicode version than Python's ``unicodedata``. The characters on which the two pipelines
differ are found here by comparing them on every code point of the assigned planes; the test
checks that each one is a character that Unicode added or recategorised after version 3.2 (or
that Python's Unicode does not have yet), and the random text avoids them.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coursekit.data import load
from coursekit.text.wordpiece import WordPieceTokenizer
from coursekit.text.wordpiece_pretokenizer import pre_tokenize
from coursekit.text.wordpiece_training import train_wordpiece

tokenizers = pytest.importorskip("tokenizers")

SPLITS = ("train", "valid", "test")
ASSIGNED_PLANES = (range(0, 0x40000), range(0xE0000, 0xE1000))
EXTRA_TOKENS = [
    "café", "naïve", "ærø", "我", "爱", "北", "京", "🙂", "👍", "ß", "ı", "σ", "ς", "ο", "δ", "υ",
    "ε", "##σ", "##ς", "##δ", "##ε", "##υ", "ab", "##c", "x", "##y", "是", "一", "个",
]  # fmt: skip
ADVERSARIAL = [
    "Café naïve résumé Ærøskøbing CAFÉ",
    "我爱北京天安门, BERT是一个模型。",
    "🙂👍🏽 family: 👨\u200d👩\u200d👧 flags 🇫🇷",
    "a\x00b\x07c\u200bd\ufeffe\ufffdf\x1fg\x7fh",
    "tabs\tnew\nlines\r\nform\x0cfeed\x0bvertical\u3000ideographic\u00a0nbsp\u2028ls\u2029ps",
    "x" * 100 + " " + "y" * 101 + " " + "ab" * 60,
    "[MASK] [CLS]x[SEP] [mask] [UNK][PAD] [[MASK]] [MA SK]",
    "e\u0301 o\u0308 A\u030a combining",
    "ΟΔΥΣΣΕΥΣ İstanbul ß ﬁ ＡＢＣ ǅ",
    "مرحبا بالعالم 안녕하세요 こんにちは カタカナ",
    "¿¡«»—… $100+5^2=`x`|~ @#%&*()_-{}[]\\/<>'\"",
    "",
    "   ",
    "\u0301\u0301 leading marks",
    "a\u00adb soft hyphen, \U000f0000 private use, \u0378 unassigned",
]


def hf_tokenizer(vocab: list[str], **options: object) -> object:
    """``tokenizers``' BertWordPieceTokenizer on ``vocab`` (id = position)."""
    return tokenizers.BertWordPieceTokenizer({token: i for i, token in enumerate(vocab)}, **options)


@pytest.fixture(scope="module")
def docs_vocab() -> list[str]:
    """A vocabulary learned by coursekit from docs_corpus, plus accented, CJK and emoji tokens."""
    vocab = train_wordpiece(load("docs_corpus", "train"), 1500)
    return vocab + [token for token in EXTRA_TOKENS if token not in vocab]


@pytest.fixture(scope="module")
def hf_vocab() -> list[str]:
    """A vocabulary learned by ``tokenizers``' own trainer from docs_corpus."""
    trained = tokenizers.BertWordPieceTokenizer()
    trained.train_from_iterator(load("docs_corpus", "train"), vocab_size=2000, show_progress=False)
    vocab = trained.get_vocab()
    return sorted(vocab, key=vocab.__getitem__)


def assert_same_encoding(ours: WordPieceTokenizer, theirs: object, text: str, **kw: object) -> None:
    """Ids, tokens, segment ids and attention mask agree."""
    pair = kw.pop("pair", None)
    max_length = kw.pop("max_length", None)
    if max_length is None:
        theirs.no_truncation()
        mine = ours.encode(text, pair)
    else:
        theirs.enable_truncation(max_length)
        mine = ours.encode(text, pair, truncation=True, max_length=max_length)
    expected = theirs.encode(text, pair)
    assert mine.ids == expected.ids, (text, pair)
    assert mine.tokens == expected.tokens
    assert mine.type_ids == expected.type_ids
    assert mine.attention_mask == expected.attention_mask


@pytest.mark.parametrize("vocab_name", ["docs_vocab", "hf_vocab"])
@pytest.mark.parametrize("split", SPLITS)
def test_every_docs_corpus_paragraph_encodes_id_for_id(
    vocab_name: str, split: str, request: pytest.FixtureRequest
) -> None:
    vocab = request.getfixturevalue(vocab_name)
    ours, theirs = WordPieceTokenizer(vocab), hf_tokenizer(vocab)
    paragraphs = load("docs_corpus", split)
    assert len(paragraphs) > 20
    expected = [encoding.ids for encoding in theirs.encode_batch(paragraphs)]
    assert [ours.encode(paragraph).ids for paragraph in paragraphs] == expected


@pytest.mark.parametrize("max_length", [4, 9, 32, 128])
def test_paragraph_pairs_truncated_longest_first_agree(docs_vocab: list[str], max_length: int):
    ours, theirs = WordPieceTokenizer(docs_vocab), hf_tokenizer(docs_vocab)
    paragraphs = load("docs_corpus", "valid")
    for first, second in zip(paragraphs[:-1], paragraphs[1:], strict=True):
        assert_same_encoding(ours, theirs, first, pair=second, max_length=max_length)
        assert_same_encoding(ours, theirs, first[:40], pair=second, max_length=max_length)
        assert_same_encoding(ours, theirs, first, max_length=max_length)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"lowercase": False},
        {"strip_accents": False},
        {"lowercase": False, "strip_accents": True},
    ],
)
@pytest.mark.parametrize("text", ADVERSARIAL)
def test_adversarial_unicode_agrees(docs_vocab: list[str], text: str, options: dict) -> None:
    ours, theirs = WordPieceTokenizer(docs_vocab, **options), hf_tokenizer(docs_vocab, **options)
    assert_same_encoding(ours, theirs, text)
    assert_same_encoding(ours, theirs, text, pair=ADVERSARIAL[1], max_length=20)


def pipeline_words(theirs: object) -> Callable[[str], list[str]]:
    """``tokenizers``' normaliser then pre-tokeniser, as a function text -> words."""
    normalizer, pre_tokenizer = theirs._tokenizer.normalizer, theirs._tokenizer.pre_tokenizer
    return lambda text: [
        word for word, _ in pre_tokenizer.pre_tokenize_str(normalizer.normalize_str(text))
    ]


def disagreeing(characters: list[str], theirs: Callable[[str], list[str]]) -> list[str]:
    """The characters c for which ``"a" + c + "a "`` pre-tokenises differently, by bisection."""
    text = "".join(f"a{char}a " for char in characters)
    if theirs(text) == pre_tokenize(text):
        return []
    if len(characters) == 1:
        return characters
    middle = len(characters) // 2
    return disagreeing(characters[:middle], theirs) + disagreeing(characters[middle:], theirs)


@pytest.fixture(scope="module")
def unicode_version_differences(docs_vocab: list[str]) -> frozenset[str]:
    """Every code point of the assigned planes on which the two pipelines disagree."""
    theirs = pipeline_words(hf_tokenizer(docs_vocab))
    found: list[str] = []
    for plane in ASSIGNED_PLANES:
        characters = [chr(code) for code in plane if not 0xD800 <= code <= 0xDFFF]
        for start in range(0, len(characters), 1024):
            found += disagreeing(characters[start : start + 1024], theirs)
    return frozenset(found)


def test_the_pipelines_differ_only_on_characters_newer_than_unicode_3_2(
    unicode_version_differences: frozenset[str],
) -> None:
    assert len(unicode_version_differences) < 1000
    for char in unicode_version_differences:
        current = unicodedata.category(char)
        assert current == "Cn" or unicodedata.ucd_3_2_0.category(char) != current, hex(ord(char))
    adversarial = {char for text in ADVERSARIAL for char in text}
    assert not adversarial & unicode_version_differences


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_random_unicode_text_agrees(
    docs_vocab: list[str], unicode_version_differences: frozenset[str], data: st.DataObject
) -> None:
    alphabet = st.characters(
        max_codepoint=0x3FFFF,
        exclude_categories=("Cs",),
        exclude_characters="".join(unicode_version_differences),
    )
    pieces = st.one_of(
        st.text(alphabet, max_size=30),
        st.sampled_from(ADVERSARIAL + EXTRA_TOKENS + ["[MASK]", "[SEP]", "CAFÉ"]),
    )
    text = "".join(data.draw(st.lists(pieces, max_size=6)))
    pair = data.draw(st.none() | st.text(alphabet, max_size=40))
    lowercase = data.draw(st.booleans())
    ours = WordPieceTokenizer(docs_vocab, lowercase=lowercase)
    theirs = hf_tokenizer(docs_vocab, lowercase=lowercase)
    max_length = data.draw(st.none() | st.integers(4, 40))
    assert_same_encoding(ours, theirs, text, pair=pair, max_length=max_length)


@settings(max_examples=200, deadline=None)
@given(first=st.integers(0, 30), second=st.integers(0, 30), max_length=st.integers(4, 40))
def test_longest_first_truncation_keeps_the_lengths_tokenizers_keeps(
    docs_vocab: list[str], first: int, second: int, max_length: int
) -> None:
    ours, theirs = WordPieceTokenizer(docs_vocab), hf_tokenizer(docs_vocab)
    assert_same_encoding(ours, theirs, "the " * first, pair="of " * second, max_length=max_length)
