"""Validation in windows, for models with a bounded context (Chapter 5's Transformer): every
character of the validation text is predicted exactly once, each after as much context as the
window allows, so a model that reads one character at a time gets the same perplexity from the
windows as from the whole text.
"""

from __future__ import annotations

import math

import pytest
import torch
from torch import Tensor, nn

from coursekit.data.characters import character_corpus
from coursekit.train.character_lm import sliding_windows, validation_batch, validation_perplexity
from coursekit.train.next_token import IGNORED


@pytest.mark.parametrize(
    ("length", "context", "stride"), [(10, 4, 2), (11, 4, 2), (9, 4, 3), (3, 8, 4), (8, 8, 4)]
)
def test_every_target_is_scored_once_and_windows_cover_the_text(
    length: int, context: int, stride: int
) -> None:
    text = torch.arange(length + 1)
    inputs, targets = sliding_windows(text[:-1], text[1:], context, stride)
    assert inputs.shape[1] == min(context, length)
    scored = targets[targets != IGNORED]
    assert sorted(scored.tolist()) == list(range(1, length + 1))
    torch.testing.assert_close(targets[targets != IGNORED], inputs[targets != IGNORED] + 1)
    for row in range(1, len(inputs)):  # after the first window, at least context - stride before
        first_scored = int((targets[row] != IGNORED).nonzero()[0])
        assert first_scored >= context - stride


class CurrentCharacterModel(nn.Module):
    """Predicts the next character from the current one alone: context does not matter."""

    def __init__(self, vocab_size: int) -> None:
        super().__init__()
        self.table = nn.Embedding(vocab_size, vocab_size, dtype=torch.float64)

    def forward(self, tokens: Tensor) -> tuple[Tensor, None]:
        return self.table(tokens), None


def test_a_model_without_context_scores_the_same_in_windows_as_on_the_whole_text() -> None:
    corpus = character_corpus()
    torch.manual_seed(0)
    model = CurrentCharacterModel(len(corpus.vocab))
    whole = validation_perplexity(model, corpus)
    windows = validation_perplexity(model, corpus, context=64)
    assert math.isclose(whole, windows, rel_tol=1e-12)
    inputs, targets = validation_batch(corpus, context=64)
    assert inputs.shape[1] == 64
    assert int((targets != IGNORED).sum()) == corpus.valid_ids.numel() - 1
