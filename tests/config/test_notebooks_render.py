"""Every figure of every notebook shows outside the HTML book too.

Jupyter and Colab render a notebook's markdown themselves, without MyST: a directive
(```` ```{figure} ````) comes out as a block of code, and an image stored beside the notebook
is missing once the notebook is opened from GitHub in Colab or saved to Drive. So each notebook
is copied alone into an empty folder and rendered with nbconvert, as Jupyter renders it; every
image must travel inside it (a PNG or JPEG ``data:`` URI, which Colab shows, unlike SVG ones and
cell attachments) or be the Colab badge, and no MyST directive may be left in its text.
"""

from __future__ import annotations

import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
from nbconvert import HTMLExporter

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted(
    path.relative_to(ROOT)
    for folder in ("book", "exercises")
    for path in (ROOT / folder).glob("[0-9][0-9]-*.ipynb")
)
SHOWN_DATA = ("data:image/png;base64,", "data:image/jpeg;base64,")
COLAB_BADGE = "https://colab.research.google.com/assets/colab-badge.svg"


class RenderedPage(HTMLParser):
    """The images and the code blocks' languages of a rendered page, and its text."""

    def __init__(self) -> None:
        super().__init__()
        self.images: list[str] = []
        self.code_languages: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "img":
            self.images.append(attributes.get("src") or "")
        if tag == "code":
            self.code_languages += [
                name.removeprefix("language-")
                for name in (attributes.get("class") or "").split()
                if name.startswith("language-")
            ]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def rendered(path: Path, folder: Path) -> RenderedPage:
    alone = folder / path.name
    shutil.copy(ROOT / path, alone)
    html, _ = HTMLExporter().from_filename(str(alone))
    page = RenderedPage()
    page.feed(html)
    return page


@pytest.mark.parametrize("path", NOTEBOOKS, ids=str)
def test_every_image_travels_inside_and_no_directive_shows(path: Path, tmp_path: Path) -> None:
    page = rendered(path, tmp_path)
    assert page.images, f"{path} shows no image at all, not even its Colab badge"
    for source in page.images:
        if source.startswith("data:"):
            assert source.startswith(SHOWN_DATA), f"{path}: Colab does not show {source[:30]}..."
        else:
            assert source == COLAB_BADGE, f"{path}: {source!r} is not in the notebook"
    directives = [language for language in page.code_languages if language.startswith("{")]
    assert not directives, f"{path}: Jupyter shows {directives} as code"
    assert ":::{" not in "".join(page.text), f"{path}: a colon-fenced directive shows as text"


def test_a_directive_and_a_file_image_are_caught(tmp_path: Path) -> None:
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("```{figure} figures/x.svg\nA caption.\n```"),
        nbformat.v4.new_markdown_cell("![a diagram](figures/x.svg)"),
    ]
    path = tmp_path / "source" / "probe.ipynb"
    path.parent.mkdir()
    nbformat.write(notebook, path)
    (tmp_path / "alone").mkdir()
    page = rendered(path, tmp_path / "alone")
    assert "{figure}" in page.code_languages
    assert page.images == ["figures/x.svg"]
