"""``coursekit grade`` on a Canvas zip as downloaded, into the gradebook and Canvas's import CSV;
and the command's refusals of LMS options that cannot work."""

from __future__ import annotations

import csv
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from grading_fixtures import SUBMISSIONS

LIMITS = ["--timeout", "120", "--cell-timeout", "8", "--jobs", "2"]
ROSTER = (
    "Student,ID,SIS User ID,SIS Login ID,Section,ch01 (4242),Current Score\n"
    "    Points Possible,,,,,8,(read only)\n"
    '"Doe, John",1001,s1001,jdoe,Section A,,\n'
    '"Lee, Bea",1002,s1002,blee,Section A,,\n'
    '"Kim, Amy",1003,s1003,akim,Section B,,\n'
    '"Ng, Sam",1004,s1004,sng,Section B,,\n'
)


def run_cli(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "coursekit.cli", *arguments]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=1200)


def read_csv(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def canvas_download(path: Path) -> Path:
    """Three students: John on time, Bea late with a resubmission (the stub first, then her
    partial work), Amy with a PDF only; Sam, on the roster, submitted nothing."""
    files = {
        "doejohn_1001_5001_01-text.ipynb": SUBMISSIONS / "correct.ipynb",
        "leebea_LATE_1002_5002_01-text.ipynb": SUBMISSIONS / "stubs.ipynb",
        "leebea_LATE_1002_5002_01-text-1.ipynb": SUBMISSIONS / "partial.ipynb",
        "kimamy_1003_5003_report.pdf": SUBMISSIONS / "not-a-notebook.tex",
    }
    with zipfile.ZipFile(path, "w") as archive:
        for name, source in files.items():
            archive.writestr(name, source.read_bytes())
    return path


@pytest.mark.slow
def test_a_canvas_zip_is_graded_into_canvas_import_csv(tmp_path: Path) -> None:
    canvas_download(tmp_path / "submissions.zip")
    (tmp_path / "export.csv").write_text(ROSTER, encoding="utf-8")
    result = run_cli(
        "grade", "--assignment", "ch01", "submissions.zip", "--out", "grades.csv",
        "--lms", "canvas", "--roster", "export.csv", *LIMITS, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Canvas import: grades-canvas.csv (column 'ch01 (4242)', 4 students" in result.stdout
    assert "0 points, no submission: 1004" in result.stdout
    gradebook = read_csv(tmp_path / "grades.csv")
    assert gradebook[0][-4:] == ["total", "status", "reason", "late"]
    rows = {row[0]: row for row in gradebook[1:]}
    assert list(rows) == ["1001", "1002", "1003"]
    assert [rows[student][-4] for student in rows] == ["8", "2", "0"]  # Bea's resubmission counts
    assert [rows[student][-1] for student in rows] == ["", "yes", ""]
    assert rows["1003"][-3] == "invalid-notebook"
    assert "only report.pdf" in rows["1003"][-2]
    canvas = read_csv(tmp_path / "grades-canvas.csv")
    assert canvas == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "ch01 (4242)", "Current Score"],
        ["    Points Possible", "", "", "", "", "8", "(read only)"],
        ["Doe, John", "1001", "s1001", "jdoe", "Section A", "8", ""],
        ["Lee, Bea", "1002", "s1002", "blee", "Section A", "2", ""],
        ["Kim, Amy", "1003", "s1003", "akim", "Section B", "0", ""],
        ["Ng, Sam", "1004", "s1004", "sng", "Section B", "0", ""],
    ]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--lms", "canvas"], "--lms canvas needs --roster FILE: pass the CSV of Canvas"),
        (["--roster", "export.csv"], "--roster and --lms-column go with --lms"),
        (
            ["--lms", "canvas", "--roster", "export.csv", "--shard", "1/2"],
            "--lms goes with the whole class, not a shard",
        ),
        (["--lms", "moodle", "--roster", "export.csv"], "no 'Identifier' column"),
        (["--lms", "canvas", "--roster", "absent.csv"], "cannot read the roster absent.csv"),
    ],
)
def test_lms_options_that_cannot_work_are_refused_before_grading(
    tmp_path: Path, arguments: list[str], message: str
) -> None:
    (tmp_path / "export.csv").write_text(ROSTER, encoding="utf-8")
    (tmp_path / "amir.ipynb").write_text("{}")
    result = run_cli("grade", "--assignment", "ch01", "amir.ipynb", *arguments, cwd=tmp_path)
    assert result.returncode == 1
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "grades.csv").exists()


def test_the_lms_csv_can_be_written_when_shards_are_merged(tmp_path: Path) -> None:
    header = "student,ch01.q1,ch01.q2,ch01.q3,ch01.q4,ch01.q5,ch01.q6,total,status,reason\n"
    (tmp_path / "a.csv").write_text(header + "1001,2,1,1,1,1,2,8,ok,\n", encoding="utf-8")
    (tmp_path / "b.csv").write_text(header + "1002,2,0,0,0,0,0,2,ok,\n", encoding="utf-8")
    (tmp_path / "export.csv").write_text(ROSTER, encoding="utf-8")
    result = run_cli(
        "grade", "--merge", "a.csv", "b.csv", "--out", "grades.csv", "--assignment", "ch01",
        "--lms", "canvas", "--roster", "export.csv", cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "0 points, no submission: 1003, 1004" in result.stdout
    canvas = read_csv(tmp_path / "grades-canvas.csv")
    assert [row[5] for row in canvas[2:]] == ["8", "2", "0", "0"]


def test_an_unsafe_zip_is_refused_with_its_member_named(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "submissions.zip", "w") as archive:
        archive.writestr("../../escaped.ipynb", "{}")
    result = run_cli("grade", "--assignment", "ch01", "submissions.zip", cwd=tmp_path)
    assert result.returncode == 1
    assert "'../../escaped.ipynb' climbs out of its folder" in result.stderr
    assert not list(tmp_path.parent.rglob("escaped.ipynb"))
