"""train_wordpiece merges by the association score count(ab) / (count(a) count(b)): its
vocabulary equals the one of a naive trainer written here (every count recomputed at every
merge, scores as exact fractions) on random small corpora; it spells every training word; the
comparison with ``tokenizers``' trainer reports both vocabularies on held-out text."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coursekit.data import load
from coursekit.text.wordpiece import WordPieceTokenizer
from coursekit.text.wordpiece_training import SPECIAL_TOKENS, count_words, train_wordpiece


def naive_wordpiece(texts: list[str], vocab_size: int, min_pair_count: int) -> list[str]:
    """WordPiece training from its definition, recounting everything before every merge."""
    words = count_words(texts)
    spellings = {word: [word[0], *("##" + c for c in word[1:])] for word in words}
    vocab = list(SPECIAL_TOKENS) + sorted({s for spelled in spellings.values() for s in spelled})
    while len(vocab) < vocab_size:
        symbols: Counter[str] = Counter()
        pairs: Counter[tuple[str, str]] = Counter()
        for word, spelled in spellings.items():
            for symbol in spelled:
                symbols[symbol] += words[word]
            for pair in zip(spelled[:-1], spelled[1:], strict=True):
                pairs[pair] += words[word]
        candidates = [pair for pair, count in pairs.items() if count >= min_pair_count]
        if not candidates:
            break
        best = min(
            candidates,
            key=lambda p: (-Fraction(pairs[p], symbols[p[0]] * symbols[p[1]]), p),
        )
        merged = best[0] + best[1].removeprefix("##")
        for word, spelled in spellings.items():
            out, i = [], 0
            while i < len(spelled):
                if i + 1 < len(spelled) and (spelled[i], spelled[i + 1]) == best:
                    out.append(merged)
                    i += 2
                else:
                    out.append(spelled[i])
                    i += 1
            spellings[word] = out
        if merged not in vocab:
            vocab.append(merged)
    return vocab


corpora = st.lists(
    st.lists(st.text("abcde", min_size=1, max_size=7), min_size=1, max_size=8).map(" ".join),
    min_size=1,
    max_size=6,
)


@settings(max_examples=60, deadline=None)
@given(texts=corpora, extra=st.integers(1, 25), min_pair_count=st.integers(1, 3))
def test_the_vocabulary_equals_the_naive_trainers(
    texts: list[str], extra: int, min_pair_count: int
) -> None:
    alphabet = {symbol for word in count_words(texts) for symbol in [word[0]]}
    vocab_size = len(SPECIAL_TOKENS) + 2 * len(alphabet) + extra
    expected = naive_wordpiece(texts, vocab_size, min_pair_count)
    assert train_wordpiece(texts, vocab_size, min_pair_count=min_pair_count) == expected


def test_the_first_merge_is_the_pair_that_occurs_together_beyond_chance() -> None:
    # "q ##u" is rare but q never occurs without ##u: score 2 / (2 * 2) = 1/2, while the
    # frequent "t ##h" scores 6 / (8 * 6) = 1/8.
    texts = ["qu qu th th th th th th ta ta"]
    vocab = train_wordpiece(texts, len(SPECIAL_TOKENS) + 5 + 1, min_pair_count=1)
    assert vocab[len(SPECIAL_TOKENS) :] == ["##a", "##h", "##u", "q", "t", "qu"]


def test_every_training_word_is_spelled_without_unknown_pieces() -> None:
    texts = load("docs_corpus", "valid")
    vocab = train_wordpiece(texts, 800)
    assert vocab[: len(SPECIAL_TOKENS)] == list(SPECIAL_TOKENS)
    assert len(vocab) == 800 == len(set(vocab))
    tokenizer = WordPieceTokenizer(vocab)
    for word in count_words(texts):
        assert "[UNK]" not in tokenizer.tokenize_plain(word), word


def test_the_comparison_with_tokenizers_reports_both_trainers_on_held_out_text() -> None:
    pytest.importorskip("tokenizers")
    from coursekit.text.wordpiece_comparison import compare_wordpiece_trainers

    reports = compare_wordpiece_trainers(
        load("docs_corpus", "train"), load("docs_corpus", "test"), vocab_size=1500
    )
    assert [report.trainer.split(":")[0] for report in reports] == ["coursekit", "tokenizers"]
    for report in reports:
        assert report.vocab_size <= 1500
        assert report.tokens_per_word >= 1.0
        assert 0.0 <= report.unknown_rate < 0.05


def test_bad_training_arguments_are_rejected() -> None:
    with pytest.raises(ValueError, match="vocab_size=5 leaves no room"):
        train_wordpiece(["a b"], 5)
    with pytest.raises(ValueError, match="min_pair_count must be a positive integer"):
        train_wordpiece(["a b"], 50, min_pair_count=0)
    with pytest.raises(ValueError, match="no word to learn from"):
        train_wordpiece(["  ", "\x00"], 50)
