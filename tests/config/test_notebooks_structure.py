"""Every notebook opens with a Colab badge and a set-up cell (install in Colab, choose the profile),
and is stored normalised."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import nbformat
import pytest
import yaml
from project_files import pyproject

from coursekit.notebooks import is_normalised
from coursekit.verdicts import verdicts_in

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((Path(__file__).resolve().parents[2] / "book").glob("[0-9][0-9]-*.ipynb"))
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
    assert '"google.colab" in sys.modules' in setup.source
    chooses = setup.source.rstrip().endswith("profile = coursekit.choose_profile()")
    assert chooses == (path.parts[0] == "book"), "chapters choose a profile; exercises use none"
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


LONGEST_VISIBLE_CELL = 25
"""Lines of the longest code cell a chapter may show unfolded (prose leads)."""
FOLDING_TAGS = {"hide-input", "hide-cell", "remove-input", "remove-cell"}


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda path: path.name)
def test_no_visible_code_cell_is_longer_than_a_screen(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    too_long = [
        (index, len(cell.source.splitlines()))
        for index, cell in enumerate(notebook.cells)
        if cell.cell_type == "code"
        and not FOLDING_TAGS & set(cell.metadata.get("tags", []))
        and len(cell.source.splitlines()) > LONGEST_VISIBLE_CELL
    ]
    assert not too_long, (
        f"(cell, lines) over {LONGEST_VISIBLE_CELL} lines: fold or split {too_long}"
    )


CHECKED_TAG = "nbval-check-output"
READS_LIKE_PARITY = re.compile(r"\b(equals?|identical|same as)\b", re.IGNORECASE)


def printed_verdicts(cell: nbformat.NotebookNode) -> list[str]:
    """The verdicts a cell printed, each joined back into one line (coursekit.verdicts wraps
    long ones, continuation lines indented by two spaces)."""
    return verdicts_in(
        "".join("".join(output.get("text", "")) for output in cell.get("outputs", []))
    )


def verdict_lines(path: Path) -> tuple[list[str], list[str]]:
    """The verdicts of the nbval-checked cells, and those printed anywhere else."""
    notebook = nbformat.read(path, as_version=4)
    checked, unchecked = [], []
    for cell in notebook.cells:
        if cell.cell_type == "code":
            found = printed_verdicts(cell)
            (checked if CHECKED_TAG in cell.metadata.get("tags", []) else unchecked).extend(found)
    return checked, unchecked


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_chapter_verdicts_are_checked_and_true(path: Path) -> None:
    checked, unchecked = verdict_lines(path)
    assert any(line.startswith("claim:") for line in checked), f"{path.name} states no claim"
    assert not unchecked, f"verdict lines outside an nbval-checked cell: {unchecked}"
    assert all(line.endswith(": True") for line in checked), checked


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_claims_are_findings_not_parity(path: Path) -> None:
    """Our code equal to its twin, or an identity, is a parity:/check: line, not a claim."""
    claims = [line for line in verdict_lines(path)[0] if line.startswith("claim:")]
    assert not [line for line in claims if READS_LIKE_PARITY.search(line)], claims


@pytest.mark.parametrize("path", NOTEBOOKS, ids=str)
def test_nbval_markers_are_tags_not_comments(path: Path) -> None:
    notebook = nbformat.read(ROOT / path, as_version=4)
    assert not [cell for cell in notebook.cells if "NBVAL_" in cell.source]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=str)
def test_title_first_then_the_badge_and_a_hidden_setup_cell(path: Path) -> None:
    notebook = nbformat.read(ROOT / path, as_version=4)
    title, setup = notebook.cells[0], notebook.cells[1]
    assert title.source.startswith("# ") and title.source.count("\n# ") == 0
    assert "remove-cell" in setup.metadata.get("tags", [])
    assert setup.source.startswith("# Set-up. In Colab: install coursekit")


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


@pytest.mark.parametrize("path", NOTEBOOKS, ids=str)
def test_outside_colab_a_missing_coursekit_says_how_to_install_it(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from IPython.core.inputtransformer2 import TransformerManager

    setup = nbformat.read(ROOT / path, as_version=4).cells[1].source
    python = TransformerManager().transform_cell(setup)  # the %pip line becomes plain Python
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(
        ModuleNotFoundError, match="%pip install 'seqmodels-coursekit @ git\\+https"
    ):
        exec(python, {})


FIND_SPEC = importlib.util.find_spec


class RecordingShell:
    """What the set-up cell's ``%pip`` line runs on: records the magics instead of running them."""

    def __init__(self) -> None:
        self.magics: list[tuple[str, str]] = []

    def run_line_magic(self, name: str, line: str) -> None:
        self.magics.append((name, line))


def run_setup_in_colab(
    path: Path, monkeypatch: pytest.MonkeyPatch, *, installed: bool
) -> RecordingShell:
    """Run the set-up cell of ``path`` as Colab would, with its packages installed or not."""
    from IPython.core.inputtransformer2 import TransformerManager

    setup = nbformat.read(ROOT / path, as_version=4).cells[1].source
    python = TransformerManager().transform_cell(setup)
    monkeypatch.setitem(sys.modules, "google.colab", type(sys)("google.colab"))
    monkeypatch.setenv("COURSEKIT_PROFILE", "ci")
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: FIND_SPEC(name) if installed else None
    )
    shell = RecordingShell()
    exec(python, {"get_ipython": lambda: shell})
    return shell


@pytest.mark.parametrize("path", NOTEBOOKS, ids=str)
def test_in_colab_the_setup_installs_once_then_chooses_the_profile(
    path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    first = run_setup_in_colab(path, monkeypatch, installed=False)
    assert [name for name, _ in first.magics] == ["pip"]
    assert repository_url() in first.magics[0][1]
    if path.parts[0] == "book":
        assert "coursekit: the ci profile" in capsys.readouterr().out
    again = run_setup_in_colab(path, monkeypatch, installed=True)
    assert again.magics == [], "a runtime that has the packages must not reinstall them"
