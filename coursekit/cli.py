"""The ``coursekit`` command: ``doctor``, ``data list|download NAME`` and ``assign SRC DST``."""

from __future__ import annotations

import argparse
import os
import platform
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

from coursekit import __version__

REPORTED_PACKAGES = (
    "torch",
    "numpy",
    "matplotlib",
    "ipywidgets",
    "tqdm",
    "num2words",
    "babel",
    "nbclient",
    "jupyter-book",
    "nbval",
    "transformers",
    "tokenizers",
    "sacrebleu",
)


def doctor() -> int:
    """Print what the course sees: versions, device, profile, data cache, Colab or not."""
    import torch

    from coursekit import get_device
    from coursekit.config import current_profile
    from coursekit.data.downloads import cache_dir

    print(f"coursekit   {__version__}")
    print(f"python      {platform.python_version()} ({sys.executable})")
    for package in REPORTED_PACKAGES:
        try:
            version = metadata.version(package)
        except metadata.PackageNotFoundError:
            version = "not installed"
        print(f"{package:<11} {version}")
    print(f"device      {get_device()} (cuda available: {torch.cuda.is_available()})")
    print(f"profile     {current_profile()} (set COURSEKIT_PROFILE=full|ci)")
    print(f"data cache  {cache_dir()} (set COURSEKIT_DATA to move it)")
    print(
        f"colab       {'yes' if 'google.colab' in sys.modules or 'COLAB_RELEASE_TAG' in os.environ else 'no'}"
    )
    return 0


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
    from coursekit.grading.assign import assign_directory

    for written in assign_directory(solutions, exercises):
        print(f"wrote {written}")
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "doctor":
            return doctor()
        if args.command == "data":
            return data_list() if args.data_command == "list" else data_download(args.name)
        return assign(args.solutions, args.exercises)
    except (ValueError, OSError) as error:
        print(f"coursekit {args.command}: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
