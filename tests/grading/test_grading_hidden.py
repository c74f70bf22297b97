"""Hidden tests: loading them from an instructor's folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from coursekit.grading import Case, UnknownQuestionError
from coursekit.grading.instructor.hidden import HiddenTestError, hidden_cases, load_hidden_cases

HIDDEN_FILE = """
from coursekit.grading import Case
from coursekit.grading.instructor.hidden import hidden_cases


@hidden_cases("ch01.q4")
def long_ones(rng):
    for _ in range(3):
        yield Case((rng.randint(50, 99), 40))


@hidden_cases("ch02.q1")
def another_chapter(rng):
    yield Case((1,))
"""


def test_cases_are_loaded_per_question_and_drawn_the_same_every_time(tmp_path: Path) -> None:
    (tmp_path / "ch01.py").write_text(HIDDEN_FILE)
    first = load_hidden_cases(tmp_path, ["ch01.q1", "ch01.q4"])
    assert first["ch01.q1"] == []
    assert len(first["ch01.q4"]) == 3
    assert all(isinstance(case, Case) and 50 <= case.args[0] <= 99 for case in first["ch01.q4"])
    assert load_hidden_cases(tmp_path, ["ch01.q1", "ch01.q4"]) == first
    assert "ch02.q1" not in first


def test_an_instructor_mistake_stops_grading_with_the_file_named(tmp_path: Path) -> None:
    with pytest.raises(HiddenTestError, match="does not exist"):
        load_hidden_cases(tmp_path / "absent", ["ch01.q1"])
    (tmp_path / "broken.py").write_text("def oops(:\n")
    with pytest.raises(HiddenTestError, match=r"broken\.py failed to run: SyntaxError"):
        load_hidden_cases(tmp_path, ["ch01.q1"])
    (tmp_path / "broken.py").write_text(
        "from coursekit.grading.instructor.hidden import hidden_cases\n"
        "@hidden_cases('ch01.q1')\ndef cases(rng):\n    yield (1, 2)\n"
    )
    with pytest.raises(HiddenTestError, match="yielded a tuple"):
        load_hidden_cases(tmp_path, ["ch01.q1"])


def test_marking_an_unknown_question_fails_at_once() -> None:
    with pytest.raises(UnknownQuestionError):
        hidden_cases("ch01.q99")
