"""``python -m benchmarks [--quick]``: run every registered row and print the table."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
from pathlib import Path

from benchmarks.registry import BENCHMARKS, render_table

NOT_ROWS = {"__main__", "registry"}


def load_benchmark_modules() -> None:
    """Import every module of this folder, so their ``@benchmark`` rows register themselves."""
    folder = Path(__file__).parent
    for module in sorted(pkgutil.iter_modules([str(folder)]), key=lambda info: info.name):
        if module.name not in NOT_ROWS:
            importlib.import_module(f"benchmarks.{module.name}")


def main(argv: list[str] | None = None) -> None:
    """Parse the options, run the rows, print the table."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small inputs, one timing per row")
    options = parser.parse_args(argv)
    load_benchmark_modules()
    rows = [row(options.quick) for row in BENCHMARKS]
    print(render_table(rows))
    for note in (note for row in rows for note in row.notes):
        print(note)
    print("ratio = ours / reference, both timed in the same run; below 1: coursekit is faster")


if __name__ == "__main__":
    main()
