"""The ``coursekit`` command: ``doctor``, ``data list|download NAME``, ``assign SRC DST``,
``grade`` (a class's notebooks into a gradebook; ``--validate`` and ``--merge`` are its helpers)
and ``pretrain bert`` (Chapter 6's small BERT, :mod:`coursekit.pretrain.command`).

``assign`` and ``grade`` are the instructor's tools: they need the ``grade`` extra (Jupyter's
kernel and notebook packages), which a student's install leaves out so that Colab keeps its own.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from coursekit import __version__

if TYPE_CHECKING:
    from coursekit.grading.instructor.kernel import Limits

REPORTED_PACKAGES = (
    "torch",
    "numpy",
    "matplotlib",
    "ipywidgets",
    "tqdm",
    "num2words",
    "babel",
    "ipykernel",
    "nbclient",
    "jupyter-book",
    "nbval",
    "transformers",
    "tokenizers",
    "sacrebleu",
)
GRADE_EXTRA_PACKAGES = frozenset({"ipykernel", "jupyter_client", "nbclient", "nbformat"})
GRADE_EXTRA_INSTALL = 'pip install "seqmodels-coursekit[grade]"'


class MissingGradeExtraError(ImportError):
    """An instructor's command ran where the ``grade`` extra is not installed."""


@contextmanager
def grade_extra_imports(command: str) -> Iterator[None]:
    """Around the imports of an instructor's command: a missing package of the ``grade`` extra
    becomes a :class:`MissingGradeExtraError` that gives the command installing it."""
    try:
        yield
    except ModuleNotFoundError as error:
        if (error.name or "").partition(".")[0] not in GRADE_EXTRA_PACKAGES:
            raise
        raise MissingGradeExtraError(
            f"{error.name} is not installed; `coursekit {command}` is an instructor's tool that "
            f'needs the grade extra: {GRADE_EXTRA_INSTALL} (in a clone: pip install -e ".[grade]")'
        ) from error


def doctor() -> int:
    """Print what the course sees: versions, device, profile, seed shift, data cache, Colab.

    A setting the course cannot use (``COURSEKIT_PROFILE=fast``, ``COURSEKIT_DEVICE=gpu``,
    ``COURSEKIT_SEED=-1``) is
    reported on its line with what to set instead, the other lines are still printed, and the
    exit status is 1.
    """
    import torch

    from coursekit import get_device
    from coursekit.config import current_profile, seed_shift
    from coursekit.data.downloads import cache_dir

    print(f"coursekit   {__version__}")
    print(f"python      {platform.python_version()} ({sys.executable})")
    for package in REPORTED_PACKAGES:
        try:
            version = metadata.version(package)
        except metadata.PackageNotFoundError:
            version = "not installed"
        print(f"{package:<11} {version}")
    problems = 0
    try:
        print(f"device      {get_device()} (cuda available: {torch.cuda.is_available()})")
    except (ValueError, RuntimeError) as error:
        problems += 1
        print(f"device      PROBLEM: {error}")
    try:
        print(f"profile     {current_profile()} (set COURSEKIT_PROFILE=full|ci)")
    except ValueError as error:
        problems += 1
        print(f"profile     PROBLEM: {error}")
    try:
        print(f"seed shift  {seed_shift()} (set COURSEKIT_SEED=k to move every seed by k)")
    except ValueError as error:
        problems += 1
        print(f"seed shift  PROBLEM: {error}")
    print(f"data cache  {cache_dir()} (set COURSEKIT_DATA to move it)")
    print(
        f"colab       {'yes' if 'google.colab' in sys.modules or 'COLAB_RELEASE_TAG' in os.environ else 'no'}"
    )
    return 1 if problems else 0


def data_list() -> int:
    """Print every dataset with its kind and description."""
    from coursekit import data

    for name in data.names():
        info = data.describe(name)
        print(f"{name:<18} {info.kind:<10} {info.description}")
    return 0


def data_download(name: str) -> int:
    """Download, verify and cache one real dataset."""
    from coursekit import data

    print(f"{name}: {data.download(name)}")
    return 0


def assign(solutions: Path, exercises: Path) -> int:
    """Write the student notebooks of ``solutions`` into ``exercises``."""
    with grade_extra_imports("assign"):
        from coursekit.grading.instructor.assign import assign_directory

    for written in assign_directory(solutions, exercises):
        print(f"wrote {written}")
    return 0


def grade(args: argparse.Namespace) -> int:
    """Grade submissions into a CSV and feedback files, validate solutions, or merge shards."""
    with grade_extra_imports("grade"):
        import ipykernel  # noqa: F401 - every submission runs in an ipykernel

        from coursekit.grading.instructor.kernel import Limits

    limits = Limits(args.timeout, args.cell_timeout, args.memory).clamped()
    if args.validate:
        return _validate(args.submissions, limits, args.jobs)
    if args.merge:
        from coursekit.grading.instructor.gradebook import merge_gradebooks

        count = merge_gradebooks(args.submissions, args.out)
        print(f"merged {count} rows from {len(args.submissions)} gradebooks into {args.out}")
        return 0
    return _grade_class(args, limits)


def _validate(folders: list[Path], limits: Limits, jobs: int) -> int:
    from coursekit.grading.instructor.validate import validate_solutions

    problems = [
        problem for folder in folders for problem in validate_solutions(folder, limits, jobs=jobs)
    ]
    for problem in problems:
        print(problem, file=sys.stderr)
    print("validate: ok" if not problems else f"validate: {len(problems)} problems")
    return 1 if problems else 0


def _grade_class(args: argparse.Namespace, limits: Limits) -> int:
    import time

    from coursekit.grading.instructor.batch import grade_class, parse_shard, select_shard, summary
    from coursekit.grading.instructor.gradebook import write_feedback, write_gradebook
    from coursekit.grading.instructor.grader import Assignment
    from coursekit.grading.instructor.kernel import GRADING_SHARE
    from coursekit.grading.instructor.memory_probe import check_memory_limit
    from coursekit.grading.instructor.submissions import find_submissions

    if not args.assignment:
        raise ValueError("--assignment is required (e.g. --assignment ch01)")
    assignment = Assignment.load(args.assignment, args.hidden)
    feedback = args.feedback if args.feedback is not None else args.out.parent / "feedback"
    submissions = find_submissions(args.submissions, exclude=[args.out, feedback])
    if args.shard:
        submissions = select_shard(submissions, *parse_shard(args.shard))
    if not submissions:
        raise ValueError("no submissions found")
    check_memory_limit(limits, assignment.name)
    for folder in (args.out.parent, feedback):
        folder.mkdir(parents=True, exist_ok=True)
        if not os.access(folder, os.W_OK):
            raise PermissionError(f"cannot write to {folder}")
    start = time.perf_counter()
    grades = grade_class(submissions, assignment, limits, hidden=args.hidden, jobs=args.jobs)
    write_gradebook(grades, assignment.question_ids, args.out)
    write_feedback(grades, assignment.name, feedback)
    print(summary(grades, assignment, time.perf_counter() - start))
    if limits.cell_timeout < args.cell_timeout:
        print(
            f"  cell limit: {limits.cell_timeout:g} s, not --cell-timeout {args.cell_timeout:g}: "
            f"the last {GRADING_SHARE:.0%} of --timeout {limits.timeout:g} s is kept for grading"
        )
    print(f"  gradebook: {args.out}\n  feedback: {feedback}/ ({len(grades)} files)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="coursekit", description="The course's command line.")
    parser.add_argument("--version", action="version", version=f"coursekit {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("doctor", help="versions, device, profile, data cache")
    data_parser = commands.add_parser("data", help="list or download datasets")
    data_commands = data_parser.add_subparsers(dest="data_command", required=True)
    data_commands.add_parser("list", help="every dataset the course knows")
    download_parser = data_commands.add_parser("download", help="download and verify a dataset")
    download_parser.add_argument("name")
    assign_parser = commands.add_parser("assign", help="generate exercises from solutions")
    assign_parser.add_argument("solutions", type=Path)
    assign_parser.add_argument("exercises", type=Path)
    _add_grade_parser(commands)
    _add_pretrain_parser(commands)
    return parser


def _add_pretrain_parser(commands: argparse._SubParsersAction) -> None:
    from coursekit.pretrain.command import add_pretrain_arguments

    parser = commands.add_parser(
        "pretrain", help="pretrain a model of the course (bert), or pick its fine-tuning rates"
    )
    add_pretrain_arguments(parser)


def _add_grade_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "grade",
        help="grade a class's notebooks: CSV gradebook and feedback per student",
        description="Run each submission in its own sandboxed kernel and grade its answers. "
        "With --validate, check that solutions score full marks and exercises zero; with "
        "--merge, join the CSVs of --shard runs.",
    )
    parser.add_argument(
        "submissions", nargs="+", type=Path, help="notebooks or folders (CSVs with --merge)"
    )
    parser.add_argument("--assignment", help="the chapter to grade, e.g. ch01")
    parser.add_argument("--hidden", type=Path, help="folder of Python files adding hidden tests")
    parser.add_argument("--out", type=Path, default=Path("grades.csv"), help="the CSV (grades.csv)")
    parser.add_argument(
        "--feedback", type=Path, help="folder for feedback files (feedback/ beside --out)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="submissions graded at once (1)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per submission (300)")
    parser.add_argument("--cell-timeout", type=float, default=60, help="seconds per cell (60)")
    parser.add_argument(
        "--memory", type=int, default=4096, help="MiB of address space per kernel (4096)"
    )
    parser.add_argument("--shard", help="grade shard I of N, e.g. 2/4")
    parser.add_argument("--validate", action="store_true", help="check solution folders instead")
    parser.add_argument("--merge", action="store_true", help="merge shard CSVs into --out")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "doctor":
            return doctor()
        if args.command == "data":
            return data_list() if args.data_command == "list" else data_download(args.name)
        if args.command == "grade":
            return grade(args)
        if args.command == "pretrain":
            from coursekit.pretrain.command import (
                command_line,
                run_pretraining,
                run_transfer_pilot,
            )

            run = run_transfer_pilot if args.model == "transfer-pilot" else run_pretraining
            return run(args, command_line(["coursekit"], argv))
        return assign(args.solutions, args.exercises)
    except (ValueError, OSError, MissingGradeExtraError) as error:
        print(f"coursekit {args.command}: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
