"""coursekit.generate drives Transformer-XL with its memories as the state: each new token is
read once, and the scores equal those of the same model re-reading the whole prefix without
memory, as long as the memory covers the prefix.
"""

from __future__ import annotations

import pytest
import torch
from torch import Tensor, nn

from coursekit.generate import generate
from coursekit.models.transformer_xl.model import TransfoXLLMHeadModel

VOCAB = 13


class PrefixRereading(nn.Module):
    """Our model without memory: its state is the prefix, re-read whole at every call."""

    def __init__(self, model: TransfoXLLMHeadModel) -> None:
        super().__init__()
        self.model = model

    def forward(self, tokens: Tensor, prefix: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """Scores of the new tokens computed from the whole prefix; the prefix as the state."""
        prefix = tokens if prefix is None else torch.cat([prefix, tokens], dim=1)
        return self.model(prefix).prediction_scores[:, -tokens.shape[1] :], prefix


def language_model(mem_len: int, seed: int = 0) -> TransfoXLLMHeadModel:
    """A small float64 Transformer-XL language model with dropout off."""
    torch.manual_seed(seed)
    model = TransfoXLLMHeadModel(
        VOCAB, d_model=8, n_head=2, d_head=4, d_inner=16, n_layer=2, mem_len=mem_len,
        dropout=0.0,
    )  # fmt: skip
    return model.double()


@pytest.mark.parametrize("seed", range(4))
def test_generating_with_memories_equals_rereading_the_prefix(seed: int) -> None:
    prompt, new = [1, 5, 2, 7], 10
    model = language_model(mem_len=len(prompt) + new, seed=seed)
    greedy = generate(model, prompt, new, temperature=0)
    assert generate(PrefixRereading(model), prompt, new, temperature=0) == greedy
    sampled = [
        generate(m, prompt, new, top_k=5, generator=torch.Generator().manual_seed(seed))
        for m in (model, PrefixRereading(model))
    ]
    assert sampled[0] == sampled[1]


def test_each_step_reads_one_token_and_gets_the_scores_of_the_whole_text() -> None:
    model = language_model(mem_len=12).eval()
    text = torch.randint(0, VOCAB, (1, 12))
    whole = model(text).prediction_scores
    scores, mems = model(text[:, :4])
    steps = [scores]
    for position in range(4, 12):
        scores, mems = model(text[:, position : position + 1], mems)
        steps.append(scores)
    torch.testing.assert_close(torch.cat(steps, dim=1), whole)
    assert mems[0].shape == (1, 12, 8)


def test_a_memory_shorter_than_the_text_forgets_the_start() -> None:
    model = language_model(mem_len=3).eval()
    text = torch.randint(0, VOCAB, (1, 8))
    scores, mems = model(text[:, :4])
    for position in range(4, 8):
        scores, mems = model(text[:, position : position + 1], mems)
    assert mems[0].shape == (1, 3, 8)
    assert not torch.allclose(scores[0, -1], model(text).prediction_scores[0, -1])
