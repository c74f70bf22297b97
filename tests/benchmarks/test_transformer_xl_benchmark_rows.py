"""The Chapter 7 benchmark rows run at quick sizes: each checks that both sides agree before it
times them, and reports positive times (timings themselves are never asserted).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import pytest


@pytest.fixture
def rows(repo_root: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The module ``benchmarks.transformer_xl``, imported from the repository's top folder."""
    monkeypatch.syspath_prepend(str(repo_root))
    return importlib.import_module("benchmarks.transformer_xl")


def test_the_evaluation_row_reports_tokens_per_second_both_ways(rows: ModuleType) -> None:
    row = rows.transformer_xl_evaluation_vs_window_recomputation(quick=True)
    assert row.name.startswith("Transformer-XL evaluation, context 64")
    assert row.ours_seconds > 0 and row.reference_seconds > 0
    (note,) = row.notes
    assert note.startswith("Transformer-XL evaluation at context 64 (one thread): ")
    assert "tokens/s with memory vs" in note and note.endswith("x faster")


def test_the_xlnet_row_times_both_training_steps(rows: ModuleType) -> None:
    row = rows.xlnet_training_step_vs_hugging_face(quick=True)
    assert row.name.startswith("XLNetLMHeadModel fwd+bwd, B=2 T=16")
    assert row.reference.startswith("transformers.XLNetLMHeadModel 5.")
    assert row.ours_seconds > 0 and row.reference_seconds > 0
