"""The book's architecture diagrams, by file name, and the command that writes them as SVG.

``python -m coursekit.viz.diagrams book/figures`` regenerates every file; the chapters embed
them with ``![alt text](figures/<name>.svg)``, and tests/viz/test_diagrams.py checks that the
stored files are what this command writes. A later chapter adds its figures to :data:`FIGURES`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

from matplotlib.figure import Figure

from coursekit.viz.drawing import save_svg
from coursekit.viz.recurrent import (
    gru_cell_figure,
    lstm_cell_figure,
    rnn_cell_figure,
    unrolled_rnn_figure,
)

FIGURES: dict[str, Callable[[], Figure]] = {
    "rnn-unrolled": unrolled_rnn_figure,
    "rnn-cell": rnn_cell_figure,
    "lstm-cell": lstm_cell_figure,
    "gru-cell": gru_cell_figure,
}
"""Each diagram of the book: the SVG file's name (without ``.svg``) and the function drawing it."""


def write_figures(folder: str | Path) -> list[Path]:
    """Draw every diagram of :data:`FIGURES` into ``folder`` (created if missing) as SVG."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    return [save_svg(draw(), folder / f"{name}.svg") for name, draw in FIGURES.items()]


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``python -m coursekit.viz.diagrams FOLDER``."""
    parser = argparse.ArgumentParser(
        prog="python -m coursekit.viz.diagrams", description="Write the book's diagrams as SVG."
    )
    parser.add_argument("folder", type=Path, help="where to write them, e.g. book/figures")
    arguments = parser.parse_args(argv)
    for path in write_figures(arguments.folder):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
