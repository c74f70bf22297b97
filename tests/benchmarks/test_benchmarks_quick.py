"""`python -m benchmarks --quick` runs and prints the BLEU row (timings are never asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_the_benchmark_table_prints_the_bleu_row(repo_root: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick"],
        cwd=repo_root,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    header, rule, row, *_ = result.stdout.splitlines()
    assert header.split()[:3] == ["benchmark", "ours", "reference"]
    assert set(rule.replace(" ", "")) == {"-"}
    assert row.startswith("corpus BLEU, 200 sentences x 2 references")
    assert float(row.split()[-1]) > 0
