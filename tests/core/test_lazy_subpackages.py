"""``coursekit.<subpackage>`` works after a bare ``import coursekit``, as the exercises' "Where
next" sections write it, and ``import coursekit`` stays light."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import coursekit
from coursekit.show import source_of

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted([*ROOT.glob("exercises/*.ipynb"), *ROOT.glob("solutions/*.ipynb")])
SHOWN = re.compile(r"show_source\((coursekit(?:\.\w+)+)\)")
WHERE_NEXT = sorted({name for path in NOTEBOOKS for name in SHOWN.findall(path.read_text())})


def run_fresh(code: str) -> str:
    """Run ``code`` in a new interpreter (nothing of coursekit imported yet); return its stdout."""
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def resolve(dotted: str) -> object:
    obj: object = coursekit
    for name in dotted.split(".")[1:]:
        obj = getattr(obj, name)
    return obj


def test_the_notebooks_show_sources() -> None:
    assert "coursekit.metrics.modified_precision" in WHERE_NEXT
    assert "coursekit.models.LSTMCell" in WHERE_NEXT


@pytest.mark.parametrize("dotted", WHERE_NEXT)
def test_where_next_example_prints_the_source(dotted: str) -> None:
    printed = run_fresh(
        f"import coursekit\nfrom coursekit import show_source\nshow_source({dotted})"
    )
    assert printed == source_of(resolve(dotted)) + "\n"
    assert re.match(rf"(def|class) {dotted.rsplit('.', 1)[1]}\b", printed)


def test_import_coursekit_loads_no_subpackage_and_no_matplotlib() -> None:
    heavy = ("matplotlib", "ipywidgets", *(f"coursekit.{name}" for name in coursekit.SUBPACKAGES))
    code = (
        "import json, sys, coursekit\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({heavy!r}))))"
    )
    assert json.loads(run_fresh(code)) == []


def test_subpackage_access_imports_it_once() -> None:
    metrics = coursekit.metrics
    assert metrics is sys.modules["coursekit.metrics"]
    assert coursekit.metrics is metrics


def test_dir_lists_every_subpackage() -> None:
    names = dir(coursekit)
    for name in [*coursekit.SUBPACKAGES, *coursekit.__all__]:
        assert name in names
    for name in coursekit.SUBPACKAGES:
        assert (ROOT / "coursekit" / name).is_dir() or (ROOT / "coursekit" / f"{name}.py").exists()


def test_unknown_attribute_names_what_exists() -> None:
    with pytest.raises(AttributeError, match=r"no attribute 'metric'.*show_source.*metrics"):
        coursekit.metric  # noqa: B018
    assert not hasattr(coursekit, "book_of_answers")
