"""assign: solution notebooks become student notebooks, deterministically."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from coursekit.grading.instructor.assign import (
    STUB,
    AssignError,
    assign_directory,
    assign_notebook,
    exercises_in_sync,
    strip_solutions,
)

ROOT = Path(__file__).resolve().parents[2]

ANSWER = """def area(width, height):
    \"\"\"Width times height.\"\"\"
    # BEGIN SOLUTION
    product = width * height
    return product
    # END SOLUTION


def perimeter(width, height):
    # BEGIN SOLUTION
    return 2 * (width + height)
    # END SOLUTION

# BEGIN SOLUTION
UNIT = "m"
# END SOLUTION"""


def solution_notebook() -> nbformat.NotebookNode:
    question = {"coursekit": {"question": "ch90.q1", "role": "answer"}}
    answer = new_code_cell(ANSWER, id="answer", metadata=question, execution_count=3)
    answer.outputs = [new_output("stream", name="stdout", text="done\n")]
    demo = new_code_cell("area(2, 3)", id="demo", metadata={"tags": ["solution-only"]})
    notebook = new_notebook(
        cells=[
            new_markdown_cell("# Areas", id="title"),
            answer,
            demo,
            new_code_cell("1 + 1", id="last"),
        ]
    )
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return notebook


@pytest.fixture
def solution_path(tmp_path: Path) -> Path:
    path = tmp_path / "solutions" / "90-areas.ipynb"
    path.parent.mkdir()
    nbformat.write(solution_notebook(), path)
    return path


def test_regions_become_stubs_at_the_indentation_of_their_begin_line() -> None:
    stripped = strip_solutions(ANSWER, "test cell")
    assert stripped.splitlines() == [
        "def area(width, height):",
        '    """Width times height."""',
        f"    {STUB}",
        "",
        "",
        "def perimeter(width, height):",
        f"    {STUB}",
        "",
        STUB,
    ]
    assert "BEGIN" not in stripped and "product" not in stripped
    compile(stripped, "stub", "exec")


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("x = 1\n# END SOLUTION", "'# END SOLUTION' on line 2 has no '# BEGIN SOLUTION' before it"),
        (
            "# BEGIN SOLUTION\nx = 1",
            "'# BEGIN SOLUTION' on line 1 has no '# END SOLUTION' after it",
        ),
        (
            "# BEGIN SOLUTION\n# BEGIN SOLUTION\n# END SOLUTION",
            "'# BEGIN SOLUTION' on line 2 comes before the '# END SOLUTION' "
            "of the region opened on line 1",
        ),
    ],
)
def test_unmatched_markers_are_errors_that_name_the_place(source: str, problem: str) -> None:
    with pytest.raises(AssignError) as error:
        strip_solutions(source, "solutions/90-areas.ipynb, cell 1 (id answer)")
    assert str(error.value) == f"solutions/90-areas.ipynb, cell 1 (id answer): {problem}"


def test_an_unmatched_marker_in_a_notebook_names_the_notebook_and_cell(tmp_path: Path) -> None:
    notebook = solution_notebook()
    notebook.cells[3].source = "# BEGIN SOLUTION\n1 + 1"
    path = tmp_path / "broken.ipynb"
    nbformat.write(notebook, path)
    with pytest.raises(
        AssignError, match=r"broken.ipynb, cell 3 \(id last\): '# BEGIN SOLUTION' on line 1"
    ):
        assign_notebook(path, tmp_path / "out.ipynb")


def test_the_student_notebook(solution_path: Path, tmp_path: Path) -> None:
    written = assign_notebook(solution_path, tmp_path / "exercises" / solution_path.name)
    student = nbformat.read(written, as_version=4)
    nbformat.validate(student)
    assert (student.nbformat, student.nbformat_minor) >= (4, 5)
    assert [cell.id for cell in student.cells] == [
        "title",
        "answer",
        "last",
    ]  # solution-only dropped
    answer = student.cells[1]
    assert answer.source == strip_solutions(ANSWER, "")
    assert answer.metadata["coursekit"] == {"question": "ch90.q1", "role": "answer"}
    assert answer.outputs == [] and answer.execution_count is None
    assert student.metadata["kernelspec"]["name"] == "python3"


def test_assign_is_byte_for_byte_idempotent(solution_path: Path, tmp_path: Path) -> None:
    first = assign_directory(solution_path.parent, tmp_path / "exercises")
    before = [path.read_bytes() for path in first]
    second = assign_directory(solution_path.parent, tmp_path / "exercises")
    assert first == second == [tmp_path / "exercises" / solution_path.name]
    assert [path.read_bytes() for path in second] == before
    assert before[0].endswith(b"}\n")


def test_notebooks_without_cell_ids_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "old.ipynb"
    notebook = solution_notebook()
    notebook.nbformat_minor = 4
    for cell in notebook.cells:
        del cell["id"]
    path.write_text(nbformat.writes(notebook, version=nbformat.NO_CONVERT))
    with pytest.raises(AssignError, match="nbformat 4.4 has no cell ids"):
        assign_notebook(path, tmp_path / "new.ipynb")


def test_an_empty_solutions_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(AssignError, match="no solution notebooks"):
        assign_directory(tmp_path, tmp_path / "exercises")


def test_exercises_in_sync_finds_stale_missing_and_orphaned_notebooks(
    solution_path: Path, tmp_path: Path
) -> None:
    exercises = tmp_path / "exercises"
    assert exercises_in_sync(solution_path.parent, exercises) == ["90-areas.ipynb"]
    assign_directory(solution_path.parent, exercises)
    assert exercises_in_sync(solution_path.parent, exercises) == []
    notebook = nbformat.read(solution_path, as_version=4)
    notebook.cells[0].source = "# Areas and perimeters"
    nbformat.write(notebook, solution_path)
    (exercises / "91-orphan.ipynb").write_text("{}")
    assert exercises_in_sync(solution_path.parent, exercises) == [
        "90-areas.ipynb",
        "91-orphan.ipynb",
    ]


def test_the_repository_exercises_are_in_sync_with_the_solutions() -> None:
    stale = exercises_in_sync(ROOT / "solutions", ROOT / "exercises")
    assert stale == [], f"run `coursekit assign solutions/ exercises/`: {stale} out of date"
