"""The command that writes the book's architecture diagrams into the chapters (Chapters 2 to 7).

A chapter shows a diagram in a markdown cell whose metadata names it (``"figure": "rnn-cell"``)
and whose text holds it as an embedded PNG, ``![alt text](data:image/png;base64,...)``.
``python -m coursekit.viz.diagrams book/*.ipynb`` (``make figures``) redraws every such image,
and tests/viz/test_diagrams.py checks that the chapters hold what this command writes.
"""

from __future__ import annotations

import argparse
import base64
import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from coursekit.viz.diagrams.catalog import FIGURES
from coursekit.viz.diagrams.drawing import png_bytes

FIGURE_KEY = "figure"
"""The markdown cell's metadata key that names the diagram its image shows."""
EMBEDDED_IMAGE = re.compile(r"\]\((data:image/png;base64,[A-Za-z0-9+/=]*)\)")
"""A markdown image whose target is an embedded PNG: ``![alt text](data:image/png;base64,...)``."""


def figure_data_uri(name: str) -> str:
    """Diagram ``name`` drawn and encoded as a ``data:`` URI, the form in which a chapter holds
    it: the image travels inside the notebook, so it shows in the HTML book, in Jupyter and in
    Colab, also in a copy saved to Drive (Colab shows neither cell attachments nor SVG there).
    """
    encoded = base64.b64encode(png_bytes(FIGURES[name]())).decode("ascii")
    return f"data:image/png;base64,{encoded}"


def figure_cells(notebook: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every markdown cell of ``notebook`` (its JSON) that shows a diagram, with the diagram's
    name; a cell may name only a diagram of :data:`FIGURES` and must hold one embedded image."""
    for cell in notebook["cells"]:
        name = cell.get("metadata", {}).get(FIGURE_KEY)
        if name is None:
            continue
        if name not in FIGURES:
            raise ValueError(f"a cell names the diagram {name!r}, which FIGURES does not draw")
        if len(EMBEDDED_IMAGE.findall("".join(cell["source"]))) != 1:
            raise ValueError(f"the cell of diagram {name!r} must hold exactly one embedded PNG")
        yield name, cell


def embed_figures(path: str | Path) -> list[str]:
    """Redraw every diagram that the notebook at ``path`` shows and write it into its cell;
    return the names of those that changed (the file is written only if one did)."""
    path = Path(path)
    notebook = json.loads(path.read_text(encoding="utf-8"))
    changed = []
    for name, cell in figure_cells(notebook):
        source = "".join(cell["source"])
        image = EMBEDDED_IMAGE.search(source)
        assert image is not None  # figure_cells checked that the cell holds one
        fresh = source[: image.start(1)] + figure_data_uri(name) + source[image.end(1) :]
        if fresh != source:
            cell["source"] = fresh.splitlines(keepends=True)
            changed.append(name)
    if changed:
        text = json.dumps(notebook, indent=1, ensure_ascii=False)
        path.write_text(text + "\n", encoding="utf-8")
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``python -m coursekit.viz.diagrams book/*.ipynb``."""
    parser = argparse.ArgumentParser(
        prog="python -m coursekit.viz.diagrams",
        description="Redraw the diagrams that the chapters embed and write them into them.",
    )
    parser.add_argument("notebooks", type=Path, nargs="+", help="e.g. book/*.ipynb")
    arguments = parser.parse_args(argv)
    for path in arguments.notebooks:
        for name in embed_figures(path):
            print(f"{path}: {name} redrawn")
    return 0
