"""Finding a class's submissions and reading each one without trusting it."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from coursekit.grading.instructor.submissions import (
    InvalidNotebook,
    Submission,
    find_submissions,
    read_notebook,
    student_id,
)

IDS = ["ch01.q1", "ch01.q2"]


def notebook_text(*questions: str, code: str = "x = 1") -> str:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(code)]
    for question in questions:
        cell = nbformat.v4.new_code_cell("def f(): pass")
        cell.metadata["coursekit"] = {"question": question, "role": "answer"}
        notebook.cells.append(cell)
    return nbformat.writes(notebook)


def test_files_folders_and_student_folders(tmp_path: Path) -> None:
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "bea.ipynb").write_text(notebook_text())
    (tmp_path / "class" / ".DS_Store").write_text("")
    (tmp_path / "class" / "carl").mkdir()
    (tmp_path / "class" / "carl" / "01-text.ipynb").write_text(notebook_text())
    (tmp_path / "class" / "dana").mkdir()
    (tmp_path / "class" / "eve").mkdir()
    for name in ("a.ipynb", "b.ipynb"):
        (tmp_path / "class" / "eve" / name).write_text(notebook_text())
    (tmp_path / "amir smith.ipynb").write_text(notebook_text())
    found = find_submissions([tmp_path / "class", tmp_path / "amir smith.ipynb"])
    assert found == [
        Submission("amir_smith", tmp_path / "amir smith.ipynb"),
        Submission("bea", tmp_path / "class" / "bea.ipynb"),
        Submission("carl", tmp_path / "class" / "carl" / "01-text.ipynb"),
        Submission("dana", None, "the folder holds no notebook"),
        Submission("eve", None, "the folder holds 2 notebooks"),
    ]
    assert found[3].source == "dana"


def test_two_submissions_of_one_student_are_an_error(tmp_path: Path) -> None:
    (tmp_path / "amir.ipynb").write_text(notebook_text())
    (tmp_path / "amir.txt").write_text("late copy")
    with pytest.raises(ValueError, match="same student id: amir"):
        find_submissions([tmp_path])
    with pytest.raises(FileNotFoundError):
        find_submissions([tmp_path / "absent"])


def test_student_ids_are_safe_file_names() -> None:
    assert student_id("../../etc/passwd") == ".._.._etc_passwd"
    assert student_id("Zoë O'Neil") == "Zo_O_Neil"
    assert student_id("///") == "unnamed"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "the file is empty"),
        (b"\xff\xfe{}", "not UTF-8 text"),
        (b'{"cells": [', "invalid JSON at line 1"),
        (b'{"cells": 3}', "not a valid Jupyter notebook"),
        (json.dumps(nbformat.v4.new_notebook()).encode(), "has no code"),
        (notebook_text("ch02.q1", "ch02.q3").encode(), "the notebook of ch02, not of ch01"),
    ],
)
def test_unreadable_submissions_say_why(tmp_path: Path, content: bytes, reason: str) -> None:
    path = tmp_path / "amir.ipynb"
    path.write_bytes(content)
    with pytest.raises(InvalidNotebook, match=reason):
        read_notebook(path, IDS)


def test_a_notebook_without_question_ids_is_still_graded_by_function_names(tmp_path: Path) -> None:
    path = tmp_path / "amir.ipynb"
    path.write_text(notebook_text())
    assert read_notebook(path, IDS).cells[0].source == "x = 1"
    path.write_text(notebook_text("ch01.q2", "ch02.q1"))
    assert len(read_notebook(path, IDS).cells) == 3


def test_a_huge_file_is_refused_before_it_is_read(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("coursekit.grading.instructor.submissions.MAX_NOTEBOOK_BYTES", 100)
    path = tmp_path / "amir.ipynb"
    path.write_text(notebook_text(code="x = 1" * 100))
    with pytest.raises(InvalidNotebook, match="larger than"):
        read_notebook(path, IDS)
