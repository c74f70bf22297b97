"""verdict: one statement per line group, wrapped to the column, True or False at the end."""

from __future__ import annotations

import pytest
import torch

from coursekit.verdicts import COLUMN, verdict, verdict_text


def test_a_short_verdict_is_one_line() -> None:
    assert verdict_text("parity", "ours equals torch", torch.tensor(True)) == (
        "parity: ours equals torch: True"
    )


def test_a_long_verdict_wraps_to_the_column_and_ends_with_its_value(
    capsys: pytest.CaptureFixture[str],
) -> None:
    statement = "at a span of 20 words the GRU is right on every seed " * 3
    verdict("claim", statement.strip(), False)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) > 1 and all(len(line) <= COLUMN for line in lines)
    assert lines[0].startswith("claim: ") and all(line.startswith("  ") for line in lines[1:])
    assert lines[-1].endswith(": False")
    assert " ".join(line.strip() for line in lines) == f"claim: {statement.strip()}: False"


def test_only_the_three_kinds_exist() -> None:
    with pytest.raises(ValueError, match="kind must be one of"):
        verdict_text("finding", "x", True)  # type: ignore[arg-type]
