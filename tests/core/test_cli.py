"""The coursekit console script."""

from __future__ import annotations

import subprocess
import sys

import pytest

from coursekit import __version__
from coursekit.cli import main


def test_doctor_reports_versions_device_and_profile(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor"]) == 0
    report = capsys.readouterr().out
    for line_start in (
        "coursekit", "python", "torch", "device", "profile", "seed shift", "data cache", "colab",
    ):  # fmt: skip
        assert any(line.startswith(line_start) for line in report.splitlines()), line_start


def test_data_list_names_every_dataset(capsys: pytest.CaptureFixture[str]) -> None:
    from coursekit import data

    assert main(["data", "list"]) == 0
    listed = capsys.readouterr().out
    for name in data.names():
        assert name in listed


def test_unknown_dataset_is_an_error_not_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["data", "download", "no-such-dataset"]) == 1
    assert "no-such-dataset" in capsys.readouterr().err


def test_console_script_version() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "coursekit.cli", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == f"coursekit {__version__}"
