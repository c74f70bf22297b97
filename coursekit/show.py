"""Show the package's own source in the book, so the reader sees the code that the tests check."""

from __future__ import annotations

import inspect
import sys
import textwrap
from typing import Any

FRAME = (
    "background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;"
    "padding:0.6em 0.9em;overflow-x:auto;margin:0.5em 0"
)
PRE = "margin:0;white-space:pre;font-size:0.78em;"


def _in_notebook() -> bool:
    """True inside a Jupyter kernel (the book, Colab), False in a terminal or a test."""
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    ip = shell.get_ipython()
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


def source_of(obj: Any, lines: tuple[int, int] | None = None) -> str:
    """The dedented source of a coursekit function, class, method or module.

    ``lines=(first, last)`` keeps lines ``first`` to ``last`` of it, counted from 1 and
    inclusive, e.g. the core of a function without its argument checks.
    """
    try:
        text = textwrap.dedent(inspect.getsource(obj))
    except (TypeError, OSError) as error:
        raise TypeError(f"no Python source is available for {obj!r}") from error
    if lines is None:
        return text
    first, last = lines
    all_lines = text.splitlines()
    if not 1 <= first <= last <= len(all_lines):
        raise ValueError(
            f"lines must be (first, last) with 1 <= first <= last <= {len(all_lines)} for this "
            f"source, got {lines}"
        )
    return textwrap.dedent("\n".join(all_lines[first - 1 : last])) + "\n"


def highlighted_html(code: str) -> str:
    """``code`` as Python highlighted by Pygments with inline styles, in a framed block that
    scrolls sideways: it needs no stylesheet, so it looks the same in the HTML book, JupyterLab
    and Colab, and it changes nothing else on the page."""
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    html = highlight(code, PythonLexer(), HtmlFormatter(noclasses=True, nobackground=True))
    html = html.replace(
        '<div class="highlight"><pre style="', f'<div style="{FRAME}"><pre style="{PRE}', 1
    )
    return html


class SourceCode:
    """Source code that a notebook shows highlighted (``text/html``) and a terminal or a test
    as plain text (``text/plain``)."""

    def __init__(self, code: str) -> None:
        self.code = code

    def _repr_html_(self) -> str:
        return highlighted_html(self.code)

    def __repr__(self) -> str:
        return self.code


def show_source(obj: Any, lines: tuple[int, int] | None = None) -> None:
    """Display the source of ``obj`` (or its ``lines``, see :func:`source_of`): highlighted in a
    notebook (the book, JupyterLab, Colab), as plain text elsewhere.
    """
    code = source_of(obj, lines)
    if _in_notebook():
        from IPython.display import display

        display(SourceCode(code))
    else:
        print(code)
