"""Gradescope: ``coursekit autograder ch01 --out autograder.zip`` and the grading it runs there.

The zip follows Gradescope's autograder specification: at its root ``setup.sh`` (run once when
Gradescope builds the image: installs the coursekit that built the zip with the ``grade`` extra,
pinned by :func:`coursekit_requirement`, and torch's CPU build, into ``/autograder/venv``), ``run_autograder`` (run for each submission),
``autograder.json`` (the assignment, the version and the limits) and the hidden tests, if any,
in ``hidden/``. Gradescope unpacks it into ``/autograder/source``.

``run_autograder`` calls ``python -m coursekit.grading.instructor.autograder``, which grades the
notebook in ``/autograder/submission`` exactly as ``coursekit grade`` would (the same worker,
sandbox, limits and hidden tests) and writes ``/autograder/results/results.json``: the total as
``score`` and one test per question with its ``score``, ``max_score``, the feedback of the
gradebook's feedback file as ``output`` (hidden tests by number only, never their inputs) and
``visibility``. ``AUTOGRADER_ROOT`` moves ``/autograder`` elsewhere, to try the whole thing on
one's own machine. See the book's Exercises page, "From your LMS and back".
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import zipfile
from dataclasses import asdict
from importlib import metadata
from pathlib import Path
from typing import Any

from coursekit import __version__
from coursekit.grading.instructor.gradebook import (
    SubmissionGrade,
    points_text,
    question_feedback,
    write_atomically,
)
from coursekit.grading.instructor.kernel import Limits

ROOT_VARIABLE = "AUTOGRADER_ROOT"
DEFAULT_ROOT = "/autograder"
SETTINGS = "autograder.json"
HIDDEN_FOLDER = "hidden"
PACKAGE = "seqmodels-coursekit"
COURSE_REPOSITORY = "https://github.com/sequence-models-course/sequence-models"
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
#: Every question's result is shown to the student as soon as it is graded.
VISIBILITY = "visible"

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder for {assignment}: coursekit {version}
# (the version that built this zip) with its grade extra, into $ROOT/venv.
set -euo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
apt-get update
apt-get install -y --no-install-recommends python3 python3-venv
python3 -m venv "$ROOT/venv"
"$ROOT/venv/bin/python" -m pip install --extra-index-url {torch_index} "{requirement}"
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for each submission: grade $ROOT/submission/*.ipynb into
# $ROOT/results/results.json, as coursekit grade would.
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
export AUTOGRADER_ROOT="$ROOT"
cd "$ROOT"
exec "$ROOT/venv/bin/python" -m coursekit.grading.instructor.autograder
"""


def build_autograder(assignment: str, out: Path, limits: Limits, hidden: Path | None) -> None:
    """Write the autograder zip of ``assignment`` to ``out`` (see the module docstring).

    The assignment and the hidden tests are loaded first, so a mistake in either stops here,
    not on Gradescope.
    """
    from coursekit.grading.instructor.grader import Assignment

    Assignment.load(assignment, hidden)
    settings = {"assignment": assignment, "version": __version__, "limits": asdict(limits)}
    setup = SETUP_SH.format(
        assignment=assignment,
        version=__version__,
        requirement=coursekit_requirement(),
        torch_index=TORCH_CPU_INDEX,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        _add(archive, "setup.sh", setup, executable=True)
        _add(archive, "run_autograder", RUN_AUTOGRADER, executable=True)
        _add(archive, SETTINGS, json.dumps(settings, indent=1) + "\n")
        for file in sorted(hidden.glob("*.py")) if hidden is not None else []:
            _add(archive, f"{HIDDEN_FOLDER}/{file.name}", file.read_text(encoding="utf-8"))


def coursekit_requirement() -> str:
    """The pip requirement of exactly the coursekit that runs this: installed from git, the
    repository at its commit (PEP 610's ``direct_url.json``); installed from a local checkout of
    the course repository, the course repository at that checkout's commit (which must be
    pushed); otherwise this version from the package index."""
    source = json.loads(metadata.distribution(PACKAGE).read_text("direct_url.json") or "{}")
    vcs = source.get("vcs_info", {})
    if vcs.get("vcs") == "git" and "commit_id" in vcs:
        return f"{PACKAGE}[grade] @ git+{source['url']}@{vcs['commit_id']}"
    if source.get("url", "").startswith("file://"):
        checkout = source["url"].removeprefix("file://")
        commit = subprocess.run(
            ["git", "-C", checkout, "rev-parse", "HEAD"], capture_output=True, text=True
        )
        if commit.returncode == 0:
            return f"{PACKAGE}[grade] @ git+{COURSE_REPOSITORY}@{commit.stdout.strip()}"
    return f"{PACKAGE}[grade]=={__version__}"


def _add(archive: zipfile.ZipFile, name: str, text: str, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
    info.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, text)


def results_json(grade: SubmissionGrade) -> dict[str, Any]:
    """Gradescope's ``results.json`` of one graded submission."""
    summary = f"Total: {points_text(grade.total)} / {points_text(grade.possible)} points."
    summary += f" Status: {grade.status}" + (f" ({grade.reason})." if grade.reason else ".")
    return {
        "score": grade.total,
        "output": summary,
        "tests": [
            {
                "name": f"{question.question_id} {question.title}",
                "score": question.points_earned,
                "max_score": question.points_possible,
                "output": question_feedback(question),
                "visibility": VISIBILITY,
            }
            for question in grade.questions
        ],
    }


def grade_on_gradescope(root: Path) -> dict[str, Any]:
    """Grade the notebook in ``root/submission`` with the settings in ``root/source`` and write
    ``root/results/results.json``; return what was written."""
    from coursekit.grading.instructor.batch import grade_class
    from coursekit.grading.instructor.grader import Assignment
    from coursekit.grading.instructor.lms.files import OwnedFile, student_submission

    source = root / "source"
    settings = json.loads((source / SETTINGS).read_text(encoding="utf-8"))
    hidden = source / HIDDEN_FOLDER if (source / HIDDEN_FOLDER).is_dir() else None
    assignment = Assignment.load(settings["assignment"], hidden)
    files = [
        OwnedFile("submission", path.name, path)
        for path in sorted((root / "submission").glob("*"))
        if path.is_file() and not path.name.startswith(".")
    ]
    limits = Limits(**settings["limits"])
    (grade,) = grade_class(
        [student_submission("submission", files)],
        assignment,
        limits,
        hidden=hidden,
        progress=False,
    )
    results = results_json(grade)
    write_atomically(root / "results" / "results.json", json.dumps(results, indent=1) + "\n")
    return results


def main() -> int:
    """``run_autograder``'s entry point: grade under ``$AUTOGRADER_ROOT`` (``/autograder``)."""
    results = grade_on_gradescope(Path(os.environ.get(ROOT_VARIABLE, DEFAULT_ROOT)))
    print(results["output"], file=sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
