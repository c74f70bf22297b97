"""show_source: the package's own code, highlighted in a notebook without any stylesheet, plain in
a terminal, whole or a slice of its lines."""

from __future__ import annotations

import re

import pytest

from coursekit import show
from coursekit.metrics import brevity_penalty
from coursekit.show import SourceCode, highlighted_html, show_source, source_of


def test_the_source_is_the_functions_own_text() -> None:
    text = source_of(brevity_penalty)
    assert text.startswith("def brevity_penalty(")
    assert "return" in text


def test_lines_keep_a_slice_counted_from_one() -> None:
    whole = source_of(brevity_penalty).splitlines()
    assert source_of(brevity_penalty, lines=(1, 2)).splitlines() == whole[:2]
    assert source_of(brevity_penalty, lines=(len(whole), len(whole))).strip() == whole[-1].strip()
    with pytest.raises(ValueError, match="1 <= first <= last"):
        source_of(brevity_penalty, lines=(3, 2))
    with pytest.raises(ValueError, match=f"last <= {len(whole)}"):
        source_of(brevity_penalty, lines=(1, len(whole) + 1))


def test_objects_without_source_are_explained() -> None:
    with pytest.raises(TypeError, match="no Python source"):
        source_of(len)


def test_the_html_is_highlighted_with_inline_styles_only() -> None:
    html = highlighted_html("def f(x):\n    return x  # comment\n")
    assert "<style" not in html and "class=" not in html  # nothing that depends on page CSS
    assert re.search(r'<span style="[^"]*color: #[0-9A-Fa-f]{3,6}[^"]*">def</span>', html)
    assert "overflow-x:auto" in html  # long lines scroll instead of wrapping into the prose


def test_a_notebook_gets_html_and_a_terminal_plain_text(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    show_source(brevity_penalty)
    assert capsys.readouterr().out == source_of(brevity_penalty) + "\n"
    shown: list[object] = []
    monkeypatch.setattr(show, "_in_notebook", lambda: True)
    monkeypatch.setattr("IPython.display.display", shown.append)
    show_source(brevity_penalty, lines=(1, 3))
    (displayed,) = shown
    assert isinstance(displayed, SourceCode)
    assert repr(displayed) == source_of(brevity_penalty, lines=(1, 3))
    assert "brevity_penalty" in displayed._repr_html_()
