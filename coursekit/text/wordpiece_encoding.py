"""BERT's input: ``[CLS] A [SEP] B [SEP]`` with segment ids, and longest-first truncation
(Chapter 6, BERT).

A single text becomes ``[CLS] A [SEP]``; a pair (question and passage, premise and hypothesis,
two sentences for next-sentence prediction) becomes ``[CLS] A [SEP] B [SEP]``. The segment
(token type) id is 0 for ``[CLS] A [SEP]`` and 1 for ``B [SEP]``; the model adds a learned
segment embedding per id. Longest-first truncation shortens the longer text first, so that a
long passage loses tokens before a short question does; when both are too long each keeps half
of the budget (the second text gets the odd token). The rules are those of Hugging Face
``tokenizers``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from coursekit.arguments import is_int

Item = TypeVar("Item")


@dataclass(frozen=True)
class Encoding:
    """One encoded input (Chapter 6, BERT): ``ids`` and ``tokens`` of ``[CLS] A [SEP] (B
    [SEP])``, ``type_ids`` (0 for the first segment, 1 for the second) and ``attention_mask``
    (1 for every token: padding is added later, when a batch is built).
    """

    ids: list[int]
    tokens: list[str]
    type_ids: list[int]
    attention_mask: list[int]

    def __len__(self) -> int:
        return len(self.ids)


def longest_first_lengths(first: int, second: int, budget: int) -> tuple[int, int]:
    """The lengths ``(n_A, n_B)`` that longest-first truncation keeps of two texts of ``first``
    and ``second`` tokens so that ``n_A + n_B <= budget`` (Chapter 6, BERT).

    With ``short <= long``: nothing is cut if both fit; else the longer text is cut to
    ``max(short, budget - short)``; if that is still too much, ``short`` keeps ``budget // 2``
    and ``long`` the rest.
    """
    if first + second <= budget:
        return first, second
    short, long = sorted((first, second))
    long = long if short > budget else max(short, budget - short)
    if short + long > budget:
        short, long = budget // 2, budget - budget // 2
    return (long, short) if first > second else (short, long)


def bert_input(
    tokens_a: list[Item], tokens_b: list[Item] | None, cls_token: Item, sep_token: Item
) -> tuple[list[Item], list[int]]:
    """``[CLS] A [SEP]`` (segment 0) followed by ``B [SEP]`` (segment 1) when there is a B;
    tokens or ids alike.
    """
    tokens = [cls_token, *tokens_a, sep_token]
    type_ids = [0] * len(tokens)
    if tokens_b is not None:
        tokens += [*tokens_b, sep_token]
        type_ids += [1] * (len(tokens_b) + 1)
    return tokens, type_ids


def truncate_pair(
    tokens_a: list[Item], tokens_b: list[Item] | None, max_length: int
) -> tuple[list[Item], list[Item] | None]:
    """Cut the texts so that ``[CLS] A [SEP] (B [SEP])`` has at most ``max_length`` tokens:
    the end of A alone, or longest-first for a pair (:func:`longest_first_lengths`).
    """
    special_count = 2 if tokens_b is None else 3
    require_max_length(max_length, special_count)
    budget = max_length - special_count
    if tokens_b is None:
        return tokens_a[:budget], None
    keep_a, keep_b = longest_first_lengths(len(tokens_a), len(tokens_b), budget)
    return tokens_a[:keep_a], tokens_b[:keep_b]


def require_max_length(max_length: int, special_count: int) -> None:
    """``max_length`` must leave room for at least one token next to the special tokens."""
    if not is_int(max_length):
        raise TypeError(f"max_length must be an integer, got {max_length!r}")
    if max_length <= special_count:
        raise ValueError(
            f"max_length={max_length} leaves no room for text next to the {special_count} special "
            f"tokens ([CLS] and [SEP]s): pass max_length >= {special_count + 1}"
        )
