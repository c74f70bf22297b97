"""A class graded in shards as parallel processes merges to the one-process gradebook byte for
byte; a failed shard is reported by the merge; the Slurm script and the GitHub Actions workflow
run that same path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from grading_fixtures import SUBMISSIONS

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "grade-class.yml"
#: Graded in kernels, then rejected without one: a class that exercises both paths.
GRADED = ("correct", "partial")
REJECTED = ("empty-file", "not-utf8", "invalid-json", "empty-notebook", "not-a-notebook")
LIMITS = ["--timeout", "120", "--cell-timeout", "8"]


def coursekit(*arguments: str, cwd: Path) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "coursekit.cli", *arguments]
    return subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def finished(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=1200)
    return process.returncode, out, err


def make_class(folder: Path, students: tuple[str, ...]) -> Path:
    folder.mkdir()
    for student in students:
        source = next(SUBMISSIONS.glob(f"{student}.*"))
        (folder / source.name).write_bytes(source.read_bytes())
    return folder


def grade_in_shards(tmp_path: Path, count: int, blocked: int | None = None) -> list[int]:
    """Start ``count`` shards at once into ``shards/``; shard ``blocked`` cannot write its CSV."""
    (tmp_path / "shards").mkdir()
    if blocked is not None:
        (tmp_path / "blocker").write_text("a file where the shard wants a folder")
    running = []
    for index in range(1, count + 1):
        folder = "blocker" if index == blocked else "shards"
        out = f"{folder}/shard-{index}.csv"
        shard = ["--shard", f"{index}/{count}", "--feedback", "shards/feedback"]
        running.append(coursekit("grade", "--assignment", "ch01", "class", "--out", out, *shard,
                                 *LIMITS, cwd=tmp_path))  # fmt: skip
    return [finished(process)[0] for process in running]


@pytest.mark.slow
def test_parallel_shards_merge_to_the_one_process_gradebook_byte_for_byte(tmp_path: Path) -> None:
    make_class(tmp_path / "class", GRADED + REJECTED)
    single = coursekit("grade", "--assignment", "ch01", "class", "--out", "single/grades.csv",
                       *LIMITS, cwd=tmp_path)  # fmt: skip
    assert grade_in_shards(tmp_path, 3) == [0, 0, 0]
    code, _, err = finished(single)
    assert code == 0, err[-2000:]
    shards = sorted(str(path) for path in (tmp_path / "shards").glob("shard-*.csv"))
    code, out, err = finished(coursekit("grade", "--merge", *shards, "--out", "merged.csv",
                                        cwd=tmp_path))  # fmt: skip
    assert code == 0, err
    assert "merged 7 rows from 3 gradebooks" in out
    merged = (tmp_path / "merged.csv").read_bytes()
    assert merged == (tmp_path / "single" / "grades.csv").read_bytes()
    assert b"\ncorrect,2,1,1,1,1,2,8,ok,\n" in merged  # graded, not just rejected
    feedback = sorted(path.name for path in (tmp_path / "shards" / "feedback").iterdir())
    assert feedback == sorted(f"{student}.md" for student in GRADED + REJECTED)


@pytest.mark.slow
def test_a_failed_shard_is_reported_and_no_gradebook_is_written(tmp_path: Path) -> None:
    make_class(tmp_path / "class", REJECTED)
    assert grade_in_shards(tmp_path, 3, blocked=2) == [0, 1, 0]
    shards = sorted(str(path) for path in (tmp_path / "shards").glob("shard-*.csv"))
    assert [Path(shard).name for shard in shards] == ["shard-1.csv", "shard-3.csv"]
    code, _, err = finished(coursekit("grade", "--merge", *shards, "--out", "grades.csv",
                                      cwd=tmp_path))  # fmt: skip
    assert code == 1
    assert "shard 2/3 of ch01 is missing" in err and "--shard 2/3" in err
    assert not (tmp_path / "grades.csv").exists()


@pytest.mark.slow
def test_a_shard_cut_short_or_from_another_class_is_refused(tmp_path: Path) -> None:
    make_class(tmp_path / "class", REJECTED)
    assert grade_in_shards(tmp_path, 2) == [0, 0]
    first, second = tmp_path / "shards" / "shard-1.csv", tmp_path / "shards" / "shard-2.csv"
    lines = first.read_text().splitlines(keepends=True)
    first.write_text("".join(lines[:-1]))
    code, _, err = finished(coursekit("grade", "--merge", str(first), str(second), "--out",
                                      "grades.csv", cwd=tmp_path))  # fmt: skip
    assert code == 1 and "was cut short or edited" in err
    (tmp_path / "loose.csv").write_text(lines[0])
    code, _, err = finished(coursekit("grade", "--merge", str(second), "loose.csv", "--out",
                                      "grades.csv", cwd=tmp_path))  # fmt: skip
    assert code == 1 and "loose.csv did not come from coursekit grade --shard" in err


FAKE_SBATCH = """#!/usr/bin/env bash
# Slurm's sbatch, as far as grade-shards.sbatch uses it: an array's tasks run at once, in the
# background; a --wrap job runs after them. It prints a job id, as --parsable does.
set -euo pipefail
array="" wrap="" script=""
while [ "$#" -gt 0 ]; do
    case "$1" in
        --array=*) array="${1#--array=1-}" ;;
        --wrap=*) wrap="${1#--wrap=}" ;;
        --*) ;;
        *) script="$1"; shift; break ;;
    esac
    shift
done
if [ -n "$array" ]; then
    for task in $(seq 1 "$array"); do
        SLURM_ARRAY_TASK_ID=$task bash "$script" "$@" > "$FAKE_SLURM_LOG.$task" 2>&1 &
    done
    wait
else
    bash -c "$wrap" > "$FAKE_SLURM_LOG.merge" 2>&1 || echo "merge failed" > "$FAKE_SLURM_LOG.failed"
fi
echo 42
"""


@pytest.mark.slow
def test_the_slurm_script_grades_shards_as_an_array_and_merges_them(tmp_path: Path) -> None:
    make_class(tmp_path / "class", REJECTED)
    code, _, err = finished(coursekit("slurm-script", "--out", "grade.sbatch", cwd=tmp_path))
    assert code == 0, err
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    (bin_folder / "sbatch").write_text(FAKE_SBATCH)
    (bin_folder / "coursekit").write_text(
        f'#!/bin/sh\nexec {sys.executable} -m coursekit.cli "$@"\n'
    )
    for program in bin_folder.iterdir():
        program.chmod(0o755)
    environment = {
        **os.environ,
        "PATH": f"{bin_folder}:{os.environ['PATH']}",
        "FAKE_SLURM_LOG": str(tmp_path / "slurm"),
    }
    command = ["bash", "grade.sbatch", "ch01", "class", "2", *LIMITS]
    result = subprocess.run(
        command, cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, result.stderr
    assert "the gradebook will be shards/grades.csv" in result.stdout
    assert not (tmp_path / "slurm.failed").exists(), (tmp_path / "slurm.merge").read_text()
    single = finished(coursekit("grade", "--assignment", "ch01", "class", "--out", "one.csv",
                                *LIMITS, cwd=tmp_path))  # fmt: skip
    assert single[0] == 0, single[2]
    assert (tmp_path / "shards" / "grades.csv").read_bytes() == (tmp_path / "one.csv").read_bytes()


def test_the_github_workflow_runs_only_by_hand_and_merges_every_shard() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert list(triggers) == ["workflow_dispatch"]
    shard_job, merge_job = workflow["jobs"]["shard"], workflow["jobs"]["merge"]
    shards = shard_job["strategy"]["matrix"]["shard"]
    assert shards == list(range(1, int(workflow["env"]["SHARDS"]) + 1))
    assert shard_job["strategy"]["fail-fast"] is False
    grade_step = next(
        step for step in shard_job["steps"] if "coursekit grade" in step.get("run", "")
    )
    assert '--shard "$SHARD/$SHARDS"' in grade_step["run"]
    assert "${{" not in grade_step["run"]  # inputs reach the shell as variables, never as code
    assert merge_job["needs"] == "shard" and merge_job["if"] == "${{ !cancelled() }}"
    merge_step = next(step for step in merge_job["steps"] if "--merge" in step.get("run", ""))
    assert "shards/shard-*.csv" in merge_step["run"]
