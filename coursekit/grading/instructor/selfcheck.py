"""Prove that the student notebooks run.

``python -m coursekit.grading.instructor.selfcheck exercises/`` executes each exercise notebook
top to bottom in a fresh kernel (``python3``, or ``--kernel NAME``) with ``COURSEKIT_PROFILE=ci``.
It passes when no cell raises and every ``check`` cell (a code cell
whose metadata is ``{"coursekit": {"question": ..., "role": "check"}}``) prints the
"not implemented yet" report of its question: the stubs must fail gracefully, not crash the
notebook, and must not pass by accident. Chapter 1, Text as sequences, has the first exercises.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import nbformat

from coursekit.execution import execute_notebook
from coursekit.grading.questions import get_question
from coursekit.grading.report import not_implemented_line

KERNEL_NAME = "python3"


def check_cells(notebook: nbformat.NotebookNode) -> list[tuple[int, str]]:
    """``(cell index, question id)`` of every check cell of ``notebook`` (book: Exercises)."""
    found = []
    for index, cell in enumerate(notebook.cells):
        marks = cell.metadata.get("coursekit", {})
        if cell.cell_type == "code" and marks.get("role") == "check" and "question" in marks:
            found.append((index, marks["question"]))
    return found


def printed_text(cell: nbformat.NotebookNode) -> str:
    """Everything a code cell printed or displayed as plain text (book: Exercises)."""
    parts = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            parts.append(output.text)
        elif output.output_type in ("execute_result", "display_data"):
            parts.append(output.data.get("text/plain", ""))
    return "".join(parts)


def selfcheck_notebook(
    path: Path, *, timeout: int = 300, kernel_name: str = KERNEL_NAME
) -> list[str]:
    """Execute the exercise notebook ``path`` in the kernel ``kernel_name``; return its problems
    ([] when it behaves).

    See the book's Exercises page.
    """
    from nbclient.exceptions import CellExecutionError

    notebook = nbformat.read(path, as_version=4)
    expected = check_cells(notebook)
    if not expected:
        return [f"{path}: no check cells (code cells with coursekit role 'check')"]
    try:
        execute_notebook(
            notebook,
            path.parent,
            timeout=timeout,
            kernel_name=kernel_name,
            env={**os.environ, "COURSEKIT_PROFILE": "ci"},
        )
    except CellExecutionError as error:
        failing = [
            index
            for index, cell in enumerate(notebook.cells)
            if any(output.output_type == "error" for output in cell.get("outputs", []))
        ]
        where = f"cell {failing[0]}" if failing else "a cell"
        return [f"{path}: {where} raised {error.ename}: {error.evalue}"]
    problems = []
    for index, question_id in expected:
        question = get_question(question_id)
        wanted = not_implemented_line(question.id, question.title, question.answer_name)
        printed = printed_text(notebook.cells[index])
        if wanted not in printed:
            shown = printed.strip().splitlines()[0] if printed.strip() else "nothing"
            problems.append(
                f"{path}: cell {index} ({question_id}) should report 'not implemented yet', "
                f"printed: {shown}"
            )
    return problems


def exercise_notebooks(paths: Sequence[Path]) -> list[Path]:
    """The ``.ipynb`` files named in ``paths``, folders expanded, sorted within each folder.

    See the book's Exercises page.
    """
    notebooks: list[Path] = []
    for path in map(Path, paths):
        notebooks.extend(sorted(path.glob("*.ipynb")) if path.is_dir() else [path])
    return notebooks


def main(argv: Sequence[str] | None = None) -> int:
    """Check every notebook, print one line each, exit 1 on any problem and 2 if none was found.

    See the book's Exercises page.
    """
    parser = argparse.ArgumentParser(
        prog="python -m coursekit.grading.instructor.selfcheck",
        description="Run exercise notebooks: every check must report 'not implemented'.",
    )
    parser.add_argument("paths", nargs="+", type=Path, help="notebooks or folders of notebooks")
    parser.add_argument("--timeout", type=int, default=300, help="seconds allowed per cell")
    parser.add_argument(
        "--kernel", default=KERNEL_NAME, help=f"the kernelspec to run them in ({KERNEL_NAME})"
    )
    args = parser.parse_args(argv)
    from jupyter_client.kernelspec import KernelSpecManager

    notebooks = exercise_notebooks(args.paths)
    if args.kernel not in KernelSpecManager().find_kernel_specs():
        print(
            f"selfcheck: no kernel named {args.kernel!r} here (`jupyter kernelspec list` shows "
            "the kernels there are)",
            file=sys.stderr,
        )
        return 2
    if not notebooks:
        print(f"selfcheck: no notebooks in {', '.join(map(str, args.paths))}", file=sys.stderr)
        return 2
    failed = False
    for notebook in notebooks:
        problems = selfcheck_notebook(notebook, timeout=args.timeout, kernel_name=args.kernel)
        failed = failed or bool(problems)
        for problem in problems:
            print(problem, file=sys.stderr)
        if not problems:
            print(f"{notebook}: ok, every check reports 'not implemented yet'")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
