"""Next sentence prediction pairs: half IsNext, whose B is the text right after A in the same
document, half NotNext, whose B comes from another document; both fit max_length."""

from __future__ import annotations

import math

import pytest
import torch

from coursekit.pretrain.nsp import IS_NEXT, require_documents, sentence_pair, split_sentences


def documents() -> list[list[list[int]]]:
    """Documents whose token j of sentence i of document d is ``1000 d + 10 i + j``."""
    return [
        [[1000 * d + 10 * i + j for j in range(1 + i % 4)] for i in range(3 + d % 5)]
        for d in range(1, 9)
    ]


def place(token: int) -> tuple[int, int, int]:
    """(document, sentence, position) of a token of :func:`documents`."""
    return token // 1000, token % 1000 // 10, token % 10


@pytest.mark.parametrize("max_length", [8, 16, 64])
def test_pairs_are_half_is_next_and_b_comes_from_the_right_document(max_length: int) -> None:
    generator = torch.Generator().manual_seed(0)
    examples = [sentence_pair(documents(), max_length, generator) for _ in range(2000)]
    is_next = sum(example.is_next == IS_NEXT for example in examples)
    assert abs(is_next / 2000 - 0.5) <= 4 * math.sqrt(0.25 / 2000)
    for a, b, label in examples:
        assert a and b and len(a) + len(b) <= max_length - 3
        assert place(b[0])[2] == 0 and place(a[0])[2] == 0  # segments start at a sentence
        assert (place(b[0])[0] == place(a[0])[0]) == (label == IS_NEXT)


def test_without_truncation_b_is_the_text_right_after_a() -> None:
    generator = torch.Generator().manual_seed(1)
    for _ in range(500):
        a, b, label = sentence_pair(documents(), 64, generator)
        assert place(a[-1])[2] == 1 + place(a[-1])[1] % 4 - 1  # A ends with a whole sentence
        if label == IS_NEXT:
            document, sentence, _ = place(a[-1])
            assert b[0] == 1000 * document + 10 * (sentence + 1)


def test_sentences_are_cut_after_end_marks_before_capitals() -> None:
    text = "It is e.g. this. Then (maybe) that! And: What? no cut here."
    assert split_sentences(text) == [
        "It is e.g. this.",
        "Then (maybe) that!",
        "And:",
        "What? no cut here.",
    ]


def test_documents_need_two_sentences_and_there_must_be_two() -> None:
    with pytest.raises(ValueError, match="at least 2 documents"):
        require_documents([[[1], [2]]])
    with pytest.raises(ValueError, match="document 1 must have at least 2 non-empty sentences"):
        require_documents([[[1], [2]], [[3]]])
