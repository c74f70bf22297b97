"""The set-up cells leave every package of Colab's runtime as it was: ``make test-colab``'s check.

``make test-colab`` records ``pip freeze`` of its Colab-shaped environment before and after it
installs the package as the notebooks' set-up cells do. ``compare`` proves that every line of the
first freeze is still in the second one (no package of the runtime was upgraded, downgraded or
removed: only additions), writes the difference to a file and prints it; it exits 1 otherwise.
``reset`` returns the environment to the runtime as built (``base-freeze.txt``), so that each run
replays the install from the same state: it uninstalls what is not in that freeze and reinstalls
what changed. ``versions`` prints the versions the notebooks run on and proves that ``coursekit``
is imported from the environment (the installed copy), not from the working tree. Run it with the
environment's Python (standard library only)::

    python tests/colab/environment.py reset BASE_FREEZE
    python tests/colab/environment.py compare BEFORE AFTER DIFF
    python tests/colab/environment.py versions
"""

from __future__ import annotations

import argparse
import importlib
import platform
import re
import subprocess
import sys
import sysconfig
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

PIP = (sys.executable, "-m", "pip")
REPORTED = (
    "torch", "numpy", "ipykernel", "ipywidgets", "jupyter-client", "notebook", "ipython", "tqdm",
    "transformers", "seqmodels-coursekit", "sacrebleu",
)  # fmt: skip


def freeze_lines(text: str) -> list[str]:
    """The requirement lines of a ``pip freeze`` output (comments and blanks left out)."""
    return [line.strip() for line in text.splitlines() if line.strip() and line[0] != "#"]


def distribution_name(line: str) -> str:
    """The normalised distribution name of a freeze line (``name==1.0`` or ``name @ url``)."""
    name = re.split(r"\s*(?:===?|@)\s*", line.removeprefix("-e "), maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", name).lower()


def current_freeze() -> list[str]:
    """``pip freeze`` of the running Python's environment."""
    result = subprocess.run([*PIP, "freeze"], capture_output=True, text=True, check=True)
    return freeze_lines(result.stdout)


def difference(before: Sequence[str], after: Sequence[str]) -> tuple[list[str], list[str]]:
    """``(removed, added)``: the lines of ``before`` missing from ``after``, and the converse. A
    changed version shows as one removed and one added line."""
    return sorted(set(before) - set(after)), sorted(set(after) - set(before))


def compare(before_path: Path, after_path: Path, diff_path: Path) -> int:
    """Write and print the difference of two freezes; 1 when a line of the first one is gone."""
    before = freeze_lines(before_path.read_text())
    after = freeze_lines(after_path.read_text())
    removed, added = difference(before, after)
    diff = [f"- {line}" for line in removed] + [f"+ {line}" for line in added]
    diff_path.write_text("".join(f"{line}\n" for line in diff))
    print(f"pip freeze, before -> after the set-up cells' install ({diff_path}):")
    print("\n".join(diff) if diff else "(no change)")
    if removed:
        changed = sorted({distribution_name(line) for line in removed})
        print(
            f"FAILED: the install changed or removed {len(removed)} of Colab's packages: "
            f"{', '.join(changed)}",
            file=sys.stderr,
        )
        return 1
    print(f"ok: all {len(before)} packages of the runtime kept; {len(added)} added")
    return 0


def reset(base_path: Path) -> int:
    """Uninstall every distribution the base freeze lacks; reinstall the base's changed lines."""
    base = freeze_lines(base_path.read_text())
    removed, added = difference(base, current_freeze())
    kept = {distribution_name(line) for line in base}
    extra = sorted({distribution_name(line) for line in added} - kept)
    if extra:
        print(f"uninstalling what the runtime lacks: {' '.join(extra)}")
        subprocess.run([*PIP, "uninstall", "--yes", "--quiet", *extra], check=True)
    if removed:
        print(f"restoring the runtime's {' '.join(removed)}")
        subprocess.run([*PIP, "install", "--quiet", "--no-deps", *removed], check=True)
    left = difference(base, current_freeze())
    if left != ([], []):
        print(f"FAILED: the environment still differs from {base_path}: {left}", file=sys.stderr)
        return 1
    print(f"the environment is Colab's runtime as built ({len(base)} packages)")
    return 0


def versions() -> int:
    """Print Python's version and the reported distributions'; 1 when ``coursekit`` or
    ``google.colab`` is not imported from the environment's site-packages."""
    print(f"Python {platform.python_version()} ({sys.executable})")
    for name in REPORTED:
        try:
            print(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            print(f"{name} (not installed)")
    site_packages = Path(sysconfig.get_path("purelib")).resolve()
    failed = 0
    for module in ("coursekit", "google.colab"):
        location = Path(importlib.import_module(module).__file__ or "").resolve()
        print(f"{module} imported from {location.parent}")
        if not location.is_relative_to(site_packages):
            print(f"FAILED: {module} is not the copy in {site_packages}", file=sys.stderr)
            failed = 1
    return failed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python tests/colab/environment.py",
        description="Colab-shaped environment of make test-colab: reset, compare, versions.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    reset_parser = commands.add_parser("reset", help="return to the runtime as built")
    reset_parser.add_argument("base", type=Path)
    compare_parser = commands.add_parser("compare", help="only additions allowed")
    compare_parser.add_argument("before", type=Path)
    compare_parser.add_argument("after", type=Path)
    compare_parser.add_argument("diff", type=Path)
    commands.add_parser("versions", help="the versions the notebooks run on")
    args = parser.parse_args(argv)
    if args.command == "reset":
        return reset(args.base)
    if args.command == "compare":
        return compare(args.before, args.after, args.diff)
    return versions()


if __name__ == "__main__":
    raise SystemExit(main())
