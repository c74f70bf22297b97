"""The Chapter 7 benchmark rows compare both sides before timing them: each runs at its quick
size, and refuses to time a side that computes something else (timings are never asserted)."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest
import torch
from row_checks import perturb_loader
from torch import Tensor


@pytest.fixture
def rows(import_rows: Callable[[str], ModuleType]) -> ModuleType:
    """The module ``benchmarks.transformer_xl``."""
    return import_rows("transformer_xl")


def test_the_evaluation_row_notes_tokens_per_second_and_refuses_reading_without_memory(
    rows: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    row = rows.transformer_xl_evaluation_vs_window_recomputation(quick=True)
    (note,) = row.notes
    ours, reference = 1 / row.ours_seconds, 1 / row.reference_seconds
    assert note == (
        f"Transformer-XL evaluation at context 64 (one thread): {ours:.0f} tokens/s with memory "
        f"vs {reference:.1f} tokens/s recomputing the window, {ours / reference:.0f}x faster"
    )

    def forgetting_each_segment(
        model: torch.nn.Module, text: Tensor, segment: int, mems: object
    ) -> tuple[Tensor, None]:
        scores = [model(tokens, None)[0] for tokens in text.split(segment, dim=1)]
        return torch.cat(scores, dim=1), None

    monkeypatch.setattr(rows, "read_in_segments", forgetting_each_segment)
    with pytest.raises(AssertionError, match="Tensor-likes are not close"):
        rows.transformer_xl_evaluation_vs_window_recomputation(quick=True)


def test_the_xlnet_row_runs_and_refuses_other_weights(
    rows: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    row = rows.xlnet_training_step_vs_hugging_face(quick=True)
    assert row.name.startswith("XLNetLMHeadModel fwd+bwd, B=2 T=16")
    assert row.reference.startswith("transformers.XLNetLMHeadModel 5.")
    perturb_loader(monkeypatch, rows.XLNetLMHeadModel, "from_hf")
    with pytest.raises(AssertionError, match="Tensor-likes are not close"):
        rows.xlnet_training_step_vs_hugging_face(quick=True)
