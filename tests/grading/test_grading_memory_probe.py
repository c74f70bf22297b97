"""A ``--memory`` too small for any kernel stops ``coursekit grade`` before grading, with the
measured minimum, and writes no gradebook of ``crashed`` rows."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from grading_fixtures import SUBMISSIONS

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("grade-command")]


def test_a_memory_limit_below_a_kernel_stops_before_grading(tmp_path: Path) -> None:
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "correct.ipynb").write_bytes((SUBMISSIONS / "correct.ipynb").read_bytes())
    command = [sys.executable, "-m", "coursekit.cli", "grade", "--assignment", "ch01"]
    result = subprocess.run(
        [*command, str(folder), "--memory", "300"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 1
    message = re.search(r"one needs about (\d+) MiB .* Use --memory (\d+) or more", result.stderr)
    assert message is not None, result.stderr[-2000:]
    needed, suggested = int(message[1]), int(message[2])
    assert 300 < needed < suggested
    assert "--memory 300 MiB is too small for a kernel to start here" in result.stderr
    assert not (tmp_path / "grades.csv").exists() and not (tmp_path / "feedback").exists()
