"""A bad COURSEKIT_PROFILE or COURSEKIT_DEVICE is explained where it is needed: `import
coursekit` works, the first use names the variable and its valid values, and `coursekit
doctor` reports the value on its line instead of crashing."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import coursekit
from coursekit.cli import main


def run_python(code: str, **variables: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter with ``variables`` set in its environment."""
    environment = {**os.environ, **variables}
    return subprocess.run(
        [sys.executable, "-c", code], env=environment, capture_output=True, text=True, timeout=120
    )


def test_import_works_with_an_unknown_profile_and_the_first_use_explains_it() -> None:
    result = run_python(
        "import coursekit, coursekit.train\n"
        "try:\n"
        "    coursekit.pick(full=1, ci=2)\n"
        "except ValueError as error:\n"
        "    print(error)",
        COURSEKIT_PROFILE="fast",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        "COURSEKIT_PROFILE='fast' is not a profile of the course: set it to 'full' (the "
        "default, chapters sized for a few minutes) or 'ci' (a minute each), or unset it"
    )


def test_profile_is_read_when_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COURSEKIT_PROFILE", "ci")
    assert coursekit.PROFILE == "ci" and coursekit.pick(full=1, ci=2) == 2
    monkeypatch.setenv("COURSEKIT_PROFILE", "full")
    assert coursekit.PROFILE == "full"
    monkeypatch.setenv("COURSEKIT_PROFILE", "fast")
    with pytest.raises(ValueError, match="COURSEKIT_PROFILE='fast' is not a profile"):
        _ = coursekit.PROFILE


def test_an_unknown_device_name_says_which_names_work(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COURSEKIT_DEVICE", "gpu")
    with pytest.raises(ValueError) as error:
        coursekit.get_device()
    message = str(error.value)
    assert message.startswith("COURSEKIT_DEVICE='gpu' is not a device torch knows: set it to ")
    assert "cpu, cuda, cuda:1 or mps, or unset it" in message


@pytest.mark.parametrize(
    ("variable", "value", "line"),
    [
        ("COURSEKIT_PROFILE", "fast", "profile     PROBLEM: COURSEKIT_PROFILE='fast' is not a"),
        ("COURSEKIT_DEVICE", "gpu", "device      PROBLEM: COURSEKIT_DEVICE='gpu' is not a"),
        ("COURSEKIT_SEED", "-1", "seed shift  PROBLEM: COURSEKIT_SEED='-1' is not a seed shift"),
    ],
)
def test_doctor_reports_a_bad_setting_and_goes_on(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    variable: str,
    value: str,
    line: str,
) -> None:
    monkeypatch.setenv(variable, value)
    assert main(["doctor"]) == 1
    printed = capsys.readouterr().out.splitlines()
    assert any(text.startswith(line) for text in printed), printed
    assert printed[-2].startswith("data cache") and printed[-1].startswith("colab")


def test_the_doctor_command_runs_with_an_unknown_profile() -> None:
    result = run_python(
        "from coursekit.cli import main; raise SystemExit(main(['doctor']))",
        COURSEKIT_PROFILE="fast",
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "profile     PROBLEM: COURSEKIT_PROFILE='fast'" in result.stdout
