"""selfcheck: the exercise notebooks run top to bottom and every check reports 'not implemented'."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from coursekit.grading.instructor.selfcheck import main

ROOT = Path(__file__).resolve().parents[2]
CHECK = {"coursekit": {"question": "ch01.q4", "role": "check"}}


def write_notebook(path: Path, *sources: str, check_source: str) -> Path:
    cells = [new_code_cell(source) for source in sources]
    cells.append(new_code_cell(check_source, metadata=CHECK))
    notebook = new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(notebook, path)
    return path


@pytest.mark.slow
def test_the_repository_exercises_fail_gracefully(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(ROOT / "exercises")]) == 0
    assert "01-text.ipynb: ok" in capsys.readouterr().out


@pytest.mark.slow
def test_notebooks_that_crash_or_pass_a_check_are_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_notebook(
        tmp_path / "a-solved.ipynb",
        "from coursekit.grading import check\n\ndef bleu_score(m, t, c, r):\n"
        "    import math\n    if min(m) == 0:\n        return 0.0\n"
        "    bp = 1.0 if c > r else math.exp(1 - r / c)\n"
        "    return 100 * bp * math.exp(sum(math.log(x / y) for x, y in zip(m, t)) / 4)",
        check_source='check("ch01.q4", bleu_score)',
    )
    write_notebook(
        tmp_path / "b-crashes.ipynb",
        "from coursekit.grading import check",
        "raise ValueError('the stub ran at import time')",
        check_source='check("ch01.q4", print)',
    )
    assert main([str(tmp_path)]) == 1
    problems = capsys.readouterr().err.splitlines()
    assert problems == [
        f"{tmp_path / 'a-solved.ipynb'}: cell 1 (ch01.q4) should report 'not implemented yet', "
        "printed: ch01.q4 Corpus BLEU from its statistics: all 10 tests passed, 1/1 points",
        f"{tmp_path / 'b-crashes.ipynb'}: cell 1 raised ValueError: the stub ran at import time",
    ]


def test_a_notebook_without_check_cells_is_a_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nbformat.write(new_notebook(cells=[new_code_cell("1 + 1")]), tmp_path / "plain.ipynb")
    assert main([str(tmp_path / "plain.ipynb")]) == 1
    assert "no check cells" in capsys.readouterr().err


def test_a_folder_without_notebooks_exits_with_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(tmp_path)]) == 2
    assert "no notebooks" in capsys.readouterr().err


def test_a_kernel_that_does_not_exist_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notebook = write_notebook(tmp_path / "a.ipynb", check_source='check("ch01.q4", print)')
    assert main(["--kernel", "no-such-kernel", str(notebook)]) == 2
    assert "no kernel named 'no-such-kernel'" in capsys.readouterr().err
