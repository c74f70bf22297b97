"""Maintenance of the book: the offline content check, re-execution and notebook normalisation.

``python -m coursekit.book check book`` validates the book with Jupyter Book 2 and a stub theme
(the real theme is downloaded at build time, which needs a network); ``python -m coursekit.book
execute book/01-text.ipynb ...`` re-executes chapters and stores their outputs in a normalised form.
"""

from __future__ import annotations

import argparse
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import nbformat

THEME_HOST = ("api.mystmd.org", 443)
STUB_THEME = "_build/templates/site/myst/book-theme/template.yml"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
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


def execute(paths: Sequence[Path], timeout: int = 600) -> dict[Path, float]:
    """Execute each notebook top to bottom in its own folder, store outputs, return seconds taken."""
    from nbclient import NotebookClient

    seconds: dict[Path, float] = {}
    for path in paths:
        notebook = nbformat.read(path, as_version=4)
        client = NotebookClient(
            notebook,
            timeout=timeout,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
        )
        start = time.perf_counter()
        client.execute()
        seconds[path] = time.perf_counter() - start
        nbformat.write(normalise(notebook), path)
        print(f"executed {path} in {seconds[path]:.1f} s", flush=True)
    return seconds


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
    args = parser.parse_args(argv)
    if args.command == "online":
        return 0 if online() else 1
    if args.command == "check":
        return check(args.book_dir)
    execute(args.notebooks)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
