"""Notebooks stored in a normalised form, so that they differ only where their content does.

Every notebook of the course, the book's chapters as well as the exercises that
``coursekit assign`` writes, is stored without what changes on every run: execution timestamps,
live widget views (a progress bar shows only a stub without its kernel), and the split of one
cell's prints into several outputs. The kernel is fixed to ``python3``. Chapter 1 and every
later chapter are stored this way; a test checks it.
"""

from __future__ import annotations

import nbformat

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def normalise(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Strip what changes on every run (execution timestamps, widgets), merge consecutive prints
    to one stream into one output, and fix the kernel.

    The stored chapters then differ only where their content changed.
    """
    notebook.metadata = nbformat.from_dict(
        {
            "kernelspec": KERNELSPEC,
            "language_info": {"name": "python"},
            **{key: value for key, value in notebook.metadata.items() if key == "colab"},
        }
    )
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
        cell.metadata.pop("ExecuteTime", None)
        if cell.cell_type == "code":
            outputs = [output for output in cell.outputs if not _is_widget_view(output)]
            cell.outputs = _merged_streams(outputs)
            for output in cell.outputs:
                output.get("metadata", {}).pop("execution", None)
    return notebook


def _merged_streams(outputs: list[nbformat.NotebookNode]) -> list[nbformat.NotebookNode]:
    """Consecutive prints to the same stream as one output: one block on the page, not several
    blocks far apart (a removed progress bar used to split them)."""
    merged: list[nbformat.NotebookNode] = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (
            previous is not None
            and output.output_type == previous.output_type == "stream"
            and output.name == previous.name
        ):
            previous.text = "".join(previous.text) + "".join(output.text)
        else:
            merged.append(output)
    return merged


def _is_widget_view(output: nbformat.NotebookNode) -> bool:
    """A live widget (a progress bar): without the kernel its stored view shows only a stub."""
    return WIDGET_VIEW in output.get("data", {})


def is_normalised(notebook: nbformat.NotebookNode) -> bool:
    """True when :func:`normalise` would change nothing."""
    before = nbformat.writes(notebook)
    return nbformat.writes(normalise(nbformat.reads(before, as_version=4))) == before
