"""What every explorer shares: is there a live kernel to run widgets in? (Chapters 4-7.)

An explorer is interactive only inside a running Jupyter kernel (JupyterLab, Notebook, Colab,
VS Code) with ipywidgets installed; anywhere else (the HTML book, a terminal, a test) the
sliders would be dead, so each explorer returns a static figure instead. Only widgets and APIs
found in both ipywidgets 7.6 and 8 are used.
"""

from __future__ import annotations

import importlib.util
import sys


def ipywidgets_available() -> bool:
    """True when ipywidgets can be imported."""
    return importlib.util.find_spec("ipywidgets") is not None


def live_kernel() -> bool:
    """True inside a running IPython kernel (a shell with a ``kernel``), not a terminal IPython."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    shell = ipython.get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def use_widgets(interactive: bool | None) -> bool:
    """Whether an explorer builds widgets: ``interactive`` when given, else a live kernel with
    ipywidgets. ``interactive=True`` without ipywidgets raises an ``ImportError`` with the fix.
    """
    if interactive is None:
        return live_kernel() and ipywidgets_available()
    if interactive and not ipywidgets_available():
        raise ImportError(
            "interactive=True needs ipywidgets: pip install 'ipywidgets>=7.6' (or pass "
            "interactive=False for a static figure)"
        )
    return interactive
