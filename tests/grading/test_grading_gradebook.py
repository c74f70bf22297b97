"""The gradebook CSV, its merge across shards, and the feedback files."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from coursekit.grading.instructor.gradebook import (
    QuestionGrade,
    SubmissionGrade,
    feedback_markdown,
    merge_gradebooks,
    write_feedback,
    write_gradebook,
)
from coursekit.grading.results import CaseResult

IDS = ["ch01.q1", "ch01.q2"]


def grade(
    student: str, first: float = 2.0, status: str = "ok", reason: str = ""
) -> SubmissionGrade:
    tests = (
        CaseResult(1, "two sentences", "passed"),
        CaseResult(2, "padding `id` 0", "failed", "[1]: expected 'a', got 'b'"),
        CaseResult(1, "", "failed", hidden=True),
    )
    questions = (
        QuestionGrade("ch01.q1", "Build a vocabulary", 2, first, "", tests),
        QuestionGrade("ch01.q2", "Pad a batch", 2, 0, "missing: pad_and_mask is not defined"),
    )
    return SubmissionGrade(student, f"{student}.ipynb", status, reason, questions)  # type: ignore[arg-type]


def rows(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def test_the_csv_has_a_stable_order_and_every_column(tmp_path: Path) -> None:
    grades = [grade("zoe", 0.67), grade("amir", status="error", reason='cell 3 raised "X", really')]
    write_gradebook(grades, IDS, tmp_path / "grades.csv")
    assert rows(tmp_path / "grades.csv") == [
        ["student", "ch01.q1", "ch01.q2", "total", "status", "reason"],
        ["amir", "2", "0", "2", "error", 'cell 3 raised "X", really'],
        ["zoe", "0.67", "0", "0.67", "ok", ""],
    ]
    assert [path.name for path in tmp_path.iterdir()] == ["grades.csv"]


def test_an_interrupted_write_leaves_the_old_gradebook(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "grades.csv"
    write_gradebook([grade("amir")], IDS, path)
    before = path.read_bytes()

    def fail(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("coursekit.grading.instructor.gradebook.os.replace", fail)
    with pytest.raises(OSError, match="disk full"):
        write_gradebook([grade("amir", 0)], IDS, path)
    assert path.read_bytes() == before
    assert [item.name for item in tmp_path.iterdir()] == ["grades.csv"]


def test_merge_joins_shards_in_id_order_and_refuses_overlaps(tmp_path: Path) -> None:
    write_gradebook([grade("carol"), grade("amir")], IDS, tmp_path / "a.csv")
    write_gradebook([grade("bea", 1)], IDS, tmp_path / "b.csv")
    assert merge_gradebooks([tmp_path / "a.csv", tmp_path / "b.csv"], tmp_path / "all.csv") == 3
    assert [row[0] for row in rows(tmp_path / "all.csv")] == ["student", "amir", "bea", "carol"]
    with pytest.raises(ValueError, match="more than one input"):
        merge_gradebooks([tmp_path / "a.csv", tmp_path / "a.csv"], tmp_path / "x.csv")
    write_gradebook([grade("dan")], ["ch01.q1"], tmp_path / "other.csv")
    with pytest.raises(ValueError, match="other columns"):
        merge_gradebooks([tmp_path / "a.csv", tmp_path / "other.csv"], tmp_path / "x.csv")


def test_feedback_lists_failures_hides_hidden_tests_and_cannot_be_formatted_by_messages() -> None:
    text = feedback_markdown(grade("amir", 0.67), "ch01")
    assert text.startswith("# ch01: feedback for amir\n\n**Total: 0.67 / 4 points.** Status: ok.")
    assert "| ch01.q1 Build a vocabulary | 0.67 / 2 |" in text
    assert "- test 2 failed (`padding 'id' 0`): `[1]: expected 'a', got 'b'`" in text
    assert "- hidden test 1 failed\n" in text
    assert "0 / 2 points: `missing: pad_and_mask is not defined`" in text
    assert "test 1 passed" not in text


def test_a_stub_is_reported_once_not_test_by_test() -> None:
    stub = QuestionGrade("ch01.q1", "Build", 2, 0, "", (CaseResult(1, "", "not implemented"),) * 3)
    text = feedback_markdown(SubmissionGrade("amir", "amir.ipynb", "ok", "", (stub,)), "ch01")
    assert "0 / 2 points: not implemented yet." in text
    assert "test 1" not in text


def test_one_feedback_file_per_student_and_grades_survive_json(tmp_path: Path) -> None:
    grades = [grade("amir"), grade("bea", 1)]
    write_feedback(grades, "ch01", tmp_path / "feedback")
    assert sorted(path.name for path in (tmp_path / "feedback").iterdir()) == ["amir.md", "bea.md"]
    assert [SubmissionGrade.from_json(item.to_json()) for item in grades] == grades
