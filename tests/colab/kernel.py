"""The kernel of ``make test-colab``: Colab's kernel as its runtime starts it.

``write`` writes the kernelspec into a folder for ``JUPYTER_PATH``: the Python of the
Colab-shaped environment running ``colab_kernel_launcher`` (the stub beside ``google.colab``),
which imports ``google.colab`` before starting ipykernel, as Colab's launcher does. ``probe``
proves, in a live kernel started from that spec in the ``book/`` folder (where the notebooks'
kernels start), that ``"google.colab" in sys.modules`` (the notebooks' set-up cells take their
Colab branch), that the kernel runs Python 3.12 and the pinned ipykernel, IPython and ipywidgets,
and that ``coursekit`` is the copy installed in the environment, not the working tree. The lane
then runs the chapters (nbval ``--nbval-kernel-name colab``) and the exercises
(``python -m coursekit.grading.instructor.selfcheck --kernel colab``) in that kernel. Run this
file with the course's own Python (``.venv``), which has jupyter-client and nbclient::

    JUPYTER_PATH=DIR python tests/colab/kernel.py write DIR PYTHON
    JUPYTER_PATH=DIR python tests/colab/kernel.py probe
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jupyter_client.manager import KernelManager

KERNEL_NAME = "colab"
EXPECTED = {"python": "3.12", "ipykernel": "6.17.1", "IPython": "7.34.0", "ipywidgets": "7.7.1"}
PROBE = """
import json, sys, sysconfig
from pathlib import Path
import IPython, ipykernel, ipywidgets
import coursekit
site_packages = Path(sysconfig.get_path("purelib")).resolve()
print(json.dumps({
    "python": "{}.{}".format(*sys.version_info[:2]),
    "ipykernel": ipykernel.__version__,
    "IPython": IPython.__version__,
    "ipywidgets": ipywidgets.__version__,
    "google.colab imported": "google.colab" in sys.modules,
    "coursekit installed": Path(coursekit.__file__).resolve().is_relative_to(site_packages),
    "coursekit": str(Path(coursekit.__file__).parent),
}))
"""


def write(folder: Path, python: Path) -> Path:
    """Write the kernelspec ``KERNEL_NAME`` into ``folder/kernels``; return its file."""
    spec = {
        "argv": [str(python), "-m", "colab_kernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (Colab runtime)",
        "language": "python",
    }
    path = folder / "kernels" / KERNEL_NAME / "kernel.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(spec, indent=1) + "\n")
    return path


def run_in_kernel(code: str, cwd: Path, timeout: float = 120) -> tuple[str, list[str]]:
    """Execute ``code`` in a fresh kernel ``KERNEL_NAME``; its standard output and errors."""
    manager = KernelManager(kernel_name=KERNEL_NAME)
    manager.start_kernel(cwd=str(cwd))
    client = manager.client()
    client.start_channels()
    printed: list[str] = []
    errors: list[str] = []

    def collect(message: dict[str, Any]) -> None:
        content = message["content"]
        if message["msg_type"] == "stream" and content["name"] == "stdout":
            printed.append(content["text"])
        elif message["msg_type"] == "error":
            errors.append(f"{content['ename']}: {content['evalue']}")

    try:
        client.wait_for_ready(timeout=timeout)
        client.execute_interactive(code, timeout=timeout, output_hook=collect)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    return "".join(printed), errors


def probe(cwd: Path) -> int:
    """Print what the kernel runs; 1 unless it is Colab's, with the installed ``coursekit``."""
    printed, errors = run_in_kernel(PROBE, cwd)
    if errors:
        print(f"FAILED: the probe raised {errors}", file=sys.stderr)
        return 1
    facts = json.loads(printed.strip().splitlines()[-1])
    print(f"kernel {KERNEL_NAME!r}: {json.dumps(facts)}")
    wrong = {key: facts[key] for key, value in EXPECTED.items() if facts[key] != value}
    wrong |= {
        key: False for key in ("google.colab imported", "coursekit installed") if not facts[key]
    }
    if wrong:
        print(f"FAILED: the kernel is not Colab's as expected: {wrong}", file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python tests/colab/kernel.py",
        description="The Colab-shaped kernel of make test-colab: write, probe.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    write_parser = commands.add_parser("write", help="write the kernelspec")
    write_parser.add_argument("folder", type=Path, help="the folder JUPYTER_PATH names")
    write_parser.add_argument("python", type=Path, help="the Colab-shaped environment's Python")
    probe_parser = commands.add_parser("probe", help="what a live kernel runs")
    probe_parser.add_argument("--cwd", type=Path, default=Path("book"))
    args = parser.parse_args(argv)
    if args.command == "write":
        print(f"kernelspec {KERNEL_NAME!r}: {write(args.folder, args.python.absolute())}")
        return 0
    return probe(args.cwd)


if __name__ == "__main__":
    raise SystemExit(main())
