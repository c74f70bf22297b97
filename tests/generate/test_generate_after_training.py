"""A language model trained with ``fit`` on "abcabc..." continues the pattern (Chapter 2)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from coursekit.generate import generate
from coursekit.models.recurrent.language_model import RecurrentLanguageModel
from coursekit.text import LanguageModelBatch, LanguageModelCollate
from coursekit.train import fit

SYMBOLS = "abc"  # ids 0, 1, 2; id 3 is padding, never used
PAD = 3


def pattern_batches() -> list[LanguageModelBatch]:
    """Windows of "abcabc..." of 10 characters starting at every phase of the pattern."""
    collate = LanguageModelCollate(pad_index=PAD)
    windows = [[(start + t) % 3 for t in range(10)] for start in range(6)]
    return [collate(windows[:3]), collate(windows[3:])]


def next_token_loss(model: nn.Module, batch: LanguageModelBatch) -> torch.Tensor:
    logits, _ = model(batch.inputs)
    return F.cross_entropy(logits.flatten(0, 1), batch.targets.flatten(), ignore_index=PAD)


@pytest.mark.parametrize("cell", ["rnn", "lstm", "gru"])
def test_learns_a_repeating_pattern_and_greedy_generation_continues_it(cell: str) -> None:
    torch.manual_seed(0)
    model = RecurrentLanguageModel(len(SYMBOLS) + 1, 8, 16, cell=cell)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    history = fit(
        model,
        pattern_batches(),
        loss_fn=next_token_loss,
        optimizer=optimizer,
        epochs=40,
        device="cpu",
        progress=False,
    )
    assert history.train_loss[-1] < 0.05
    for prompt in ("a", "bc", "cabca"):
        continuation = generate(model, [SYMBOLS.index(c) for c in prompt], 12, temperature=0)
        expected = [(SYMBOLS.index(prompt[-1]) + 1 + t) % 3 for t in range(12)]
        assert continuation == expected, (prompt, continuation)
