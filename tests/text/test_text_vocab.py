"""Vocab and build_vocab_from_iterator: ordering, specials, min_freq, max_tokens, errors, saving."""

from __future__ import annotations

import io
import pickle
from collections import Counter

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from coursekit.text import (
    DuplicateTokenError,
    TokenIndexError,
    UnknownTokenError,
    Vocab,
    build_vocab_from_iterator,
)

# counts: a=3, b=2, c=2, d=1 -> by count, ties (b, c) in code-point order.
CORPUS = [["b", "a", "c", "a"], ["c", "b", "a"], ["d"]]


def test_tokens_are_ranked_by_count_then_alphabetically() -> None:
    assert build_vocab_from_iterator(CORPUS).get_itos() == ["a", "b", "c", "d"]


def test_ties_use_code_point_order_not_first_appearance() -> None:
    vocab = build_vocab_from_iterator([["zeta", "Alpha", "beta", "_x"]])
    assert vocab.get_itos() == ["Alpha", "_x", "beta", "zeta"]  # 'A' < '_' < 'b' < 'z'


def test_iterator_is_consumed_once() -> None:
    vocab = build_vocab_from_iterator(iter(CORPUS))
    assert len(vocab) == 4


def test_specials_first_and_last() -> None:
    first = build_vocab_from_iterator(CORPUS, specials=["<unk>", "<pad>"])
    last = build_vocab_from_iterator(CORPUS, specials=["<unk>", "<pad>"], special_first=False)
    assert first.get_itos() == ["<unk>", "<pad>", "a", "b", "c", "d"]
    assert last.get_itos() == ["a", "b", "c", "d", "<unk>", "<pad>"]


def test_a_special_that_occurs_in_the_text_appears_once_at_its_special_place() -> None:
    vocab = build_vocab_from_iterator([["<eos>", "x", "<eos>"]], specials=["<pad>", "<eos>"])
    assert vocab.get_itos() == ["<pad>", "<eos>", "x"]


def test_min_freq_drops_rare_tokens_but_not_specials() -> None:
    vocab = build_vocab_from_iterator(CORPUS, min_freq=2, specials=["<unk>"])
    assert vocab.get_itos() == ["<unk>", "a", "b", "c"]
    assert build_vocab_from_iterator(CORPUS, min_freq=4).get_itos() == []


def test_max_tokens_counts_the_specials() -> None:
    vocab = build_vocab_from_iterator(CORPUS, specials=["<unk>"], max_tokens=3)
    assert vocab.get_itos() == ["<unk>", "a", "b"]
    assert build_vocab_from_iterator(CORPUS, max_tokens=100).get_itos() == ["a", "b", "c", "d"]


def test_max_tokens_is_applied_before_specials_are_removed_like_torchtext() -> None:
    # "<unk>" is the most frequent counted token: it takes the only free place, then is removed
    # from the counted tokens, so nothing but the special remains.
    corpus = [["<unk>", "<unk>", "<unk>", "a", "a", "b"]]
    vocab = build_vocab_from_iterator(corpus, specials=["<unk>"], max_tokens=2)
    assert vocab.get_itos() == ["<unk>"]


def test_max_tokens_must_leave_room_beside_specials() -> None:
    with pytest.raises(ValueError, match="max_tokens=2 leaves no room"):
        build_vocab_from_iterator(CORPUS, specials=["<unk>", "<pad>"], max_tokens=2)


@pytest.mark.parametrize("min_freq", [0, -1])
def test_min_freq_below_one_is_rejected(min_freq: int) -> None:
    with pytest.raises(ValueError, match="min_freq must be a positive integer"):
        build_vocab_from_iterator(CORPUS, min_freq=min_freq)


def test_empty_iterator_gives_an_empty_vocab_as_in_torchtext() -> None:
    assert len(build_vocab_from_iterator([])) == 0
    assert build_vocab_from_iterator([], specials=["<unk>"]).get_itos() == ["<unk>"]


def test_duplicate_specials_are_rejected() -> None:
    with pytest.raises(DuplicateTokenError, match="'<unk>' is already in the vocabulary"):
        build_vocab_from_iterator(CORPUS, specials=["<unk>", "<unk>"])


def test_lookups_in_both_directions() -> None:
    vocab = build_vocab_from_iterator(CORPUS, specials=["<unk>"])
    assert vocab["c"] == 3
    assert vocab(["a", "d"]) == vocab.lookup_indices(["a", "d"]) == [1, 4]
    assert vocab.lookup_token(2) == "b"
    assert vocab.lookup_tokens([4, 0]) == ["d", "<unk>"]
    assert "a" in vocab and "zzz" not in vocab
    assert vocab.get_stoi() == {token: index for index, token in enumerate(vocab.get_itos())}


def test_get_itos_and_get_stoi_return_copies() -> None:
    vocab = build_vocab_from_iterator(CORPUS)
    vocab.get_itos().append("x")
    vocab.get_stoi()["x"] = 9
    assert len(vocab) == 4 and "x" not in vocab


def test_unknown_token_without_default_index_raises_a_helpful_error() -> None:
    vocab = build_vocab_from_iterator(CORPUS, specials=["<unk>"])
    assert vocab.get_default_index() is None
    for error in (KeyError, RuntimeError, UnknownTokenError):
        with pytest.raises(error, match="'zzz' is not in the vocabulary.*set_default_index"):
            vocab["zzz"]
    with pytest.raises(UnknownTokenError):
        vocab(["a", "zzz"])


def test_default_index_maps_unknown_tokens_and_can_be_unset() -> None:
    vocab = build_vocab_from_iterator(CORPUS, specials=["<unk>"])
    vocab.set_default_index(vocab["<unk>"])
    assert vocab(["a", "never-seen"]) == [1, 0]
    vocab.set_default_index(-1)  # any int, as torchtext allows
    assert vocab["never-seen"] == -1
    vocab.set_default_index(None)
    with pytest.raises(UnknownTokenError):
        vocab["never-seen"]


def test_token_index_must_be_a_string() -> None:
    vocab = build_vocab_from_iterator(CORPUS)
    with pytest.raises(TypeError, match="lookup_token"):
        vocab[0]  # type: ignore[index]


@pytest.mark.parametrize("index", [-1, 4, 100])
def test_out_of_range_index_raises(index: int) -> None:
    vocab = build_vocab_from_iterator(CORPUS)
    for error in (IndexError, RuntimeError):
        with pytest.raises(error, match=f"index {index} is out of range.*size 4"):
            vocab.lookup_token(index)
    with pytest.raises(TokenIndexError):
        vocab.lookup_tokens([0, index])


def test_append_and_insert_shift_later_ids() -> None:
    vocab = Vocab(["a", "b"])
    vocab.append_token("c")
    vocab.insert_token("<unk>", 0)
    assert vocab.get_itos() == ["<unk>", "a", "b", "c"]
    assert vocab.get_stoi() == {"<unk>": 0, "a": 1, "b": 2, "c": 3}
    vocab.insert_token("end", len(vocab))
    assert vocab.lookup_token(4) == "end"


def test_insert_does_not_move_the_default_index_like_torchtext() -> None:
    vocab = Vocab(["<unk>", "a"], default_index=0)
    vocab.insert_token("<pad>", 0)
    assert vocab["unknown"] == 0 == vocab["<pad>"]


def test_append_and_insert_reject_bad_input() -> None:
    vocab = Vocab(["a", "b"])
    with pytest.raises(DuplicateTokenError, match="'a' is already in the vocabulary with index 0"):
        vocab.append_token("a")
    with pytest.raises(RuntimeError):
        vocab.insert_token("b", 0)
    with pytest.raises(TokenIndexError, match="accepts indices 0 to 2"):
        vocab.insert_token("z", 3)
    with pytest.raises(TokenIndexError):
        vocab.insert_token("z", -1)
    assert vocab.get_itos() == ["a", "b"]


def test_vocab_survives_pickle_and_torch_save() -> None:
    vocab = build_vocab_from_iterator(CORPUS, specials=["<unk>"])
    vocab.set_default_index(0)
    restored = pickle.loads(pickle.dumps(vocab))
    assert restored == vocab and restored["unseen"] == 0

    buffer = io.BytesIO()
    torch.save({"vocab": vocab}, buffer)
    buffer.seek(0)
    assert torch.load(buffer, weights_only=False)["vocab"] == vocab
    buffer.seek(0)
    with torch.serialization.safe_globals([Vocab]):
        assert torch.load(buffer, weights_only=True)["vocab"] == vocab


def test_repr_and_equality() -> None:
    vocab = Vocab(["a"], default_index=0)
    assert repr(vocab) == "Vocab(size=1, default_index=0)"
    assert vocab != Vocab(["a"])
    assert vocab != ["a"]


token_lists = st.lists(st.lists(st.text(max_size=3), max_size=8), max_size=8)


@given(token_lists, st.integers(min_value=1, max_value=3))
def test_ranking_properties_hold_on_any_corpus(corpus: list[list[str]], min_freq: int) -> None:
    counts = Counter(token for tokens in corpus for token in tokens)
    vocab = build_vocab_from_iterator(corpus, min_freq=min_freq, specials=["<s>"])
    itos = vocab.get_itos()
    words = itos[1:]
    assert itos[0] == "<s>"
    assert set(words) == {t for t, n in counts.items() if n >= min_freq and t != "<s>"}
    ranks = [(-counts[token], token) for token in words]
    assert ranks == sorted(ranks)  # descending count, ties in code-point order
    assert vocab.lookup_indices(itos) == list(range(len(itos)))
