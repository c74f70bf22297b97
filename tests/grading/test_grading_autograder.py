"""Gradescope: the autograder zip, run end to end in a temporary ``AUTOGRADER_ROOT`` on a correct,
a partial and a hostile submission, with the hidden tests of the fixtures."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from grading_fixtures import HIDDEN, SUBMISSIONS, solution

from coursekit import __version__
from coursekit.grading.instructor.autograder import coursekit_requirement

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("grade-command")]

QUESTIONS = [f"ch01.q{number}" for number in range(1, 7)]
#: Tries to give itself full marks by writing Gradescope's results, then to read the hidden tests.
HOSTILE_WRITER = """import json, os, pathlib
root = pathlib.Path(os.environ.get("AUTOGRADER_ROOT", "/autograder"))
(root / "results" / "results.json").write_text(json.dumps({"score": 100}))
"""
HOSTILE_READER = """import os, pathlib
root = pathlib.Path(os.environ.get("AUTOGRADER_ROOT", "/autograder"))
print((root / "source" / "hidden" / "ch01.py").read_text())
"""


def build(tmp_path: Path) -> Path:
    out = tmp_path / "autograder.zip"
    command = [sys.executable, "-m", "coursekit.cli", "autograder", "ch01", "--out", str(out)]
    limits = ["--timeout", "120", "--cell-timeout", "8", "--hidden", str(HIDDEN)]
    result = subprocess.run([*command, *limits], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return out


def run_on_gradescope(zip_path: Path, root: Path, notebook: bytes) -> dict:
    """Lay out ``root`` as Gradescope does (the zip in source/, run_autograder beside it, the
    venv setup.sh would make, the submission), run run_autograder and read results.json."""
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(root / "source")
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    (root / "run_autograder").chmod(0o755)
    (root / "venv").symlink_to(Path(sys.prefix))
    (root / "submission").mkdir()
    (root / "results").mkdir()
    (root / "submission" / "01-text.ipynb").write_bytes(notebook)
    environment = {**os.environ, "AUTOGRADER_ROOT": str(root)}
    result = subprocess.run(
        [str(root / "run_autograder")], env=environment, capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def autograder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("build"))


def test_the_zip_follows_gradescopes_layout_and_pins_this_version(autograder: Path) -> None:
    with zipfile.ZipFile(autograder) as archive:
        names = sorted(archive.namelist())
        setup = archive.read("setup.sh").decode()
        modes = {info.filename: info.external_attr >> 16 for info in archive.infolist()}
        settings = json.loads(archive.read("autograder.json"))
    assert names == ["autograder.json", "hidden/ch01.py", "run_autograder", "setup.sh"]
    assert f'"{coursekit_requirement()}"' in setup
    assert modes["setup.sh"] & 0o111 and modes["run_autograder"] & 0o111
    assert settings == {
        "assignment": "ch01",
        "version": __version__,
        "limits": {"timeout": 120, "cell_timeout": 8, "memory_mb": 4096, "max_output_bytes": 10**6},
    }


def test_a_correct_submission_gets_full_marks(autograder: Path, tmp_path: Path) -> None:
    results = run_on_gradescope(autograder, tmp_path, (SUBMISSIONS / "correct.ipynb").read_bytes())
    assert results["score"] == 8
    assert [test["name"].split()[0] for test in results["tests"]] == QUESTIONS
    assert all(test["score"] == test["max_score"] for test in results["tests"])
    assert {test["visibility"] for test in results["tests"]} == {"visible"}
    assert results["output"] == "Total: 8 / 8 points. Status: ok."


def test_a_partial_submission_gets_its_points_and_feedback(
    autograder: Path, tmp_path: Path
) -> None:
    results = run_on_gradescope(autograder, tmp_path, (SUBMISSIONS / "partial.ipynb").read_bytes())
    assert results["score"] == 2
    tests = {test["name"].split()[0]: test for test in results["tests"]}
    assert (tests["ch01.q1"]["score"], tests["ch01.q1"]["max_score"]) == (2, 2)
    assert tests["ch01.q2"]["score"] == 0
    assert tests["ch01.q2"]["output"] == "0 / 1 points: not implemented yet."
    assert "tests passed" in tests["ch01.q1"]["output"]


def test_a_hostile_submission_cannot_write_its_results_or_read_hidden_tests(
    autograder: Path, tmp_path: Path
) -> None:
    notebook = solution()
    for source in (HOSTILE_READER, HOSTILE_WRITER):
        notebook.cells.insert(4, nbformat.v4.new_code_cell(source))
    results = run_on_gradescope(autograder, tmp_path, nbformat.writes(notebook).encode())
    assert results["score"] == 8  # its own answers' points, not the 100 it wrote
    assert "does not allow writing outside the submission's folder" in results["output"]
    assert "cell 5 " in results["output"]  # the writer, the first problem of the notebook
    text = json.dumps(results)
    assert "unseen_statistics" not in text and "rng.randint" not in text
    hidden_lines = [line for test in results["tests"] for line in test["output"].splitlines()]
    assert not any("hidden test" in line and "(" in line for line in hidden_lines)
