"""`python -m benchmarks --quick` runs once and prints every row (timings are never asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def quick_table(repo_root: Path) -> list[str]:
    """The lines printed by one quick run of every benchmark row."""
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick"],
        cwd=repo_root,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return result.stdout.splitlines()


def test_the_benchmark_table_prints_the_bleu_row(quick_table: list[str]) -> None:
    header, rule, row, *_ = quick_table
    assert header.split()[:3] == ["benchmark", "ours", "reference"]
    assert set(rule.replace(" ", "")) == {"-"}
    assert row.startswith("corpus BLEU, 200 sentences x 2 references")
    assert float(row.split()[-1]) > 0


def test_quick_benchmark_prints_the_lstm_and_gru_rows(quick_table: list[str]) -> None:
    for name in ("LSTM", "GRU"):
        (row,) = [line for line in quick_table if line.startswith(f"{name} forward+backward, B=4 ")]
        assert f"coursekit.models.{name}" in row and f"torch.nn.{name}" in row
        assert float(row.split()[-1]) > 0


def test_quick_benchmark_prints_the_grading_row_and_its_throughput(quick_table: list[str]) -> None:
    (row,) = [line for line in quick_table if line.startswith("grade 4 copies of the ch01")]
    assert "coursekit grade" in row and "nbclient, execute only" in row
    assert float(row.split()[-1]) > 0
    (note,) = [line for line in quick_table if line.startswith("coursekit grade: ")]
    assert "submissions per minute with --jobs 2" in note
