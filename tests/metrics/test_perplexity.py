"""Perplexity: exp of the mean token NLL, evaluated in eval mode without gradients."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from coursekit.metrics import evaluate_perplexity, perplexity, perplexity_from_losses, token_nll

PAD = 0


class UniformLM(nn.Module):
    """Predicts every word of the vocabulary with probability 1 / V."""

    def __init__(self, vocab_size: int) -> None:
        super().__init__()
        self.vocab_size = vocab_size
        self.unused = nn.Linear(1, 1)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return torch.zeros(*tokens.shape, self.vocab_size)


class EmbeddingLM(nn.Module):
    """A bigram language model with dropout, so eval mode changes its output."""

    def __init__(self, vocab_size: int = 11, dim: int = 8) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        self.dropout = nn.Dropout(0.5)
        self.out = nn.Linear(dim, vocab_size)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.out(self.dropout(self.embed(tokens)))


def lm_nll(model: nn.Module, batch: tuple[torch.Tensor, torch.Tensor]) -> tuple[torch.Tensor, int]:
    inputs, targets = batch
    return token_nll(model(inputs), targets, ignore_index=PAD)


def test_a_uniform_model_has_the_vocabulary_size_as_perplexity() -> None:
    vocab_size = 37
    generator = torch.Generator().manual_seed(0)
    batches = [
        (torch.randint(vocab_size, (4, 9), generator=generator),) * 2,
        (torch.randint(vocab_size, (2, 5), generator=generator),) * 2,
    ]
    model = UniformLM(vocab_size)
    assert evaluate_perplexity(model, batches, lm_nll) == pytest.approx(vocab_size, rel=1e-6)


def test_equals_exp_of_cross_entropy_on_random_data() -> None:
    generator = torch.Generator().manual_seed(1)
    logits = torch.randn(6, 10, 50, generator=generator, dtype=torch.float64)
    targets = torch.randint(50, (6, 10), generator=generator)
    expected = math.exp(F.cross_entropy(logits.reshape(-1, 50), targets.reshape(-1)).item())
    losses = F.cross_entropy(logits.reshape(-1, 50), targets.reshape(-1), reduction="none")
    assert perplexity_from_losses(losses) == pytest.approx(expected, rel=1e-12)
    assert perplexity_from_losses(losses.tolist()) == pytest.approx(expected, rel=1e-12)
    assert perplexity(*token_nll(logits, targets)) == pytest.approx(expected, rel=1e-12)


def test_tokens_count_equally_across_batches_of_different_sizes() -> None:
    torch.manual_seed(2)
    model = EmbeddingLM()
    batches = [
        (torch.randint(1, 11, (5, 7)), torch.randint(1, 11, (5, 7))),
        (torch.randint(1, 11, (1, 3)), torch.randint(1, 11, (1, 3))),
    ]
    with torch.no_grad():
        model.eval()
        logits = torch.cat([model(x).reshape(-1, 11) for x, _ in batches])
        targets = torch.cat([y.reshape(-1) for _, y in batches])
        expected = math.exp(F.cross_entropy(logits, targets).item())
        model.train()
    assert evaluate_perplexity(model, batches, lm_nll) == pytest.approx(expected, rel=1e-6)


def test_padding_is_excluded_with_ignore_index() -> None:
    torch.manual_seed(3)
    model = EmbeddingLM().eval()
    inputs = torch.randint(1, 11, (3, 6))
    targets = torch.randint(1, 11, (3, 6))
    targets[0, 4:] = PAD
    targets[2, 1:] = PAD
    real = targets != PAD
    with torch.no_grad():
        expected = math.exp(F.cross_entropy(model(inputs)[real], targets[real]).item())
        unmasked = math.exp(
            F.cross_entropy(model(inputs).reshape(-1, 11), targets.reshape(-1)).item()
        )
    assert evaluate_perplexity(model, [(inputs, targets)], lm_nll) == pytest.approx(
        expected, rel=1e-6
    )
    assert unmasked != pytest.approx(expected, rel=1e-3)  # the padding would have mattered
    assert token_nll(model(inputs), targets, ignore_index=PAD)[1] == int(real.sum())


def test_runs_in_eval_mode_without_gradients_and_restores_the_mode() -> None:
    model = EmbeddingLM()
    model.train()
    model.out.eval()  # a mixed state must come back as it was
    seen = []

    def nll_fn(
        model: nn.Module, batch: tuple[torch.Tensor, torch.Tensor]
    ) -> tuple[torch.Tensor, int]:
        seen.append((model.training, model.dropout.training, torch.is_grad_enabled()))
        return lm_nll(model, batch)

    batch = (torch.randint(1, 11, (2, 4)), torch.randint(1, 11, (2, 4)))
    first = evaluate_perplexity(model, [batch], nll_fn)
    second = evaluate_perplexity(model, [batch], nll_fn)
    assert first == second  # dropout is off
    assert seen == [(False, False, False)] * 2
    assert model.training and model.dropout.training and not model.out.training


def test_batches_are_moved_to_the_device() -> None:
    # "meta" tensors have no data: a batch reaches the meta device only if it is moved there.
    devices = []

    def nll_fn(model: nn.Module, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, int]:
        devices.append(batch["tokens"].device)
        return torch.tensor(6.0), batch["tokens"].numel()

    batch = {"tokens": torch.ones(2, 3, dtype=torch.long)}
    value = evaluate_perplexity(EmbeddingLM(), [batch], nll_fn, device="meta")
    assert devices == [torch.device("meta")]
    assert value == pytest.approx(math.exp(1.0))
    evaluate_perplexity(EmbeddingLM().to("meta"), [batch], nll_fn)  # default: the model's device
    assert devices[-1] == torch.device("meta")
    assert batch["tokens"].device == torch.device("cpu")  # the caller's batch is left alone


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="at least one token"):
        perplexity(3.0, 0)
    with pytest.raises(ValueError, match="pass -log p, not log p"):
        perplexity(-3.0, 2)
    with pytest.raises(ValueError, match="at least one token"):
        evaluate_perplexity(EmbeddingLM(), [], lm_nll)
    with pytest.raises(ValueError, match="need targets of shape"):
        token_nll(torch.zeros(2, 3, 5), torch.zeros(2, 4, dtype=torch.long))


def test_overflow_gives_infinity() -> None:
    assert perplexity(1e6, 1) == math.inf
    assert perplexity(torch.tensor(2.0), 2) == pytest.approx(math.e)
