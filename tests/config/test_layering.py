"""Every import inside ``coursekit`` points down the package's layers.

From the bottom up (a module may import its own layer and the layers below it, never above):

 1. ``coursekit`` (the package's ``__init__``), ``config``, ``runtime``, ``show``, ``verdicts``,
    ``notebooks``, ``execution``, ``page``, ``arguments``: settings, seeds and devices, printing source and
    verdicts, notebook normalisation and execution, the book's text column that every figure fits, the
    requirements on arguments that every chapter shares; they import nothing of the package above
    them;
 2. ``text``: tokenizers, vocabularies, padding, masks;
 3. ``data``: the datasets, built on the text pipeline;
 4. ``metrics``: BLEU, perplexity, accuracy;
 5. ``generate``: decoding strategies over any model's step function (the seq2seq models of
    ``models`` call it to translate, so it sits below them);
 6. ``models`` and ``bptt``: the models of every chapter and Chapter 2's manual BPTT;
 7. ``parity``: the comparisons with the production twins;
 8. ``train``: ``fit`` and its parts;
 9. ``pretrain``: pretraining runs (masking, sentence pairs, Chapter 6's checkpoint), built on
    ``train``;
10. ``viz`` then 11. ``widgets``: figures, and the explorers built on them;
12. ``grading``: questions and ``check`` (the student's path, which never imports the instructor's
    batch grader in ``grading.instructor``), which use the models, metrics and
    pretraining data;
13. ``book``: the book's maintenance tools;
14. ``cli``: the ``coursekit`` command, at the top.

Imports are read with ``ast`` from every module, those inside functions and under
``TYPE_CHECKING`` included, and so are ``importlib.import_module("coursekit....")`` calls with
a literal name.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "coursekit"

LAYERS: list[set[str]] = [
    {
        "coursekit",
        "config",
        "runtime",
        "show",
        "verdicts",
        "notebooks",
        "execution",
        "page",
        "arguments",
    },
    {"text"},
    {"data"},
    {"metrics"},
    {"generate"},
    {"models", "bptt"},
    {"parity"},
    {"train"},
    {"pretrain"},
    {"viz"},
    {"widgets"},
    {"grading"},
    {"book"},
    {"cli"},
]
LEVEL = {unit: level for level, units in enumerate(LAYERS) for unit in units}


def module_name(path: Path) -> str:
    """``coursekit/models/lstm.py`` -> ``coursekit.models.lstm`` (a package by its folder)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def unit_of(module: str) -> str:
    """The layer unit of a module of coursekit: its subpackage or top-level module."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "coursekit"


def imported_modules(path: Path) -> Iterator[tuple[int, str]]:
    """``(line, module)`` for every import of a coursekit module in the file at ``path``."""
    package = module_name(path) if path.name == "__init__.py" else module_name(path.parent)
    return imports_in(path.read_text(encoding="utf-8"), package)


def imports_in(source: str, package: str) -> Iterator[tuple[int, str]]:
    """``(line, module)`` for every import of a coursekit module in ``source``, a module of
    ``package`` (against which relative imports are resolved)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolved against the importing module's package
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                names = [".".join([*base, *([node.module] if node.module else [])])]
            else:
                names = [node.module or ""]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names = [node.args[0].value]
        else:
            continue
        for name in names:
            if name == "coursekit" or name.startswith("coursekit."):
                yield node.lineno, name


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_has_a_layer() -> None:
    units = {unit_of(module_name(path)) for path in MODULES}
    assert units - set(LEVEL) == set(), "place the new subpackage or module in LAYERS"
    assert set(LEVEL) - units == set(), "LAYERS names a unit that no longer exists"


@pytest.mark.parametrize("path", MODULES, ids=lambda path: module_name(path))
def test_imports_point_down(path: Path) -> None:
    importer = unit_of(module_name(path))
    upward = [
        f"line {line}: {name} ({unit_of(name)} is above {importer})"
        for line, name in imported_modules(path)
        if LEVEL[unit_of(name)] > LEVEL[importer]
    ]
    assert upward == [], f"{module_name(path)} imports from a higher layer: {upward}"


STUDENT_GRADING = sorted(
    path
    for path in (PACKAGE / "grading").rglob("*.py")
    if "instructor" not in path.relative_to(PACKAGE / "grading").parts
)


@pytest.mark.parametrize("path", STUDENT_GRADING, ids=lambda path: module_name(path))
def test_the_students_check_path_never_imports_the_instructors_grader(path: Path) -> None:
    instructor = [
        f"line {line}: {name}"
        for line, name in imported_modules(path)
        if name.startswith("coursekit.grading.instructor")
    ]
    assert instructor == [], f"{module_name(path)} reaches into the batch grader: {instructor}"


def test_the_check_sees_every_kind_of_import() -> None:
    source = (
        "import coursekit.train\n"
        "if TYPE_CHECKING:\n"
        "    from coursekit.book import check\n"
        "def later():\n"
        "    from coursekit.cli import main\n"
        "    importlib.import_module('coursekit.grading')\n"
        "    from ..viz import palette\n"
        "    from . import masks\n"
    )
    found = sorted(name for _, name in imports_in(source, "coursekit.text"))
    assert found == sorted(
        [
            "coursekit.train",
            "coursekit.book",
            "coursekit.cli",
            "coursekit.grading",
            "coursekit.viz",
            "coursekit.text",
        ]
    )
