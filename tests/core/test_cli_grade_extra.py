"""Without the ``grade`` extra, the instructor's commands say how to install it, and a student's
``check`` still works."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from coursekit.cli import GRADE_EXTRA_INSTALL, GRADE_EXTRA_PACKAGES

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def run_without(missing: Iterable[str], code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a new interpreter in which importing ``missing`` fails, as if uninstalled."""
    hide = "import sys\n" + "".join(f"sys.modules[{name!r}] = None\n" for name in missing)
    return subprocess.run(
        [sys.executable, "-c", hide + code], capture_output=True, text=True, timeout=120, cwd=cwd
    )


@pytest.mark.parametrize(
    ("missing", "arguments"),
    [
        ("nbformat", ["assign", "solutions", "exercises"]),
        ("nbformat", ["grade", "--assignment", "ch01", "submissions"]),
        ("jupyter_client", ["grade", "--validate", "solutions"]),
        ("ipykernel", ["grade", "--assignment", "ch01", "submissions"]),
    ],
)
def test_instructor_command_without_the_extra_names_the_install(
    missing: str, arguments: list[str], tmp_path: Path
) -> None:
    code = f"from coursekit.cli import main\nraise SystemExit(main({arguments!r}))"
    result = run_without([missing], code, tmp_path)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith(f"coursekit {arguments[0]}: {missing} is not installed")
    assert GRADE_EXTRA_INSTALL in result.stderr
    assert not list(tmp_path.iterdir()), "the command wrote something before failing"


def test_the_cli_asks_for_the_extra_that_holds_those_packages() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert f'pip install "{project["name"]}[grade]"' == GRADE_EXTRA_INSTALL
    extra = {Requirement(line).name for line in project["optional-dependencies"]["grade"]}
    assert {name.replace("_", "-") for name in GRADE_EXTRA_PACKAGES} == extra


STUDENT_BLEU = """
def bleu_score(matches, totals, candidate_length, reference_length):
    # a student's answer to ch01.q4 (the reference itself would be a delegation, worth 0)
    import math
    if min(matches) == 0:
        return 0.0
    brevity = min(1.0, math.exp(1 - reference_length / candidate_length))
    logs = [math.log(m / t) for m, t in zip(matches, totals)]
    return 100 * brevity * math.exp(sum(logs) / 4)
"""


def test_check_needs_no_grader_package() -> None:
    code = (
        "from coursekit.grading import check\n"
        + STUDENT_BLEU
        + 'print(check("ch01.q4", bleu_score).status)'
    )
    result = run_without(GRADE_EXTRA_PACKAGES, code, ROOT)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().splitlines()[-1] == "passed"
