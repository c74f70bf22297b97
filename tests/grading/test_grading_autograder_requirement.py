"""The autograder's setup.sh installs exactly the coursekit that built it: a git install at its
commit, a local checkout at the checkout's commit, otherwise the released version."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from coursekit import __version__
from coursekit.grading.instructor import autograder
from coursekit.grading.instructor.autograder import COURSE_REPOSITORY, coursekit_requirement


class Distribution:
    def __init__(self, direct_url: dict | None) -> None:
        self.direct_url = direct_url

    def read_text(self, name: str) -> str | None:
        assert name == "direct_url.json"
        return None if self.direct_url is None else json.dumps(self.direct_url)


def installed_from(monkeypatch: pytest.MonkeyPatch, direct_url: dict | None) -> None:
    monkeypatch.setattr(autograder.metadata, "distribution", lambda name: Distribution(direct_url))


def test_a_git_install_is_pinned_to_its_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    url = "https://example.org/fork/sequence-models"
    installed_from(monkeypatch, {"url": url, "vcs_info": {"vcs": "git", "commit_id": "abc123"}})
    assert coursekit_requirement() == f"seqmodels-coursekit[grade] @ git+{url}@abc123"


def test_a_local_checkout_is_pinned_to_its_commit(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "file").write_text("x")
    git = ["git", "-C", str(tmp_path), "-c", "user.name=a", "-c", "user.email=a@b"]
    subprocess.run([*git, "add", "file"], check=True)
    subprocess.run([*git, "commit", "-qm", "x"], check=True)
    commit = subprocess.run(
        [*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    installed_from(monkeypatch, {"url": f"file://{tmp_path}", "dir_info": {"editable": True}})
    assert (
        coursekit_requirement() == f"seqmodels-coursekit[grade] @ git+{COURSE_REPOSITORY}@{commit}"
    )


@pytest.mark.parametrize(
    "direct_url", [None, {"url": "file:///nowhere/without/git", "dir_info": {}}]
)
def test_otherwise_the_released_version(
    monkeypatch: pytest.MonkeyPatch, direct_url: dict | None
) -> None:
    installed_from(monkeypatch, direct_url)
    assert coursekit_requirement() == f"seqmodels-coursekit[grade]=={__version__}"
