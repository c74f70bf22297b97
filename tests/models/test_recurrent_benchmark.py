"""`python -m benchmarks --quick` times the recurrent rows (timings are never asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_quick_benchmark_prints_the_lstm_and_gru_rows(repo_root: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick"],
        cwd=repo_root,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    lines = result.stdout.splitlines()
    for name in ("LSTM", "GRU"):
        (row,) = [line for line in lines if line.startswith(f"{name} forward+backward, B=4 ")]
        assert f"coursekit.models.{name}" in row and f"torch.nn.{name}" in row
        assert float(row.split()[-1]) > 0
