"""The ``coursekit`` command: ``doctor``, ``data list|download NAME``, ``assign SRC DST``,
``grade`` (a class's notebooks, or an LMS's download, into a gradebook and the CSV the LMS
imports; ``--validate`` and ``--merge`` are its helpers), ``autograder`` (Gradescope's zip),
``slurm-script`` (grade in shards on a Slurm cluster) and ``pretrain bert`` (Chapter 6's small BERT, :mod:`coursekit.pretrain.command`).

``assign``, ``grade`` and ``autograder`` are the instructor's tools: they need the ``grade`` extra
(Jupyter's kernel and notebook packages), which a student's install leaves out so that Colab
keeps its own.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from coursekit import __version__

if TYPE_CHECKING:
    from coursekit.grading.instructor.kernel import Limits
    from coursekit.grading.instructor.lms.roster import LmsFormat, Roster, Score

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
SLURM_SCRIPT = "grade-shards.sbatch"


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
        return _merge(args)
    return _grade_class(args, limits)


def _merge(args: argparse.Namespace) -> int:
    from coursekit.grading.instructor.gradebook import merge_gradebooks
    from coursekit.grading.instructor.shards import require_complete_shards

    lms = _lms_roster(args)
    require_complete_shards(args.submissions)
    count = merge_gradebooks(args.submissions, args.out)
    print(f"merged {count} rows from {len(args.submissions)} gradebooks into {args.out}")
    if lms is not None:
        from coursekit.grading.instructor.grader import Assignment
        from coursekit.grading.instructor.lms.roster import scores_from_gradebook

        possible = sum(question.points for question in Assignment.load(args.assignment).questions)
        _write_lms_import(args, lms, scores_from_gradebook(args.out, possible), possible)
    return 0


def _lms_roster(args: argparse.Namespace) -> tuple[LmsFormat, Roster] | None:
    """The LMS format and roster of ``--lms`` and ``--roster``, read before any grading."""
    if args.lms is None:
        if args.roster is not None or args.lms_column is not None:
            raise ValueError("--roster and --lms-column go with --lms canvas|moodle|blackboard")
        return None
    from coursekit.grading.instructor.lms.formats import FORMATS
    from coursekit.grading.instructor.lms.roster import read_roster

    lms = FORMATS[args.lms]()
    if args.roster is None:
        raise ValueError(f"--lms {args.lms} needs --roster FILE: {lms.export_hint}")
    if args.shard:
        raise ValueError(
            f"--lms goes with the whole class, not a shard: merge the shards with "
            f"coursekit grade --merge shard-*.csv --assignment {args.assignment or 'chNN'} "
            f"--lms {args.lms} --roster {args.roster}"
        )
    if not args.assignment:
        raise ValueError("--lms needs --assignment (e.g. --assignment ch01)")
    return lms, read_roster(args.roster, lms)


def _write_lms_import(
    args: argparse.Namespace,
    lms: tuple[LmsFormat, Roster],
    scores: Mapping[str, Score],
    possible: float,
) -> None:
    from coursekit.grading.instructor.lms.roster import NO_SUBMISSION, write_grade_import

    out = args.lms_out or args.out.with_name(f"{args.out.stem}-{args.lms}.csv")
    report = write_grade_import(
        scores, lms[1], lms[0], args.assignment, possible, out, args.lms_column
    )
    print(
        f"  {lms[0].name} import: {report.path} (column {report.column!r}, "
        f"{report.students} students of the roster)"
    )
    if report.scaled_to is not None:
        print(f"  totals scaled from {possible:g} to the {report.scaled_to:g} points of the LMS")
    if report.missing:
        print(f"  0 points, {NO_SUBMISSION}: {', '.join(report.missing)}")
    if report.unknown:
        print(f"  graded but not in the roster, so not in the import: {', '.join(report.unknown)}")


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
    import tempfile
    import time

    from coursekit.grading.instructor.batch import grade_class, parse_shard, select_shard, summary
    from coursekit.grading.instructor.gradebook import write_feedback, write_gradebook
    from coursekit.grading.instructor.grader import Assignment
    from coursekit.grading.instructor.intake import collect_submissions
    from coursekit.grading.instructor.kernel import GRADING_SHARE
    from coursekit.grading.instructor.lms.roster import scores_from_grades
    from coursekit.grading.instructor.memory_probe import require_memory_limit
    from coursekit.grading.instructor.shards import ShardManifest, class_fingerprint, write_manifest

    if not args.assignment:
        raise ValueError("--assignment is required (e.g. --assignment ch01)")
    assignment = Assignment.load(args.assignment, args.hidden)
    lms = _lms_roster(args)
    shard = parse_shard(args.shard) if args.shard else None
    feedback = args.feedback if args.feedback is not None else args.out.parent / "feedback"
    with tempfile.TemporaryDirectory(prefix="coursekit-grade-") as scratch:
        intake = collect_submissions(args.submissions, Path(scratch), [args.out, feedback])
        if not intake.submissions:
            raise ValueError("no submissions found")
        submissions = select_shard(intake.submissions, *shard) if shard else intake.submissions
        require_memory_limit(limits, assignment.name)
        for folder in (args.out.parent, feedback):
            folder.mkdir(parents=True, exist_ok=True)
            if not os.access(folder, os.W_OK):
                raise PermissionError(f"cannot write to {folder}")
        start = time.perf_counter()
        grades = grade_class(submissions, assignment, limits, hidden=args.hidden, jobs=args.jobs)
    late = intake.late if "canvas" in intake.layouts else None
    write_gradebook(grades, assignment.question_ids, args.out, late)
    write_feedback(grades, assignment.name, feedback)
    if shard is not None:
        everyone = class_fingerprint(submission.student for submission in intake.submissions)
        students = [submission.student for submission in submissions]
        write_manifest(args.out, ShardManifest(assignment.name, *shard, everyone, students))
    print(summary(grades, assignment, time.perf_counter() - start))
    if limits.cell_timeout < args.cell_timeout:
        print(
            f"  cell limit: {limits.cell_timeout:g} s, not --cell-timeout {args.cell_timeout:g}: "
            f"the last {GRADING_SHARE:.0%} of --timeout {limits.timeout:g} s is kept for grading"
        )
    print(f"  gradebook: {args.out}\n  feedback: {feedback}/ ({len(grades)} files)")
    if lms is not None:
        possible = sum(question.points for question in assignment.questions)
        _write_lms_import(args, lms, scores_from_grades(grades), possible)
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
    _add_autograder_parser(commands)
    _add_slurm_parser(commands)
    _add_pretrain_parser(commands)
    return parser


def _add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """``--timeout``, ``--cell-timeout`` and ``--memory``: what one submission may use."""
    parser.add_argument("--timeout", type=float, default=300, help="seconds per submission (300)")
    parser.add_argument("--cell-timeout", type=float, default=60, help="seconds per cell (60)")
    parser.add_argument(
        "--memory", type=int, default=4096, help="MiB of address space per kernel (4096)"
    )


def _add_autograder_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "autograder",
        help="build a Gradescope autograder zip for a chapter",
        description="Write the zip Gradescope's programming assignments take: setup.sh installs "
        "the coursekit that built it (pinned to its commit or version), run_autograder grades "
        "each submission as coursekit grade does and writes results.json.",
    )
    parser.add_argument("assignment", help="the chapter to grade, e.g. ch01")
    parser.add_argument(
        "--out", type=Path, default=Path("autograder.zip"), help="the zip (autograder.zip)"
    )
    parser.add_argument("--hidden", type=Path, help="folder of Python files adding hidden tests")
    _add_limit_arguments(parser)


def autograder(args: argparse.Namespace) -> int:
    """Build the Gradescope autograder of ``args.assignment``."""
    with grade_extra_imports("autograder"):
        from coursekit.grading.instructor.autograder import build_autograder
        from coursekit.grading.instructor.kernel import Limits

    limits = Limits(args.timeout, args.cell_timeout, args.memory).clamped()
    build_autograder(args.assignment, args.out, limits, args.hidden)
    print(f"wrote {args.out}: upload it as the autograder of a Gradescope programming assignment")
    return 0


def _add_slurm_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "slurm-script",
        help="write the Slurm script that grades a class in shards and merges them",
        description="Write grade-shards.sbatch, which submits `coursekit grade --shard I/N` as a "
        "job array and `coursekit grade --merge` after it. Run it with: bash grade-shards.sbatch "
        "ASSIGNMENT SUBMISSIONS SHARDS [coursekit grade options].",
    )
    parser.add_argument(
        "--out", type=Path, default=Path(SLURM_SCRIPT), help=f"the script ({SLURM_SCRIPT})"
    )


def slurm_script(out: Path) -> int:
    """Write the Slurm job-array script shipped with coursekit to ``out``."""
    from importlib import resources

    template = resources.files("coursekit.grading.instructor") / "templates" / SLURM_SCRIPT
    out.write_text(template.read_text(encoding="utf-8"), encoding="utf-8")
    out.chmod(0o755)
    print(f"wrote {out}: bash {out} ch01 submissions.zip 8 [coursekit grade options]")
    return 0


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
    _add_limit_arguments(parser)
    parser.add_argument("--shard", help="grade shard I of N, e.g. 2/4")
    parser.add_argument("--validate", action="store_true", help="check solution folders instead")
    parser.add_argument("--merge", action="store_true", help="merge shard CSVs into --out")
    parser.add_argument(
        "--lms",
        choices=("canvas", "moodle", "blackboard"),
        help="also write the CSV this LMS imports (needs --roster)",
    )
    parser.add_argument(
        "--roster",
        type=Path,
        help="the gradebook the LMS exports (Canvas, Blackboard) or the "
        "assignment's grading worksheet (Moodle)",
    )
    parser.add_argument(
        "--lms-column", help="the roster's column to fill (default: the assignment's, or a new one)"
    )
    parser.add_argument(
        "--lms-out", type=Path, help="the LMS's CSV (<--out stem>-<lms>.csv beside --out)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "doctor":
            return doctor()
        if args.command == "data":
            return data_list() if args.data_command == "list" else data_download(args.name)
        if args.command == "grade":
            return grade(args)
        if args.command == "autograder":
            return autograder(args)
        if args.command == "slurm-script":
            return slurm_script(args.out)
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
