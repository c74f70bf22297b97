"""One recipe for every character-level language model of the course (Chapters 2, 3 and 5).

Chapter 2 trains a plain RNN on the characters of the ``docs_corpus``, Chapter 3 an LSTM and a GRU,
Chapter 5 a transformer; all of them follow this recipe (the same windows, batches, optimiser,
clipping, number of epochs and seed) and are scored on the same validation text, read once from
start to end, so that their perplexities compare on the same footing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch import nn
from torch.utils.data import DataLoader, RandomSampler

from coursekit.config import pick
from coursekit.data.characters import CharacterCorpus
from coursekit.metrics import evaluate_perplexity
from coursekit.models.language_model import RecurrentLanguageModel
from coursekit.runtime import seed_everything
from coursekit.train.history import History
from coursekit.train.loop import fit
from coursekit.train.next_token import next_token_loss, next_token_nll


@dataclass(frozen=True)
class CharacterRecipe:
    """Windows of ``window`` characters in shuffled batches of ``batch_size`` (the last, short
    batch of an epoch dropped), Adam at
    ``learning_rate``, gradients clipped to global norm ``max_grad_norm``, ``epochs`` passes over
    ``windows_per_epoch`` windows drawn at random (all of them when None), models of
    ``hidden_size`` units over ``embedding_dim``-dimensional embeddings."""

    window: int = 64
    batch_size: int = 32
    learning_rate: float = 1e-2
    max_grad_norm: float = 1.0
    embedding_dim: int = 32
    hidden_size: int = 128
    epochs: int = field(default_factory=lambda: pick(full=6, ci=2))
    windows_per_epoch: int | None = field(default_factory=lambda: pick(full=None, ci=1600))
    seed: int = 0


def recurrent_character_model(
    cell: str, corpus: CharacterCorpus, recipe: CharacterRecipe, num_layers: int = 1
) -> RecurrentLanguageModel:
    """A :class:`RecurrentLanguageModel` of the recipe's sizes, seeded by the recipe."""
    seed_everything(recipe.seed)
    return RecurrentLanguageModel(
        len(corpus.vocab), recipe.embedding_dim, recipe.hidden_size, num_layers, cell=cell
    )


def validation_perplexity(model: nn.Module, corpus: CharacterCorpus) -> float:
    """The perplexity of ``model`` on the whole validation text, every character predicted once."""
    return evaluate_perplexity(model, [corpus.validation_batch()], next_token_nll)


def train_character_model(
    model: nn.Module,
    corpus: CharacterCorpus,
    recipe: CharacterRecipe,
    *,
    progress: bool = True,
) -> History:
    """Train ``model`` by the recipe with :func:`coursekit.train.fit`; the history records the
    validation perplexity of every epoch under ``metrics["perplexity"]``."""
    seed_everything(recipe.seed)
    windows = corpus.windows(recipe.window)
    sampler = RandomSampler(
        windows,
        num_samples=recipe.windows_per_epoch,
        generator=torch.Generator().manual_seed(recipe.seed),
    )
    batches = DataLoader(windows, batch_size=recipe.batch_size, sampler=sampler, drop_last=True)
    return fit(
        model,
        batches,
        loss_fn=next_token_loss,
        optimizer=torch.optim.Adam(model.parameters(), lr=recipe.learning_rate),
        epochs=recipe.epochs,
        valid_batches=[corpus.validation_batch()],
        metrics={"perplexity": lambda model, _: validation_perplexity(model, corpus)},
        clip_grad_norm=recipe.max_grad_norm,
        progress=progress,
    )
