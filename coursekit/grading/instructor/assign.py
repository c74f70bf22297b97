"""Write the student version of each solution notebook (``coursekit assign solutions/ exercises/``).

In a code cell, every region from a ``# BEGIN SOLUTION`` line to its ``# END SOLUTION`` line
becomes ``raise NotImplementedError`` at the indentation of the BEGIN line, so the answer cell
still defines its function and only calling it raises. Cells tagged ``solution-only`` (e.g. a cell
that demonstrates the finished answer) are left out. Outputs and execution counts are cleared;
cell ids and cell metadata (``{"coursekit": {"question": "ch01.q1"}}``) are kept. The output is
deterministic, so re-running the command on unchanged solutions changes no byte. Chapter 1, Text
as sequences, has the first exercise notebook.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from coursekit.notebooks import normalise

BEGIN_MARKER = "# BEGIN SOLUTION"
END_MARKER = "# END SOLUTION"
STUB = "raise NotImplementedError  # replace this line with your code"
SOLUTION_ONLY_TAG = "solution-only"


class AssignError(ValueError):
    """A solution notebook that cannot be turned into an exercise (e.g. an unmatched marker).

    See the book's Exercises page.
    """


def strip_solutions(source: str, where: str) -> str:
    """Replace each ``# BEGIN SOLUTION`` ... ``# END SOLUTION`` region of ``source`` with the stub.

    ``where`` names the cell in error messages ("solutions/01-text.ipynb, cell 5").

    See the book's Exercises page.
    """
    lines = source.split("\n")
    kept: list[str] = []
    begin_line: int | None = None
    for number, line in enumerate(lines, start=1):
        marker = line.strip()
        if marker == BEGIN_MARKER:
            if begin_line is not None:
                raise AssignError(
                    f"{where}: '{BEGIN_MARKER}' on line {number} comes before the "
                    f"'{END_MARKER}' of the region opened on line {begin_line}"
                )
            begin_line = number
            indent = line[: len(line) - len(line.lstrip())]
            kept.append(f"{indent}{STUB}")
        elif marker == END_MARKER:
            if begin_line is None:
                raise AssignError(
                    f"{where}: '{END_MARKER}' on line {number} has no '{BEGIN_MARKER}' before it"
                )
            begin_line = None
        elif begin_line is None:
            kept.append(line)
    if begin_line is not None:
        raise AssignError(
            f"{where}: '{BEGIN_MARKER}' on line {begin_line} has no '{END_MARKER}' after it"
        )
    return "\n".join(kept)


def student_notebook(notebook: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    """The exercise version of a solution ``notebook`` (a new object; ``name`` is for errors).

    See the book's Exercises page.
    """
    if (notebook.nbformat, notebook.nbformat_minor) < (4, 5):
        raise AssignError(
            f"{name}: nbformat {notebook.nbformat}.{notebook.nbformat_minor} has no cell ids; "
            "save it as nbformat 4.5 or later (Jupyter does this on save)"
        )
    student = nbformat.from_dict(notebook)
    student.cells = []
    for index, cell in enumerate(notebook.cells):
        if SOLUTION_ONLY_TAG in cell.metadata.get("tags", []):
            continue
        cell = nbformat.from_dict(cell)
        if cell.cell_type == "code":
            cell.source = strip_solutions(cell.source, f"{name}, cell {index} (id {cell.id})")
            cell.outputs = []
            cell.execution_count = None
        student.cells.append(cell)
    return normalise(student)


def student_notebook_text(solution: Path) -> str:
    """The exact text that :func:`assign_notebook` writes for ``solution`` (book: Exercises)."""
    notebook = nbformat.read(solution, as_version=4)
    text = nbformat.writes(student_notebook(notebook, str(solution)))
    return text if text.endswith("\n") else text + "\n"


def assign_notebook(src: Path, dst: Path) -> Path:
    """Write the exercise version of the solution notebook ``src`` to ``dst``; return ``dst``.

    See the book's Exercises page.
    """
    src, dst = Path(src), Path(dst)
    text = student_notebook_text(src)
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(text, encoding="utf-8", newline="\n")
    return dst


def _solution_notebooks(solutions_dir: Path) -> list[Path]:
    notebooks = sorted(Path(solutions_dir).glob("*.ipynb"))
    if not notebooks:
        raise AssignError(f"no solution notebooks (*.ipynb) in {solutions_dir}")
    return notebooks


def assign_directory(src_dir: Path, dst_dir: Path) -> list[Path]:
    """Write the exercise version of every ``src_dir/*.ipynb`` into ``dst_dir``, same names.

    See the book's Exercises page.
    """
    return [
        assign_notebook(solution, Path(dst_dir) / solution.name)
        for solution in _solution_notebooks(src_dir)
    ]


def exercises_in_sync(solutions_dir: Path, exercises_dir: Path) -> list[str]:
    """Names of the notebooks whose exercise is missing, stale or has no solution; [] when in sync.

    Fix a non-empty answer with ``coursekit assign solutions/ exercises/``.

    See the book's Exercises page.
    """
    solutions = _solution_notebooks(solutions_dir)
    out_of_sync = []
    for solution in solutions:
        exercise = Path(exercises_dir) / solution.name
        if not exercise.is_file() or exercise.read_text(encoding="utf-8") != student_notebook_text(
            solution
        ):
            out_of_sync.append(solution.name)
    names = {solution.name for solution in solutions}
    orphans = [
        path.name for path in sorted(Path(exercises_dir).glob("*.ipynb")) if path.name not in names
    ]
    return out_of_sync + orphans
