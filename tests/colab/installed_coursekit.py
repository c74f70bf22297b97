"""pytest plugin of ``make test-colab``: the tests run against the ``coursekit`` installed in the
Colab-shaped environment, never the working tree's copy.

``make test-colab`` runs the BERT and XLNet parity tests from the repository's root with
``-p installed_coursekit``; in the main process and in every xdist worker this plugin stops the
run before any test when ``coursekit`` would be imported from outside the environment's
site-packages (a current folder or ``PYTHONPATH`` entry ahead of it).
"""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest


def pytest_configure(config: pytest.Config) -> None:
    import coursekit

    site_packages = Path(sysconfig.get_path("purelib")).resolve()
    location = Path(coursekit.__file__ or "").resolve()
    if not location.is_relative_to(site_packages):
        raise pytest.UsageError(f"coursekit comes from {location}, not from {site_packages}")
