"""The Chapter 5 benchmark rows compare both sides before timing them: each runs at its quick
size, and refuses to time a side that computes something else (timings are never asserted)."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest
from row_checks import perturb_loader
from torch import Tensor


@pytest.fixture
def rows(import_rows: Callable[[str], ModuleType]) -> ModuleType:
    """The module ``benchmarks.transformer``."""
    return import_rows("transformer")


ROWS_AGAINST_TORCH = [
    ("multihead_attention_fused_vs_torch", "MultiHeadAttention", "fused (need_weights=False)"),
    ("multihead_attention_explicit_vs_torch", "MultiHeadAttention", "explicit (need_weights=True)"),
    ("encoder_layer_vs_torch", "TransformerEncoderLayer", "TransformerEncoderLayer fwd+bwd"),
]


@pytest.mark.parametrize(("row_name", "ours", "title"), ROWS_AGAINST_TORCH)
def test_the_rows_against_torch_run_and_refuse_other_weights(
    rows: ModuleType, monkeypatch: pytest.MonkeyPatch, row_name: str, ours: str, title: str
) -> None:
    row = getattr(rows, row_name)(quick=True)
    assert title in row.name and row.ours == f"coursekit.models.{ours}"
    assert row.reference.startswith("torch.nn.")
    perturb_loader(monkeypatch, getattr(rows, ours), "from_torch")
    with pytest.raises(AssertionError, match="Tensor-likes are not close"):
        getattr(rows, row_name)(quick=True)


def test_the_kv_cache_row_notes_the_speedup_and_refuses_a_different_generation(
    rows: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    row = rows.kv_cache_generation_vs_recomputation(quick=True)
    (note,) = row.notes
    speedup = row.reference_seconds / row.ours_seconds
    assert note == (
        f"KV cache: generating 32 tokens (one thread) is {speedup:.1f}x faster than "
        "recomputing the prefix at every step"
    )
    original = rows.PrefixRecomputingModel.forward

    def forgetting_the_first_token(
        self: object, tokens: Tensor, state: Tensor | None = None
    ) -> tuple[Tensor, Tensor]:
        logits, prefix = original(self, tokens, None if state is None else state[:, 1:])
        return logits, prefix

    monkeypatch.setattr(rows.PrefixRecomputingModel, "forward", forgetting_the_first_token)
    with pytest.raises(AssertionError, match="generation with the cache differs"):
        rows.kv_cache_generation_vs_recomputation(quick=True)
