"""The character-model recipe: the same model and history from the same recipe (to within
rounding: trained floats are never compared bit for bit, they may differ between CPUs), a
perplexity that reads the validation text once, and a loss that is the mean next-token
cross-entropy."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from coursekit.data.characters import character_corpus
from coursekit.train.character_lm import (
    CharacterRecipe,
    recurrent_character_model,
    train_character_model,
    validation_perplexity,
)
from coursekit.train.next_token import next_token_loss, next_token_nll

TINY = CharacterRecipe(
    window=16, batch_size=64, hidden_size=8, embedding_dim=4, epochs=1, windows_per_epoch=640
)


def test_the_loss_and_the_nll_are_the_next_token_cross_entropy() -> None:
    torch.manual_seed(0)
    logits = torch.randn(2, 5, 7, dtype=torch.float64)
    targets = torch.randint(0, 7, (2, 5))

    def model(inputs: torch.Tensor) -> tuple[torch.Tensor, None]:
        return logits, None

    loss = next_token_loss(model, (targets, targets))
    nll, count = next_token_nll(model, (targets, targets))
    expected = F.cross_entropy(logits.reshape(10, 7), targets.reshape(10), reduction="sum")
    torch.testing.assert_close(loss, expected / 10)
    torch.testing.assert_close(nll, expected)
    assert count == 10


def test_the_recipe_repeats_and_records_the_perplexity() -> None:
    corpus = character_corpus()
    runs = []
    for _ in range(2):
        model = recurrent_character_model("gru", corpus, TINY)
        history = train_character_model(model, corpus, TINY, progress=False)
        runs.append((model, history))
    (first, first_history), (second, second_history) = runs
    # Same recipe, same process: a seed that is not applied, or a sampler that draws other
    # windows, changes these by far more than this tolerance.
    same_run = {"rtol": 1e-6, "atol": 1e-8}
    torch.testing.assert_close(
        first_history.metrics["perplexity"], second_history.metrics["perplexity"], **same_run
    )
    torch.testing.assert_close(first.state_dict(), second.state_dict(), **same_run)
    perplexity = validation_perplexity(first, corpus)
    assert math.isclose(perplexity, first_history.metrics["perplexity"][-1], rel_tol=1e-6)
    assert 1 < perplexity < len(corpus.vocab)  # below the uniform model's |V| after one epoch
