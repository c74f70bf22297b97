"""The repository's configuration files agree with each other."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from project_files import pyproject


def makefile_targets(root: Path) -> set[str]:
    text = (root / "Makefile").read_text()
    return set(re.findall(r"^([a-zA-Z][\w-]*):", text, flags=re.MULTILINE))


def make_invocations(command: str) -> list[list[str]]:
    """The target lists of every ``make ...`` call in a shell snippet."""
    calls = []
    for line in command.splitlines():
        words = shlex.split(line)
        if words[:1] == ["make"]:
            calls.append(
                [word for word in words[1:] if "=" not in word and not word.startswith("-")]
            )
    return calls


def test_ci_runs_the_readme_test_command_and_nothing_else(repo_root: Path) -> None:
    commands = [
        line.strip()
        for line in (repo_root / ".ci/run").read_text().splitlines()
        if line.strip() and not line.startswith("#") and not line.startswith(("set ", "cd "))
    ]
    assert commands == ["make test"]
    readme = (repo_root / "README.md").read_text()
    assert "make test" in readme and "make book" in readme


@pytest.mark.parametrize("workflow", ["ci.yml", "book.yml", "gpu.yml"])
def test_workflow_commands_exist_in_the_makefile(repo_root: Path, workflow: str) -> None:
    spec = yaml.safe_load((repo_root / ".github/workflows" / workflow).read_text())
    targets = makefile_targets(repo_root)
    runs = [
        step["run"]
        for job in spec["jobs"].values()
        for step in job.get("steps", [])
        if "run" in step
    ]
    make_calls = [call for run in runs for call in make_invocations(run)]
    if workflow != "book.yml" or runs:
        assert make_calls, f"{workflow} runs no make target"
    for call in make_calls:
        assert set(call) <= targets, f"{workflow} calls unknown targets {set(call) - targets}"


def test_the_gpu_lane_runs_every_notebook_on_each_push_to_main_and_nightly(repo_root: Path) -> None:
    spec = yaml.safe_load((repo_root / ".github/workflows/gpu.yml").read_text())
    triggers = spec[True]  # YAML 1.1 reads the key `on` as a boolean
    assert triggers["push"]["branches"] == ["main"] and triggers["schedule"]
    (job,) = spec["jobs"].values()
    assert job["runs-on"] == ["self-hosted", "gpu"] and job["env"]["COURSEKIT_DEVICE"] == "cuda"
    assert "make test-notebooks PROFILE=full" in [step.get("run") for step in job["steps"]]
    assert "## GPU runner" in (repo_root / "README.md").read_text()


def test_makefile_test_target_covers_every_lane(repo_root: Path) -> None:
    test_rule = re.search(r"^test:(.*)$", (repo_root / "Makefile").read_text(), re.MULTILINE)
    assert test_rule is not None
    prerequisites = test_rule.group(1).split("##")[0].split()
    for lane in ("test-python", "test-notebooks", "test-exercises", "book-check", "test-legacy"):
        assert lane in prerequisites


def test_environment_yml_matches_pyproject(repo_root: Path) -> None:
    project = pyproject()["project"]
    environment = yaml.safe_load((repo_root / "environment.yml").read_text())
    dependencies = environment["dependencies"]
    python = next(d for d in dependencies if isinstance(d, str) and d.startswith("python"))
    assert SpecifierSet(python.removeprefix("python")) == SpecifierSet(project["requires-python"])
    pip_section = next(d["pip"] for d in dependencies if isinstance(d, dict) and "pip" in d)
    venv_install = re.search(r'pip install .*-e "\.\[(.*)\]"', (repo_root / "Makefile").read_text())
    assert venv_install is not None, "the Makefile's venv target installs no extras"
    assert pip_section == [f"-e .[{venv_install.group(1)}]"], (
        "environment.yml differs from make venv"
    )
    assert set(venv_install.group(1).split(",")) == set(project["optional-dependencies"])


def test_runtime_dependencies_stay_light(repo_root: Path) -> None:
    project = pyproject()["project"]
    runtime = {Requirement(r).name for r in project["dependencies"]}
    references = {"transformers", "tokenizers", "sacrebleu", "torchtext", "jupyter-book"}
    assert not runtime & references, "parity references and the book toolchain belong in extras"
    torch = next(Requirement(r) for r in project["dependencies"] if r.startswith("torch"))
    assert torch.specifier.contains("2.4.0") and torch.specifier.contains("2.11.0")


def test_distribution_is_not_the_unrelated_coursekit(repo_root: Path) -> None:
    project = pyproject()["project"]
    assert project["name"] != "coursekit"
    assert project["scripts"]["coursekit"] == "coursekit.cli:main"
