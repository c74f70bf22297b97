"""The Chapter 5 benchmark rows run at quick sizes: each checks that both sides agree before it
times them, and reports positive times (timings themselves are never asserted).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import pytest


@pytest.fixture
def rows(repo_root: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The module ``benchmarks.transformer``, imported from the repository's top folder."""
    monkeypatch.syspath_prepend(str(repo_root))
    return importlib.import_module("benchmarks.transformer")


@pytest.mark.parametrize(
    "row_name, title",
    [
        ("multihead_attention_fused_vs_torch", "MultiHeadAttention fused (need_weights=False)"),
        (
            "multihead_attention_explicit_vs_torch",
            "MultiHeadAttention explicit (need_weights=True)",
        ),
        ("encoder_layer_vs_torch", "TransformerEncoderLayer fwd+bwd, B=4 T=16"),
    ],
)
def test_the_rows_against_torch_run_at_quick_sizes(
    rows: ModuleType, row_name: str, title: str
) -> None:
    row = getattr(rows, row_name)(quick=True)
    assert row.name.startswith(title) and "torch.nn." in row.reference
    assert row.ours_seconds > 0 and row.reference_seconds > 0


def test_the_kv_cache_row_checks_both_generations_agree_and_notes_the_speedup(
    rows: ModuleType,
) -> None:
    row = rows.kv_cache_generation_vs_recomputation(quick=True)
    assert row.name.startswith("generate 32 tokens") and row.ratio > 0
    (note,) = row.notes
    assert note.startswith("KV cache: generating 32 tokens (one thread) is ")
