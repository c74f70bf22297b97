"""Every registered benchmark row runs at its quick size, compares its two sides before timing
them, and renders in the table with a finite ratio (timings themselves are never asserted).

The grading row executes notebooks in Jupyter kernels for minutes: it stays out of the unit
suite, and ``make benchmark`` runs it with the others.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from types import ModuleType

import pytest
from row_checks import perturb_loader
from torch import Tensor

OUT_OF_THE_UNIT_SUITE = {"grading_throughput"}


def test_every_row_renders_with_a_finite_ratio(
    import_rows: Callable[[str], ModuleType],
) -> None:
    main = import_rows("__main__")
    registry = import_rows("registry")
    main.load_benchmark_modules()
    names = [row.__name__ for row in registry.BENCHMARKS]
    assert set(names) >= OUT_OF_THE_UNIT_SUITE  # the exclusion names real rows
    assert len(names) == len(set(names)) >= 10
    rows = [row(True) for row in registry.BENCHMARKS if row.__name__ not in OUT_OF_THE_UNIT_SUITE]
    header, rule, *lines = registry.render_table(rows).splitlines()
    assert header.split()[:3] == ["benchmark", "ours", "reference"]
    assert set(rule.replace(" ", "")) == {"-"}
    assert len(lines) == len(rows)
    for row, line in zip(rows, lines, strict=True):
        assert line.startswith(row.name) and row.ours in line and row.reference in line
        assert math.isfinite(row.ratio) and row.ratio > 0
        assert line.split()[-1] == f"{row.ratio:.2f}"
    titles = [row.name for row in rows]
    assert any(title.startswith("corpus BLEU, 200 sentences x 2 references") for title in titles)
    for name in ("LSTM", "GRU"):
        assert any(title.startswith(f"{name} forward+backward, B=4 ") for title in titles)


def test_the_bleu_row_refuses_a_score_that_differs_from_sacrebleu(
    import_rows: Callable[[str], ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = import_rows("bleu")
    original = rows.corpus_bleu

    def missing_the_last_sentence(hypotheses: list[str], references: list[list[str]]) -> object:
        return original(hypotheses[:-1], [stream[:-1] for stream in references])

    monkeypatch.setattr(rows, "corpus_bleu", missing_the_last_sentence)
    with pytest.raises(AssertionError, match="BLEU differs"):
        rows.corpus_bleu_vs_sacrebleu(quick=True)


@pytest.mark.parametrize("network", ["LSTM", "GRU"])
def test_the_recurrent_rows_refuse_weights_that_differ(
    import_rows: Callable[[str], ModuleType], monkeypatch: pytest.MonkeyPatch, network: str
) -> None:
    rows = import_rows("recurrent")
    perturb_loader(monkeypatch, getattr(rows, network), "from_torch")
    with pytest.raises(AssertionError, match="Tensor-likes are not close"):
        rows.recurrent_row(getattr(rows, network), quick=True)


def test_the_attention_row_refuses_scores_without_the_scaling(
    import_rows: Callable[[str], ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = import_rows("scaled_attention")

    class Unscaled(rows.ScaledDotAttention):  # type: ignore[misc, name-defined]
        def score(self, queries: Tensor, keys: Tensor) -> Tensor:
            return queries @ keys.transpose(-2, -1)  # the classic mistake: no 1 / sqrt(d_k)

    monkeypatch.setattr(rows, "ScaledDotAttention", Unscaled)
    with pytest.raises(AssertionError, match="Tensor-likes are not close"):
        rows.scaled_dot_attention_vs_torch(quick=True)


def test_the_search_row_refuses_a_beam_of_one_that_is_not_greedy(
    import_rows: Callable[[str], ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = import_rows("search")
    original = rows.greedy_decode

    def one_step_short(step: object, state: object, bos: Tensor, eos: int, steps: int) -> object:
        return original(step, state, bos, eos, steps - 1)

    monkeypatch.setattr(rows, "greedy_decode", one_step_short)
    with pytest.raises(AssertionError, match="one beam differs from greedy decoding"):
        rows.beam_search_vs_greedy(quick=True)
