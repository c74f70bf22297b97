"""The Chapter 6 benchmark rows compare both sides before timing them: each runs at its quick
size and refuses to time a side that computes something else (timings are never asserted); a
missing reference library gives a skipped row with a note instead of an error."""

from __future__ import annotations

import math
from collections.abc import Callable
from types import ModuleType

import pytest
from row_checks import perturb_loader

from coursekit.text import WordPieceTokenizer

transformers = pytest.importorskip("transformers")
pytest.importorskip("tokenizers")


@pytest.fixture
def rows(import_rows: Callable[[str], ModuleType]) -> ModuleType:
    """The module ``benchmarks.bert``."""
    return import_rows("bert")


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
def test_the_model_rows_run_and_refuse_other_weights(
    rows: ModuleType, monkeypatch: pytest.MonkeyPatch, attention: str
) -> None:
    row = getattr(rows, f"bert_model_vs_transformers_{attention}")(quick=True)
    assert row.name.startswith(f"BertModel fwd+bwd, {attention} attention, B=2 T=16")
    assert row.reference == f"transformers.BertModel {transformers.__version__} ({attention})"
    assert math.isfinite(row.ratio)
    perturb_loader(monkeypatch, rows.BertModel, "from_hf")
    with pytest.raises(AssertionError, match="Tensor-likes are not close"):
        getattr(rows, f"bert_model_vs_transformers_{attention}")(quick=True)


def test_the_wordpiece_row_runs_and_refuses_other_ids(
    rows: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    row = rows.wordpiece_vs_tokenizers(quick=True)
    assert row.name.startswith("WordPiece encode, 40 docs_corpus paragraphs")
    assert math.isfinite(row.ratio)
    monkeypatch.setattr(rows, "WordPieceTokenizer", lambda vocab: WordPieceTokenizer(vocab, False))
    with pytest.raises(AssertionError, match="ids differ from tokenizers'"):
        rows.wordpiece_vs_tokenizers(quick=True)


def test_a_missing_reference_library_skips_the_row_with_a_note(
    rows: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rows.importlib.util, "find_spec", lambda name: None)
    row = rows.wordpiece_vs_tokenizers(quick=True)
    assert row.name == "WordPiece encode (skipped)" and math.isnan(row.ratio)
    assert row.notes == (
        "WordPiece encode: skipped, tokenizers is not installed (pip install tokenizers; dev extra)",
    )
    assert (
        rows.bert_model_vs_transformers_eager(quick=True).reference == "transformers not installed"
    )
