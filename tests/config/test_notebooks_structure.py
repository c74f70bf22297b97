"""Every notebook opens with a Colab badge and a Colab-only set-up cell, and is stored normalised."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
import yaml
from project_files import pyproject

from coursekit.book import is_normalised

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted(
    path.relative_to(ROOT)
    for folder in ("book", "solutions", "exercises")
    for path in (ROOT / folder).glob("[0-9][0-9]-*.ipynb")
)


def repository_url() -> str:
    project = pyproject()["project"]
    return project["urls"]["Repository"]


def test_there_are_notebooks() -> None:
    assert {path.parts[0] for path in NOTEBOOKS} == {"book", "solutions", "exercises"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=str)
def test_opens_with_colab_badge_and_colab_only_setup(path: Path) -> None:
    notebook = nbformat.read(ROOT / path, as_version=4)
    badge, setup = notebook.cells[0], notebook.cells[1]
    github = repository_url().removeprefix("https://github.com/")
    colab_path = "exercises" if path.parts[0] == "solutions" else path.parts[0]
    expected = (
        f"https://colab.research.google.com/github/{github}/blob/main/{colab_path}/{path.name}"
    )
    assert badge.cell_type == "markdown" and expected in badge.source
    assert setup.cell_type == "code"
    assert 'if "google.colab" in sys.modules:' in setup.source
    install = re.search(r"%pip install .*", setup.source)
    assert install and repository_url() in install.group(0)
    assert "torch" not in install.group(0), "Colab's own torch must be kept"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=str)
def test_stored_normalised(path: Path) -> None:
    assert is_normalised(nbformat.read(ROOT / path, as_version=4)), f"run `make execute` on {path}"


def test_book_toc_lists_every_chapter_and_only_existing_files() -> None:
    config = yaml.safe_load((ROOT / "book/myst.yml").read_text())
    assert config["project"]["github"] == repository_url()

    def files(entries: list[dict]) -> list[str]:
        found = []
        for entry in entries:
            found += [entry["file"]] if "file" in entry else []
            found += files(entry.get("children", []))
        return found

    listed = files(config["project"]["toc"])
    assert all((ROOT / "book" / name).exists() for name in listed)
    chapters = sorted(path.name for path in (ROOT / "book").glob("[0-9][0-9]-*.ipynb"))
    assert [name for name in listed if name in chapters] == chapters


def test_exercises_page_links_every_exercise() -> None:
    page = (ROOT / "book/exercises.md").read_text()
    for path in (ROOT / "exercises").glob("[0-9][0-9]-*.ipynb"):
        assert f"blob/main/exercises/{path.name}" in page


@pytest.mark.parametrize(
    "path", sorted((ROOT / "book").glob("[0-9][0-9]-*.ipynb")), ids=lambda p: p.name
)
def test_chapter_claims_are_checked_and_true(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    claims = []
    for cell in notebook.cells:
        if cell.cell_type != "code" or not cell.source.startswith("# NBVAL_CHECK_OUTPUT"):
            continue
        for output in cell.outputs:
            text = output.get("text", "")
            claims += [line for line in text.splitlines() if line.startswith("claim:")]
    assert claims, f"{path.name} states no claim in a # NBVAL_CHECK_OUTPUT cell"
    assert all(line.endswith(": True") for line in claims), claims


@pytest.mark.parametrize(
    "path", sorted((ROOT / "book").glob("[0-9][0-9]-*.ipynb")), ids=lambda p: p.name
)
def test_chapters_are_stored_with_their_figures(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    figures = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if "image/png" in output.get("data", {})
    ]
    assert figures, f"{path.name} has no stored figure: re-run `make execute`"
