"""The character-level language-modelling task that Chapters 2, 3 and 5 share.

The text is the ``docs_corpus`` (Python's documentation), its paragraphs joined by newlines into
one string per split; characters seen fewer than ``min_freq`` times in training become ``<unk>``.
Training reads non-overlapping windows of ``k`` characters, inputs ``x_1..x_k`` and targets
``x_2..x_{k+1}``; validation (and test) reads the whole validation (test) text once, framed by
newlines, so that every one of its characters is predicted exactly once. Every chapter that trains a character
model uses this one task, so their perplexities compare on the same footing.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor
from torch.utils.data import TensorDataset

from coursekit.arguments import require_positive_int
from coursekit.data.registry import load
from coursekit.text import Vocab, build_vocab_from_iterator, characters

UNKNOWN = "<unk>"


@dataclass(frozen=True)
class CharacterCorpus:
    """``vocab`` over characters (``<unk>`` first), the training text as ids and the validation
    and test texts as ids framed by newlines (Chapter 2, RNNs and backpropagation through time)."""

    vocab: Vocab
    train_ids: Tensor
    valid_ids: Tensor
    test_ids: Tensor

    def windows(self, length: int) -> TensorDataset:
        """Non-overlapping training windows: inputs ``x_1..x_k``, targets ``x_2..x_{k+1}``."""
        return next_token_windows(self.train_ids, length)

    def validation_batch(self) -> tuple[Tensor, Tensor]:
        """The whole validation text as one batch ``(inputs [1, N], targets [1, N])``."""
        return self.valid_ids[None, :-1], self.valid_ids[None, 1:]

    def test_batch(self) -> tuple[Tensor, Tensor]:
        """The whole test text as one batch ``(inputs [1, N], targets [1, N])``."""
        return self.test_ids[None, :-1], self.test_ids[None, 1:]


def next_token_windows(ids: Tensor, length: int) -> TensorDataset:
    """Cut ``ids`` into ``(len(ids) - 1) // length`` windows of inputs ``[n, length]`` and
    targets shifted by one; the remainder is dropped."""
    require_positive_int("length", length)
    count = (len(ids) - 1) // length
    if count == 0:
        raise ValueError(f"{len(ids)} ids are too few for one window of {length} + 1")
    inputs = ids[: count * length].view(count, length)
    targets = ids[1 : count * length + 1].view(count, length)
    return TensorDataset(inputs, targets)


def character_corpus(min_freq: int = 20, seed: int = 0) -> CharacterCorpus:
    """The ``docs_corpus`` as characters, see the module docstring (Chapter 2)."""
    train_text = "\n".join(load("docs_corpus", split="train", seed=seed))
    valid_text, test_text = (
        "\n".join(load("docs_corpus", split=split, seed=seed)) for split in ("valid", "test")
    )
    vocab = build_vocab_from_iterator(
        [characters(train_text)], min_freq=min_freq, specials=[UNKNOWN]
    )
    vocab.set_default_index(vocab[UNKNOWN])
    train_ids = torch.tensor(vocab(characters(train_text)))
    valid_ids, test_ids = (
        torch.tensor(vocab(characters("\n" + text + "\n"))) for text in (valid_text, test_text)
    )
    return CharacterCorpus(vocab, train_ids, valid_ids, test_ids)
