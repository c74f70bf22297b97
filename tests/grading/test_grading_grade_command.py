"""``coursekit grade`` on the fixture matrix: every submission in ``fixtures/ch01`` (correct,
partial, subtly wrong, broken and hostile) must get its expected status, points and reason, and
nothing a submission does may change another row, the gradebook or the grader's machine."""

from __future__ import annotations

import csv
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from grading_fixtures import (
    EXPECTED,
    HIDDEN,
    NOTEBOOKS,
    SUBMISSIONS,
    VISIBLE_ONLY_POINTS,
    write_fixtures,
)

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("grade-command")]

QUESTIONS = [f"ch01.q{number}" for number in range(1, 7)]
PICKLE_MARKER = Path("/tmp/coursekit-grade-pickle-ran")
LIMITS = ["--timeout", "120", "--cell-timeout", "8", "--jobs", "2"]


def run_grade(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "coursekit.cli", "grade", *arguments]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=1200)


def read_rows(path: Path) -> tuple[list[str], dict[str, dict[str, str]]]:
    with path.open(newline="", encoding="utf-8") as handle:
        table = list(csv.reader(handle))
    return table[0], {row[0]: dict(zip(table[0], row, strict=True)) for row in table[1:]}


@pytest.fixture(scope="module")
def graded(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """The fixture class graded once, with hidden tests, into a fresh folder."""
    folder = tmp_path_factory.mktemp("grade")
    if PICKLE_MARKER.exists():
        PICKLE_MARKER.rmdir()
    arguments = ["--assignment", "ch01", str(SUBMISSIONS), "--hidden", str(HIDDEN)]
    result = run_grade(*arguments, "--out", "grades.csv", *LIMITS, cwd=folder)
    return result, folder


def test_the_fixture_files_are_up_to_date() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        write_fixtures(Path(scratch))
        fresh = {path.name: path.read_bytes() for path in Path(scratch).iterdir()}
    stored = {path.name: path.read_bytes() for path in SUBMISSIONS.iterdir()}
    assert fresh == stored, "run `python tests/grading/grading_fixtures.py` to rebuild them"


def test_every_fixture_has_an_expected_grade() -> None:
    assert set(EXPECTED) == set(NOTEBOOKS)


def test_the_command_finishes_and_summarises(graded) -> None:
    result, folder = graded
    assert result.returncode == 0, result.stderr[-2000:]
    assert f"graded {len(EXPECTED)} submissions of ch01" in result.stdout
    assert "grading ch01" in result.stderr  # the progress bar


def test_the_gradebook_has_one_row_per_student_in_id_order(graded) -> None:
    _, folder = graded
    header, rows = read_rows(folder / "grades.csv")
    assert header == ["student", *QUESTIONS, "total", "status", "reason"]
    assert list(rows) == sorted(EXPECTED)
    assert not list(folder.glob(".grades.csv.*")), "the temporary file of the atomic write is left"


@pytest.mark.parametrize("student", sorted(EXPECTED))
def test_each_submission_gets_its_status_points_and_reason(graded, student: str) -> None:
    _, folder = graded
    expected = EXPECTED[student]
    row = read_rows(folder / "grades.csv")[1][student]
    assert row["status"] == expected.status, row["reason"]
    assert expected.reason in row["reason"]
    points = {question: float(row[question]) for question in QUESTIONS}
    assert points == expected.question_points(), row["reason"]
    assert float(row["total"]) == expected.total


def test_hidden_tests_count_but_their_inputs_never_reach_feedback(graded) -> None:
    _, folder = graded
    feedback = (folder / "feedback" / "memorised.md").read_text(encoding="utf-8")
    hidden_lines = [line for line in feedback.splitlines() if "hidden test" in line]
    assert hidden_lines == [f"- hidden test {number} failed" for number in range(1, 5)]
    assert str(HIDDEN) not in feedback
    for path in (folder / "feedback").iterdir():
        assert str(HIDDEN) not in path.read_text(encoding="utf-8")


def test_a_submission_cannot_write_the_gradebook(graded) -> None:
    _, folder = graded
    row = read_rows(folder / "grades.csv")[1]["writes-gradebook"]
    assert row["total"] == "8"  # its own grade, not the 100 it tried to write


def test_a_pickle_from_the_kernel_is_never_unpickled(graded) -> None:
    graded  # noqa: B018 - the grading run is what might have created the marker
    assert not PICKLE_MARKER.exists()


def test_a_trailing_loop_keeps_the_answers_under_a_plausible_limit(tmp_path: Path) -> None:
    """``--timeout 60`` with the default 60 s cell limit: the cell limit is clamped so that the
    answers defined before the loop are still graded (8/8), and the summary says so."""
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "trailing-loop.ipynb").write_bytes((SUBMISSIONS / "trailing-loop.ipynb").read_bytes())
    result = run_grade("--assignment", "ch01", str(folder), "--timeout", "60", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    row = read_rows(tmp_path / "grades.csv")[1]["trailing-loop"]
    assert row["total"] == "8", row["reason"]
    assert row["status"] == "timeout" and "ran past the 45 s limit" in row["reason"]
    assert "cell limit: 45 s, not --cell-timeout 60" in result.stdout


def test_the_terminal_shows_only_the_progress_bar_and_the_summary(graded) -> None:
    result, _ = graded
    lines = [line for line in result.stderr.replace("\r", "\n").splitlines() if line.strip()]
    assert lines and all(line.startswith("grading ch01") for line in lines), lines[:5]


def test_feedback_is_one_markdown_file_per_student(graded) -> None:
    _, folder = graded
    files = sorted(path.stem for path in (folder / "feedback").glob("*.md"))
    assert files == sorted(EXPECTED)
    text = (folder / "feedback" / "subtly-wrong.md").read_text(encoding="utf-8")
    assert "**Total: 5.5 / 8 points.** Status: ok." in text
    assert (
        "- test 1 failed (`min_freq=1, specials ['<unk>']; tied counts, 'The' and 'a' among them; "
        "'<unk>' occurs 3 times in the text`): `[1]: expected 'The', got 'a' (hint: your result "
        "is the one this mistake gives: tied tokens keep the order they were first seen in"
    ) in text


def test_without_hidden_tests_only_the_visible_ones_count(tmp_path: Path) -> None:
    for student in ("correct", *VISIBLE_ONLY_POINTS):
        (tmp_path / f"{student}.ipynb").write_bytes((SUBMISSIONS / f"{student}.ipynb").read_bytes())
    result = run_grade(
        "--assignment", "ch01", str(tmp_path), "--out", "out/g.csv", *LIMITS, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr[-2000:]
    rows = read_rows(tmp_path / "out" / "g.csv")[1]
    assert (tmp_path / "out" / "feedback" / "correct.md").is_file()
    for student, points in {
        "correct": EXPECTED["correct"].question_points(),
        **VISIBLE_ONLY_POINTS,
    }.items():
        assert {question: float(rows[student][question]) for question in QUESTIONS} == points


def test_shards_partition_the_class_and_merge_back(tmp_path: Path) -> None:
    (tmp_path / "class").mkdir()
    for student in ("correct", "stubs", "empty-file", "not-utf8", "partial"):
        source = next(SUBMISSIONS.glob(f"{student}.*"))
        (tmp_path / "class" / source.name).write_bytes(source.read_bytes())
    shards = []
    for index in (1, 2):
        out = f"shard-{index}.csv"
        arguments = ["--assignment", "ch01", "class", "--out", out, "--shard", f"{index}/2"]
        result = run_grade(*arguments, *LIMITS, cwd=tmp_path)
        assert result.returncode == 0, result.stderr[-2000:]
        shards.append(tmp_path / out)
    students = [list(read_rows(shard)[1]) for shard in shards]
    assert students == [["correct", "not-utf8", "stubs"], ["empty-file", "partial"]]
    merged = run_grade("--merge", *map(str, shards), "--out", "all.csv", cwd=tmp_path)
    assert merged.returncode == 0, merged.stderr
    header, rows = read_rows(tmp_path / "all.csv")
    assert list(rows) == sorted(["correct", "stubs", "empty-file", "not-utf8", "partial"])
    assert rows["partial"]["total"] == "2"
    again = run_grade("--merge", str(shards[0]), str(shards[0]), "--out", "twice.csv", cwd=tmp_path)
    assert again.returncode == 1
    assert "appears in more than one input" in again.stderr


def test_the_gradebook_and_feedback_are_never_graded_as_submissions(tmp_path: Path) -> None:
    (tmp_path / "correct.ipynb").write_bytes((SUBMISSIONS / "correct.ipynb").read_bytes())
    for _ in range(2):  # the second run finds the first run's CSV and feedback beside the notebook
        result = run_grade(
            "--assignment", "ch01", ".", "--out", "grades.csv", *LIMITS, cwd=tmp_path
        )
        assert result.returncode == 0, result.stderr[-2000:]
    assert list(read_rows(tmp_path / "grades.csv")[1]) == ["correct"]
