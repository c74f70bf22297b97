"""The notebooks' set-up cell changes none of Colab's packages.

Colab runs its kernel on pinned packages (ipykernel 6.17.1, ipywidgets 7.7.1, jupyter-client 7.x,
IPython 7.34, notebook 6.5) beside its own torch and numpy. When the package's requirements
exclude one of them, pip replaces it under the running kernel. The slow tests build a virtual
environment holding those pins and install the package as the set-up cell does (core dependencies
only, from the working tree): first with ``pip install --dry-run --report``, then for real; then
they import ``coursekit`` and ``check`` there and run a tiny ``fit`` in a live ipykernel 6.17.1,
whose progress bar must be an ipywidgets 7.7.1 widget.

torch is a stand-in: a wheel named ``torch`` 2.5.1 that holds only metadata, built by the test,
so that pip sees Colab's torch without a download of several GB. The stand-in cannot be imported,
so for the import and training checks the environment borrows the real torch of the Python that
runs the tests (with the packages torch requires) through a ``.pth`` path entry. Python puts that
entry after the environment's own site-packages, so every pinned package still comes from the
environment.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from project_files import ROOT, pyproject

COLAB_PINS = {
    "numpy": "2.0.2",
    "ipykernel": "6.17.1",
    "ipywidgets": "7.7.1",
    "jupyter-client": "7.4.9",
    "ipython": "7.34.0",
    "notebook": "6.5.7",
    "tqdm": "4.67.1",
}
STAND_IN_TORCH = "2.5.1"
GRADE_EXTRA = {"ipykernel", "jupyter-client", "nbclient", "nbformat"}
PACKAGE_FILES = ("pyproject.toml", "README.md", "coursekit")
PIP_OPTIONS = ("--disable-pip-version-check", "--retries", "1", "--timeout", "30")
UNREACHABLE = (
    "NewConnectionError",
    "ConnectTimeoutError",
    "Temporary failure in name resolution",
    "Network is unreachable",
)
NOT_MODULES = {"..", "__pycache__"}  # a distribution's scripts and caches
KERNEL_DRIVER = Path(__file__).with_name("colab_kernel_fit.py")
CHECK_IN_COLAB = """
import json, sys
import coursekit, coursekit.grading, ipywidgets
from coursekit.grading import check
def bleu_score(matches, totals, candidate_length, reference_length):
    # a student's answer to ch01.q4 (the reference itself would be a delegation, worth 0)
    import math
    if min(matches) == 0:
        return 0.0
    brevity = min(1.0, math.exp(1 - reference_length / candidate_length))
    logs = [math.log(m / t) for m, t in zip(matches, totals)]
    return 100 * brevity * math.exp(sum(logs) / 4)
result = check("ch01.q4", bleu_score)
print(json.dumps({"status": result.status, "ipywidgets": ipywidgets.__version__,
                  "loaded": sorted(m for m in ("nbformat", "nbclient") if m in sys.modules)}))
"""

SETUP_INSTALL = re.compile(r'%pip install -q "([^"]+)"')

pytestmark = pytest.mark.xdist_group("colab-install")


def core_requirements() -> dict[str, Requirement]:
    return {
        canonicalize_name(Requirement(line).name): Requirement(line)
        for line in pyproject()["project"]["dependencies"]
    }


def test_setup_cells_install_the_core_package_only() -> None:
    notebooks = sorted([*ROOT.glob("book/*.ipynb"), *ROOT.glob("exercises/*.ipynb")])
    installs = {}
    for path in notebooks:
        cells = json.loads(path.read_text())["cells"]
        sources = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]
        installs[path.name] = [
            found for source in sources for found in SETUP_INSTALL.findall(source)
        ]
    assert installs and all(len(found) == 1 for found in installs.values()), installs
    for found in installs.values():
        requirement = Requirement(found[0])
        assert requirement.name == pyproject()["project"]["name"] and not requirement.extras


def test_core_requirements_leave_colab_kernel_stack_alone() -> None:
    core = core_requirements()
    assert not set(core) & GRADE_EXTRA, "the grader's packages belong in the grade extra"
    for name, version in {**COLAB_PINS, "torch": STAND_IN_TORCH}.items():
        if name in core:
            assert core[name].specifier.contains(version), (
                f"{core[name]} excludes Colab's {version}"
            )
    assert core["ipywidgets"].specifier.contains("8.1.5")


def test_grade_extra_holds_the_grader_packages() -> None:
    extra = pyproject()["project"]["optional-dependencies"]["grade"]
    requirements = {canonicalize_name(Requirement(line).name): Requirement(line) for line in extra}
    assert set(requirements) == GRADE_EXTRA
    assert not requirements["nbclient"].specifier.contains("1.0.0")


def stand_in_torch_wheel(folder: Path) -> Path:
    """A wheel of the distribution ``torch`` that holds only its metadata (no module)."""
    info = f"torch-{STAND_IN_TORCH}.dist-info"
    files = {
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: torch\nVersion: {STAND_IN_TORCH}\n"
        "Summary: metadata-only stand-in for Colab's torch (coursekit's tests)\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: coursekit-tests\n"
        "Root-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{name},sha256={digest.decode()},{len(text.encode())}")
    files[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,"]) + "\n"
    wheel = folder / f"torch-{STAND_IN_TORCH}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return wheel


def pip(python: Path, *arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run pip in the environment; skip the module when pip cannot reach the package registry."""
    command = [str(python), "-m", "pip", *arguments, *PIP_OPTIONS]
    result = subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=300)
    output = result.stdout + result.stderr
    if result.returncode != 0 and any(marker in output for marker in UNREACHABLE):
        pytest.skip(f"pip cannot reach the package registry: {output[-500:]}")
    assert result.returncode == 0, output[-3000:]
    return result


def distributions(python: Path) -> dict[str, str]:
    """Every distribution installed in the environment of ``python``, name to version."""
    listing = subprocess.run(
        [str(python), "-m", "pip", "list", "--format", "json", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        check=True,
    )
    return {canonicalize_name(row["name"]): row["version"] for row in json.loads(listing.stdout)}


def torch_and_its_requirements() -> set[Path]:
    """The top-level modules of the running Python's torch and of everything it requires."""
    modules: set[Path] = set()
    seen: set[str] = set()
    pending = ["torch"]
    while pending:
        name = canonicalize_name(pending.pop())
        if name in seen:
            continue
        seen.add(name)
        distribution = metadata.distribution(name)
        tops = {file.parts[0] for file in distribution.files or []}
        for top in tops - NOT_MODULES:
            if not top.endswith((".dist-info", ".data", ".pth")):
                modules.add(Path(str(distribution.locate_file(top))))
        for line in distribution.requires or []:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                pending.append(requirement.name)
    return modules


def lend_torch(python: Path, folder: Path) -> None:
    """Make the real torch importable in the environment, behind its own site-packages."""
    loan = folder / "borrowed-torch"
    loan.mkdir()
    for module in torch_and_its_requirements():
        (loan / module.name).symlink_to(module)
    site_packages = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site_packages) / "borrowed_torch.pth").write_text(f"{loan}\n")


@pytest.fixture(scope="module")
def colab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, Path]]:
    """A virtual environment with Colab's pins (its Python, its folder) and the package source,
    removed after the module's tests (it takes some 400 MB)."""
    if sys.version_info >= (3, 13):
        pytest.skip("Colab runs Python 3.12, and numpy 2.0.2 has no wheel for 3.13")
    folder = tmp_path_factory.mktemp("colab")
    subprocess.run([sys.executable, "-m", "venv", str(folder / "venv")], check=True)
    python = folder / "venv" / "bin" / "python"
    pins = [str(stand_in_torch_wheel(folder)), *(f"{n}=={v}" for n, v in COLAB_PINS.items())]
    pip(python, "install", "--quiet", "--no-compile", *pins, cwd=folder)
    source = folder / "source"
    source.mkdir()
    for name in PACKAGE_FILES:
        if (ROOT / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
            shutil.copytree(ROOT / name, source / name, ignore=ignore)
        else:
            shutil.copy2(ROOT / name, source / name)
    yield python, folder, source
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def dry_run_report(colab: tuple[Path, Path, Path]) -> dict[str, Any]:
    """pip's JSON report of what the set-up cell's install would do."""
    python, folder, source = colab
    report = folder / "report.json"
    pip(python, "install", "--dry-run", "--quiet", "--report", str(report), str(source), cwd=folder)
    return json.loads(report.read_text())


@pytest.fixture(scope="module")
def installed(
    colab: tuple[Path, Path, Path], dry_run_report: dict[str, Any]
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The package really installed into the environment, and real torch lent to it."""
    python, folder, source = colab
    result = pip(python, "install", "--no-compile", str(source), cwd=folder)
    lend_torch(python, folder)
    return python, result


@pytest.mark.slow
def test_dry_run_installs_the_package_and_changes_no_colab_pin(
    dry_run_report: dict[str, Any],
) -> None:
    planned = {
        canonicalize_name(item["metadata"]["name"]): item["metadata"]["version"]
        for item in dry_run_report["install"]
    }
    assert "seqmodels-coursekit" in planned
    touched = {name: planned[name] for name in [*COLAB_PINS, "torch"] if name in planned}
    assert not touched, f"the set-up cell would replace Colab's {touched}"


@pytest.mark.slow
def test_install_keeps_every_pin_and_reports_no_conflict(
    installed: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    python, result = installed
    present = distributions(python)
    assert present["seqmodels-coursekit"]
    assert {name: present[name] for name in COLAB_PINS} == COLAB_PINS
    assert present["torch"] == STAND_IN_TORCH
    assert "dependency conflicts" not in result.stdout + result.stderr


@pytest.mark.slow
def test_check_runs_with_colab_pins_and_no_notebook_machinery(
    installed: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    python, _ = installed
    result = subprocess.run(
        [str(python), "-c", CHECK_IN_COLAB], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-3000:]
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary == {"status": "passed", "ipywidgets": "7.7.1", "loaded": []}


@pytest.mark.slow
def test_fit_shows_an_ipywidgets_7_progress_bar_in_colab_kernel(
    installed: tuple[Path, subprocess.CompletedProcess[str]], tmp_path: Path
) -> None:
    python, _ = installed
    result = subprocess.run(
        [str(python), str(KERNEL_DRIVER), str(tmp_path / "kernels")],
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "HOME": str(tmp_path), "OMP_NUM_THREADS": "1"},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    cell = json.loads(result.stdout)
    errors = [m["content"] for m in cell["messages"] if m["msg_type"] == "error"]
    assert cell["status"] == "ok", errors
    printed = "".join(
        m["content"]["text"]
        for m in cell["messages"]
        if m["msg_type"] == "stream" and m["content"]["name"] == "stdout"
    )
    facts = json.loads(printed.strip().splitlines()[-1])
    assert facts == {
        "ipywidgets": "7.7.1",
        "tqdm": COLAB_PINS["tqdm"],
        "notebook_bar": True,
        "epochs_trained": 2,
    }
    opened = {
        m["content"]["comm_id"]: m["content"]["data"]["state"]
        for m in cell["messages"]
        if m["msg_type"] == "comm_open"
    }
    bars = [comm for comm, state in opened.items() if state["_model_name"] == "FloatProgressModel"]
    boxes = [comm for comm, state in opened.items() if state["_model_name"] == "HBoxModel"]
    assert len(bars) == 1 and len(boxes) == 1, opened
    assert opened[boxes[0]]["_view_module_version"].startswith("1.")  # ipywidgets 7's protocol
    shown = [
        m["content"]["data"]["application/vnd.jupyter.widget-view+json"]["model_id"]
        for m in cell["messages"]
        if m["msg_type"] == "display_data"
        and "application/vnd.jupyter.widget-view+json" in m["content"]["data"]
    ]
    assert shown == boxes
    updates = [
        m["content"]["data"]["state"]
        for m in cell["messages"]
        if m["msg_type"] == "comm_msg" and m["content"]["comm_id"] == bars[0]
    ]
    assert {"value": 8} in updates, "the bar never reached 2 epochs x 4 steps"
    assert updates[-1] == {"bar_style": "success"}
