"""The book's maintenance tools: normalisation and the offline content check."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from coursekit.book import OFFLINE_IMAGE, check, use_local_images
from coursekit.notebooks import is_normalised, normalise

BADGE = (
    "[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://x.y/z)"
)


def executed_notebook() -> nbformat.NotebookNode:
    cell = new_code_cell("print(1)", metadata={"execution": {"iopub.execute_input": "2026-01-01"}})
    cell.outputs = [new_output("stream", name="stdout", text="1\n")]
    notebook = new_notebook(cells=[cell])
    notebook.metadata = {"kernelspec": {"name": "my-env", "display_name": "mine"}, "widgets": {}}
    return notebook


def test_normalise_strips_run_noise_and_keeps_outputs() -> None:
    notebook = executed_notebook()
    assert not is_normalised(notebook)
    normalised = normalise(notebook)
    assert is_normalised(normalised)
    assert normalised.metadata.kernelspec.name == "python3"
    assert "widgets" not in normalised.metadata
    assert "execution" not in normalised.cells[0].metadata
    assert normalised.cells[0].outputs[0].text == "1\n"


def test_normalise_drops_widget_views_whose_state_is_not_stored() -> None:
    notebook = executed_notebook()
    progress_bar = new_output(
        "display_data",
        data={"application/vnd.jupyter.widget-view+json": {"model_id": "x"}, "text/plain": "0%"},
    )
    notebook.cells[0].outputs.append(progress_bar)
    outputs = normalise(notebook).cells[0].outputs
    assert [output.output_type for output in outputs] == ["stream"]


def test_consecutive_prints_to_one_stream_become_one_output() -> None:
    notebook = executed_notebook()
    progress_bar = new_output(
        "display_data",
        data={"application/vnd.jupyter.widget-view+json": {"model_id": "x"}, "text/plain": "0%"},
    )
    notebook.cells[0].outputs += [
        progress_bar,
        new_output("stream", name="stdout", text="2\n"),
        new_output("stream", name="stderr", text="warning\n"),
        new_output("stream", name="stdout", text="3\n"),
    ]
    outputs = normalise(notebook).cells[0].outputs
    assert [(output.name, output.text) for output in outputs] == [
        ("stdout", "1\n2\n"),
        ("stderr", "warning\n"),
        ("stdout", "3\n"),
    ]


def test_remote_images_are_replaced_by_a_local_placeholder(tmp_path: Path) -> None:
    (tmp_path / "page.md").write_text(f"# Page\n\n{BADGE}\n[a link](https://example.org)\n")
    nbformat.write(new_notebook(cells=[new_markdown_cell(BADGE)]), tmp_path / "01-x.ipynb")
    use_local_images(tmp_path)
    page = (tmp_path / "page.md").read_text()
    assert f"![Open In Colab]({OFFLINE_IMAGE})" in page and "colab-badge.svg" not in page
    assert "[a link](https://example.org)" in page, "only images are replaced"
    cell = nbformat.read(tmp_path / "01-x.ipynb", as_version=4).cells[0]
    assert f"![Open In Colab]({OFFLINE_IMAGE})](https://x.y/z)" in cell.source
    assert (tmp_path / OFFLINE_IMAGE).exists()


def write_book(folder: Path, intro: str) -> Path:
    folder.mkdir()
    (folder / "myst.yml").write_text(
        "version: 1\nproject:\n  title: T\n  toc:\n    - file: intro.md\nsite:\n  template: book-theme\n"
    )
    (folder / "intro.md").write_text(intro)
    return folder


@pytest.mark.slow
def test_offline_check_passes_a_clean_book_and_fails_a_broken_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clean = write_book(tmp_path / "clean", f"# Intro\n\n{BADGE}\n\nSome text.\n")
    assert check(clean) == 0
    broken = write_book(tmp_path / "broken", "# Intro\n\n```{no-such-directive}\nx\n```\n")
    assert check(broken) == 1
    assert "no-such-directive" in capsys.readouterr().out
    assert not (clean / "_build").exists(), "the check builds in a temporary copy"
