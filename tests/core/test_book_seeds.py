"""``make test-seeds``: every claim of a chapter on every seed shift, in a table."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from coursekit.book import claims_under_shift, seed_table

CHAPTER = new_notebook(
    cells=[
        new_code_cell(
            "import os\n"
            "from coursekit.verdicts import verdict\n"
            "shift = int(os.environ['COURSEKIT_SEED'])\n"
            "verdict('claim', 'a finding that holds on every seed', True)\n"
            "verdict('claim', 'a finding that fails on seed shift 1 ' + 'x' * 80, shift != 1)\n"
            "verdict('check', 'an identity', True)\n"
            "print(os.environ['COURSEKIT_PROFILE'])"
        )
    ]
)


@pytest.fixture
def chapter(tmp_path: Path) -> Path:
    path = tmp_path / "01-chapter.ipynb"
    nbformat.write(CHAPTER, path)
    return path


@pytest.mark.slow
def test_claims_are_read_per_shift_in_the_ci_profile(chapter: Path) -> None:
    claims = claims_under_shift(chapter, 1)
    long_claim = "a finding that fails on seed shift 1 " + "x" * 80
    assert claims == {"a finding that holds on every seed": True, long_claim: False}
    assert claims_under_shift(chapter, 0)[long_claim] is True


@pytest.mark.slow
def test_the_table_marks_the_failing_seed_and_the_exit_status_says_so(
    chapter: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert seed_table([chapter], [0, 1], jobs=2) == 1
    table = capsys.readouterr().out.splitlines()
    assert sorted(table[:2])[1].startswith("01-chapter.ipynb COURSEKIT_SEED=1: 2 claims, 1 failed")
    assert any(line.split()[:2] == ["True", "FALSE"] for line in table), table
    assert any(line.split()[:2] == ["True", "True"] for line in table), table
    assert table[-1] == "1 claim runs failed or missing"


@pytest.mark.slow
def test_a_chapter_that_raises_is_a_failed_claim(tmp_path: Path) -> None:
    path = tmp_path / "02-broken.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell("raise ValueError('broken here')")]), path)
    assert claims_under_shift(path, 0) == {
        "the chapter runs to the end (ValueError: broken here)": False
    }
