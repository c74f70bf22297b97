"""One recipe for every character-level language model of the course (Chapters 2, 3 and 5).

Chapter 2 trains a plain RNN on the characters of the ``docs_corpus``, Chapter 3 an LSTM and a GRU,
Chapter 5 a transformer; all of them follow this recipe (the same windows, batches, optimiser,
clipping, number of epochs and seed) and are scored on the same validation text, read once from
start to end, so that their perplexities compare on the same footing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch import Tensor, nn
from torch.utils.data import DataLoader, RandomSampler

from coursekit.config import pick
from coursekit.data.characters import CharacterCorpus
from coursekit.metrics import evaluate_perplexity, perplexity
from coursekit.models.recurrent.language_model import RecurrentLanguageModel
from coursekit.runtime import seed_everything, seeded_generator
from coursekit.train.batch_metrics import PooledMetric
from coursekit.train.history import History
from coursekit.train.loop import fit
from coursekit.train.next_token import IGNORED, next_token_loss, next_token_nll


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


def sliding_windows(
    inputs: Tensor, targets: Tensor, context: int, stride: int
) -> tuple[Tensor, Tensor]:
    """One text ``inputs [N]``, ``targets [N]`` as windows of ``context`` positions starting
    every ``stride``: inputs ``[n, context]`` and targets in which a target already scored by an
    earlier window is -100 (ignored), so that every target counts exactly once and, after the
    first window, with at least ``context - stride`` characters before it. The last window ends
    at the end of the text. A text of at most ``context`` positions is one window (Chapter 5).
    """
    length = len(inputs)
    width = min(context, length)
    starts = list(range(0, length - width + 1, stride))
    if starts[-1] + width < length:
        starts.append(length - width)
    window_inputs, window_targets, scored = [], [], 0
    for start in starts:
        window = targets[start : start + width].clone()
        window[: max(scored - start, 0)] = IGNORED
        window_inputs.append(inputs[start : start + width])
        window_targets.append(window)
        scored = start + width
    return torch.stack(window_inputs), torch.stack(window_targets)


def validation_batch(corpus: CharacterCorpus, context: int | None = None) -> tuple[Tensor, Tensor]:
    """The validation text as one batch: read whole (``context=None``, a recurrent model), or
    cut by :func:`sliding_windows` into windows of ``context`` characters, each starting
    ``context // 2`` after the previous one (a Transformer, whose context is bounded), every
    character predicted once either way."""
    inputs, targets = corpus.validation_batch()
    if context is None:
        return inputs, targets
    return sliding_windows(inputs[0], targets[0], context, max(context // 2, 1))


def validation_perplexity(
    model: nn.Module, corpus: CharacterCorpus, context: int | None = None
) -> float:
    """The perplexity of ``model`` on the validation text, every character predicted once
    (read whole, or in windows of ``context`` characters: :func:`validation_batch`)."""
    return evaluate_perplexity(model, [validation_batch(corpus, context)], next_token_nll)


def train_character_model(
    model: nn.Module,
    corpus: CharacterCorpus,
    recipe: CharacterRecipe,
    *,
    context: int | None = None,
    progress: bool = True,
) -> History:
    """Train ``model`` by the recipe with :func:`coursekit.train.fit`; the history records the
    validation perplexity of every epoch under ``metrics["perplexity"]``, computed in the same
    pass over the validation text as the validation loss (read in windows of ``context``
    characters when given: :func:`validation_batch`)."""
    seed_everything(recipe.seed)
    windows = corpus.windows(recipe.window)
    sampler = RandomSampler(
        windows,
        num_samples=recipe.windows_per_epoch,
        generator=seeded_generator(recipe.seed),
    )
    batches = DataLoader(windows, batch_size=recipe.batch_size, sampler=sampler, drop_last=True)
    return fit(
        model,
        batches,
        loss_fn=next_token_loss,
        optimizer=torch.optim.Adam(model.parameters(), lr=recipe.learning_rate),
        epochs=recipe.epochs,
        valid_batches=[validation_batch(corpus, context)],
        metrics={"perplexity": PooledMetric(next_token_nll, finish=perplexity)},
        max_grad_norm=recipe.max_grad_norm,
        progress=progress,
    )
