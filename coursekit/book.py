"""Maintenance of the book: the offline content check and re-execution.

``python -m coursekit.book check book`` validates the book with Jupyter Book 2 and a stub theme
(the real theme is downloaded at build time, which needs a network); ``python -m coursekit.book
execute book/01-text.ipynb ...`` re-executes chapters and stores their outputs in the normalised
form of :mod:`coursekit.notebooks`; ``python -m coursekit.book seeds book/0*.ipynb`` executes
each chapter in the ci profile under ``COURSEKIT_SEED`` = 0..4 (without storing anything) and
prints a table of every claim on every seed (``make test-seeds``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat

from coursekit.config import PROFILE_VARIABLE, SEED_VARIABLE
from coursekit.execution import execute_notebook
from coursekit.notebooks import normalise
from coursekit.verdicts import verdicts_in

THEME_HOST = ("api.mystmd.org", 443)
STUB_THEME = "_build/templates/site/myst/book-theme/template.yml"
BUILD_PROBLEM_MARKERS = ("⛔️", "⚠️")
REMOTE_IMAGE = re.compile(r"(!\[[^\]]*\]\()https?://[^)\s]+(\))")
OFFLINE_IMAGE = "offline-image.svg"
PLACEHOLDER_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="117" height="20"></svg>\n'


def online(timeout: float = 3.0) -> bool:
    """True when the host that serves Jupyter Book's theme answers a TCP connection."""
    try:
        with socket.create_connection(THEME_HOST, timeout=timeout):
            return True
    except OSError:
        return False


def execute(paths: Sequence[Path], timeout: int = 600) -> dict[Path, float]:
    """Execute each notebook top to bottom in its own folder, store outputs, return seconds taken."""
    seconds: dict[Path, float] = {}
    for path in paths:
        notebook = nbformat.read(path, as_version=4)
        start = time.perf_counter()
        execute_notebook(notebook, path.parent, timeout=timeout)
        seconds[path] = time.perf_counter() - start
        nbformat.write(normalise(notebook), path)
        print(f"executed {path} in {seconds[path]:.1f} s", flush=True)
    return seconds


def claims_under_shift(path: Path, shift: int, timeout: int = 600) -> dict[str, bool]:
    """Execute a copy of the chapter at ``path`` in the ci profile with ``COURSEKIT_SEED=shift``
    and return each claim it printed (the statement, without its verdict) and whether it held.
    A chapter that raises counts as one failed claim named after the error.
    """
    from nbclient.exceptions import CellExecutionError

    notebook = nbformat.read(path, as_version=4)
    environment = {**os.environ, PROFILE_VARIABLE: "ci", SEED_VARIABLE: str(shift)}
    try:
        execute_notebook(notebook, path.parent, timeout=timeout, env=environment)
    except CellExecutionError as error:
        return {f"the chapter runs to the end ({error.ename}: {error.evalue[:80]})": False}
    printed = "".join(
        "".join(output.get("text", ""))
        for cell in notebook.cells
        for output in cell.get("outputs", [])
    )
    lines = [line for line in verdicts_in(printed) if line.startswith("claim: ")]
    return {line[len("claim: ") : line.rindex(": ")]: line.endswith(": True") for line in lines}


def seed_table(paths: Sequence[Path], shifts: Sequence[int], jobs: int = 2) -> int:
    """Print chapter x claim x seed shift (``make test-seeds``); 1 if any claim failed."""
    runs = [(path, shift) for path in paths for shift in shifts]

    def run_and_report(run: tuple[Path, int]) -> dict[str, bool]:
        start = time.perf_counter()
        claims = claims_under_shift(*run)
        failed = sum(not held for held in claims.values())
        print(
            f"{run[0].name} COURSEKIT_SEED={run[1]}: {len(claims)} claims, {failed} failed "
            f"({time.perf_counter() - start:.0f} s)",
            flush=True,
        )
        return claims

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = dict(zip(runs, pool.map(run_and_report, runs), strict=True))
    failed = 0
    print(f"{'COURSEKIT_SEED':>14}  " + " ".join(f"{shift:>5}" for shift in shifts) + "  claim")
    for path in paths:
        print(path.name)
        claims = list(dict.fromkeys(c for shift in shifts for c in results[path, shift]))
        for claim in claims:
            cells = [results[path, shift].get(claim) for shift in shifts]
            failed += sum(cell is not True for cell in cells)
            marks = " ".join(f"{'-' if c is None else 'True' if c else 'FALSE':>5}" for c in cells)
            print(f"{'':>14}  {marks}  {claim}")
    print(f"{failed} claim runs failed or missing" if failed else "every claim held on every seed")
    return 1 if failed else 0


def check(book_dir: Path) -> int:
    """Build the site content of ``book_dir`` offline with a stub theme; fail on any warning.

    The build runs in a temporary copy, so a real theme already downloaded into ``book/_build``
    is left alone. Returns a process exit status.
    """
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "book"
        shutil.copytree(
            book_dir, copy, ignore=shutil.ignore_patterns("_build", ".ipynb_checkpoints")
        )
        stub = copy / STUB_THEME
        stub.parent.mkdir(parents=True)
        stub.write_text("jtex: v1\ntitle: Book Theme (offline stub)\n")
        use_local_images(copy)
        result = subprocess.run(
            [_jupyter_book(), "build", "--site", "--strict"],
            cwd=copy,
            capture_output=True,
            text=True,
            check=False,
        )
    report = result.stdout + result.stderr
    problems = [
        line.strip()
        for line in report.splitlines()
        if line.strip().startswith(BUILD_PROBLEM_MARKERS)
    ]
    print(report)
    if result.returncode != 0 or problems:
        print(
            f"book check FAILED: exit status {result.returncode}, {len(problems)} warnings or errors"
        )
        return 1
    print("book check passed: every page builds with no warning (stub theme)")
    return 0


def use_local_images(book_copy: Path) -> None:
    """Point remote images (the Colab badge) at a local placeholder: offline they cannot be fetched."""
    (book_copy / OFFLINE_IMAGE).write_text(PLACEHOLDER_SVG)
    for page in book_copy.glob("*.md"):
        page.write_text(REMOTE_IMAGE.sub(rf"\g<1>{OFFLINE_IMAGE}\g<2>", page.read_text()))
    for path in book_copy.glob("*.ipynb"):
        notebook = nbformat.read(path, as_version=4)
        for cell in notebook.cells:
            if cell.cell_type == "markdown":
                cell.source = REMOTE_IMAGE.sub(rf"\g<1>{OFFLINE_IMAGE}\g<2>", cell.source)
        nbformat.write(notebook, path)


def _jupyter_book() -> str:
    """The ``jupyter-book`` executable next to this Python, else the one on PATH."""
    beside = Path(sys.executable).parent / "jupyter-book"
    found = str(beside) if beside.exists() else shutil.which("jupyter-book")
    if found is None:
        raise SystemExit("jupyter-book is not installed: pip install -e '.[book]'")
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m coursekit.book", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("online", help="exit 0 when the theme host is reachable")
    check_parser = commands.add_parser("check", help="offline content check with a stub theme")
    check_parser.add_argument("book_dir", type=Path)
    execute_parser = commands.add_parser("execute", help="execute notebooks and store outputs")
    execute_parser.add_argument("notebooks", type=Path, nargs="+")
    seeds_parser = commands.add_parser("seeds", help="every claim under COURSEKIT_SEED=0..4")
    seeds_parser.add_argument("notebooks", type=Path, nargs="+")
    seeds_parser.add_argument("--shifts", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    seeds_parser.add_argument("--jobs", type=int, default=2, help="chapters run at once")
    args = parser.parse_args(argv)
    if args.command == "online":
        return 0 if online() else 1
    if args.command == "check":
        return check(args.book_dir)
    if args.command == "seeds":
        return seed_table(args.notebooks, args.shifts, args.jobs)
    execute(args.notebooks)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
