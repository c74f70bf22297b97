"""Show the package's own source in the book, so the reader sees the code that the tests check."""

from __future__ import annotations

import inspect
import sys
import textwrap
from typing import Any


def _in_notebook() -> bool:
    """True inside a Jupyter kernel (the book, Colab), False in a terminal or a test."""
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    ip = shell.get_ipython()  # type: ignore[attr-defined]
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


def source_of(obj: Any) -> str:
    """The dedented source code of a coursekit function, class, method or module."""
    try:
        return textwrap.dedent(inspect.getsource(obj))
    except (TypeError, OSError) as error:
        raise TypeError(f"no Python source is available for {obj!r}") from error


def show_source(obj: Any) -> Any:
    """Display the source of ``obj``: syntax-highlighted in a notebook, plain text elsewhere.

    In a notebook it returns an ``IPython.display.Code`` object, which Jupyter renders with
    highlighting; elsewhere it prints the text and returns ``None``.
    """
    code = source_of(obj)
    if _in_notebook():
        from IPython.display import Code

        return Code(code, language="python")
    print(code)
    return None
