"""One sandboxed kernel per submission, driven cell by cell with time and output limits.

:class:`GradingKernel` starts ``python -m coursekit.grading.instructor.sandbox`` (limits and guard,
then IPython) in a scratch folder with a scrubbed environment, runs code through ``nbclient`` and
reports each cell as a :class:`CellRun`: finished, raised, timed out (the kernel is interrupted,
and killed if it does not answer), printed too much (it is interrupted), or killed the kernel. On
exit the kernel's whole process group is killed. See the book's Exercises page.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError

from coursekit.grading.monitor import read_delegations

KERNEL_NAME = "coursekit-grade"
DELEGATION_LOG = "delegations.log"
STARTUP_SECONDS = 60
INTERRUPT_GRACE_SECONDS = 5
#: The grader accepts this many times the kernel's own output cap (message envelopes included)
#: before it stops a cell itself, for a kernel whose cap was removed from the notebook.
GRADER_OUTPUT_FACTOR = 3
MAX_MESSAGE_CHARACTERS = 200
MAX_ERROR_CHARACTERS = 2000
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
MEMORY_ERROR_SIGNS = ("can't allocate memory", "out of memory", "DefaultCPUAllocator")

CellOutcome = Literal["ok", "error", "timeout", "overflow", "dead"]


class KernelStartError(RuntimeError):
    """The sandboxed kernel died before it answered, e.g. with too little address space for torch."""


#: The share of a submission's time kept for grading its answers: the notebook's cells run
#: until the rest is spent, so a stray endless loop cannot cost the answers defined before it.
GRADING_SHARE = 0.25


@dataclass(frozen=True)
class Limits:
    """What one submission may use: wall seconds in all and per cell, address space in MiB,
    and bytes of printed output in all.
    """

    timeout: float = 300.0
    cell_timeout: float = 60.0
    memory_mb: int = 4096
    max_output_bytes: int = 1_000_000

    def clamped(self) -> Limits:
        """These limits with the cell limit at most the time the cells may take in all."""
        longest_cell = self.timeout * (1 - GRADING_SHARE)
        return dataclasses.replace(self, cell_timeout=min(self.cell_timeout, longest_cell))


@dataclass(frozen=True)
class CellRun:
    """How a cell ended: ``outcome`` and, for ``error``, the exception's type and message."""

    outcome: CellOutcome
    error_type: str = ""
    error_message: str = ""

    @property
    def out_of_memory(self) -> bool:
        """True when the cell failed to allocate memory (``MemoryError`` or torch's allocator)."""
        return self.error_type == "MemoryError" or any(
            sign in self.error_message for sign in MEMORY_ERROR_SIGNS
        )

    def describe(self) -> str:
        """``"NameError: name 'x' is not defined"``."""
        return f"{self.error_type}: {self.error_message}" if self.error_message else self.error_type


class _LimitedClient(NotebookClient):
    """``NotebookClient`` that stops a cell printing past the budget and kills a kernel that
    ignores an interrupt after a timeout."""

    def __init__(self, notebook: nbformat.NotebookNode, *, output_budget: int, **options: Any):
        super().__init__(notebook, **options)
        self.output_budget = output_budget
        self.output_overflowed = False
        self.timed_out = False
        self.killed = False
        self.deadline = float("inf")
        self.cell_timeout = 60.0
        self.process_group: int | None = None
        self._first_interrupt: float | None = None

    def _get_timeout(self, cell: nbformat.NotebookNode | None) -> int:
        remaining = self.deadline - time.monotonic()
        return max(1, int(min(self.cell_timeout, remaining)))

    async def _async_handle_timeout(
        self, timeout: int, cell: nbformat.NotebookNode | None = None
    ) -> None | dict[str, Any]:
        self.timed_out = True
        now = time.monotonic()
        if self._first_interrupt is None:
            self._first_interrupt = now
        elif now - self._first_interrupt > INTERRUPT_GRACE_SECONDS:
            self.killed = True
            if self.process_group is not None:
                kill_process_group(self.process_group)  # the liveness check then raises
            return None
        await asyncio.sleep(0.5)
        return await super()._async_handle_timeout(timeout, cell)

    def output(
        self,
        outs: list[nbformat.NotebookNode],
        msg: dict[str, Any],
        display_id: str | None,
        cell_index: int,
    ) -> nbformat.NotebookNode | None:
        if msg["msg_type"] == "error":  # always kept, trimmed: the grader reads its name
            content = msg["content"]
            content["evalue"] = str(content.get("evalue", ""))[:MAX_ERROR_CHARACTERS]
            content["traceback"] = []
            return super().output(outs, msg, display_id, cell_index)
        self.output_budget -= len(json.dumps(msg.get("content", {}), default=str))
        if self.output_budget >= 0:
            return super().output(outs, msg, display_id, cell_index)
        if not self.output_overflowed:
            self.output_overflowed = True
            assert isinstance(self.km, AsyncKernelManager)  # nbclient's manager is asynchronous
            asyncio.ensure_future(self.km.interrupt_kernel())
        return None

    def reset_cell_state(self) -> None:
        self.timed_out = False
        self._first_interrupt = None


class GradingKernel:
    """A context manager: a sandboxed kernel in an empty folder ``work`` (see the module
    docstring), removed with everything in it when the kernel is shut down.

    ``private`` (a fresh temporary folder, ``work``'s parent) is a folder the kernel cannot read;
    it holds the kernel's spec, in ``kernel.pid`` its process id (so that a parent can kill the
    group if this process dies) and in ``delegations.log`` what the kernel's delegation recorder
    saw of ``assignment``'s questions (:meth:`delegations`). :meth:`launch` starts the process
    without waiting for it (a :class:`KernelPool` starts the next submission's kernel early);
    entering the context waits until the kernel answers. ``deadline`` (``time.monotonic()``)
    ends every cell run after it; set it before entering.
    """

    def __init__(self, limits: Limits, assignment: str) -> None:
        self.private = Path(tempfile.mkdtemp(prefix="coursekit-kernel-"))
        self.work = self.private / "work"
        self.work.mkdir()
        self.limits = limits
        self.deadline = math.inf
        self.assignment = assignment
        self.delegation_log = self.private / DELEGATION_LOG
        self._client: _LimitedClient | None = None
        self._manager: AsyncKernelManager | None = None
        self._process_group: int | None = None

    def launch(self) -> GradingKernel:
        """Start the kernel's process; it imports torch and installs its guard meanwhile."""
        kernels = self.private / "kernels"
        spec_folder = kernels / KERNEL_NAME
        spec_folder.mkdir(parents=True, exist_ok=True)
        cpu_seconds = int(self.limits.timeout) + 5
        spec = {
            "argv": [
                sys.executable, "-m", "coursekit.grading.instructor.sandbox",
                "--folder", str(self.work),
                "--memory-mb", str(self.limits.memory_mb),
                "--cpu-seconds", str(cpu_seconds),
                "--max-output", str(self.limits.max_output_bytes),
                "--assignment", self.assignment,
                "--delegation-log", str(self.delegation_log),
                "--HistoryManager.hist_file=:memory:",
                "-f", "{connection_file}",
            ],
            "display_name": "coursekit grade",
            "language": "python",
        }  # fmt: skip
        (spec_folder / "kernel.json").write_text(json.dumps(spec))
        self._manager = AsyncKernelManager(
            kernel_name=KERNEL_NAME,
            kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)]),
            connection_file=str(self.work / ".connection.json"),
        )
        self._client = _LimitedClient(
            nbformat.v4.new_notebook(),
            km=self._manager,
            output_budget=GRADER_OUTPUT_FACTOR * self.limits.max_output_bytes,
            allow_errors=True,
            interrupt_on_timeout=True,
            startup_timeout=STARTUP_SECONDS,
            iopub_timeout=2,
            store_widget_state=False,
        )
        self._client.cell_timeout = self.limits.cell_timeout
        self._client.start_new_kernel(
            cwd=str(self.work),
            env=self._environment(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        process = self._manager.provisioner.process  # type: ignore[union-attr]
        self._process_group = self._client.process_group = process.pid
        (self.private / "kernel.pid").write_text(str(process.pid))
        return self

    def __enter__(self) -> GradingKernel:
        if self._client is None:
            self.launch()
        client = self._started_client()
        try:
            client.start_new_kernel_client()
        except RuntimeError as error:  # "Kernel died before replying to kernel_info"
            self.__exit__(None, None, None)
            raise KernelStartError(str(error)) from error
        return self

    def _environment(self) -> dict[str, str]:
        """A scrubbed environment: no instructor paths, one thread, the ci profile."""
        environment = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(self.work),
            "TMPDIR": str(self.work),
            "IPYTHONDIR": str(self.work / ".ipython"),
            "MPLCONFIGDIR": str(self.work / ".matplotlib"),
            "MPLBACKEND": "Agg",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            "PYTHONHASHSEED": "0",
            "PYTHONIOENCODING": "utf-8",
            "PYDEVD_DISABLE_FILE_VALIDATION": "1",
            "COURSEKIT_PROFILE": "ci",
            "COURSEKIT_DEVICE": "cpu",
        }
        if os.environ.get("COURSEKIT_DATA"):
            environment["COURSEKIT_DATA"] = os.environ["COURSEKIT_DATA"]
        return environment

    def run(self, source: str, deadline: float | None = None) -> CellRun:
        """Execute ``source`` as a code cell, stopped at the cell limit or at ``deadline``
        (the submission's by default), and say how it ended."""
        client = self._started_client()
        client.deadline = self.deadline if deadline is None else min(deadline, self.deadline)
        client.reset_cell_state()
        overflowed_before = client.output_overflowed
        cell = nbformat.v4.new_code_cell(source)
        client.nb.cells.append(cell)
        try:
            client.execute_cell(cell, len(client.nb.cells) - 1, store_history=False)
        except DeadKernelError:
            return CellRun("dead")
        if client.killed:
            return CellRun("dead")
        if client.timed_out:
            return CellRun("timeout")
        if client.output_overflowed and not overflowed_before:
            return CellRun("overflow")
        errors = [output for output in cell.outputs if output.output_type == "error"]
        if errors:
            return CellRun("error", _clean(errors[0].ename), _clean(errors[0].evalue))
        return CellRun("ok")

    def _started_client(self) -> _LimitedClient:
        if self._client is None:
            raise RuntimeError("the kernel is not started: use GradingKernel as a context manager")
        return self._client

    def forget_delegations(self) -> None:
        """Empty the delegation log: what it records next belongs to the next question."""
        self.delegation_log.write_text("")

    def delegations(self) -> dict[str, str]:
        """``{question id: implementation}`` recorded since :meth:`forget_delegations`."""
        if not self.delegation_log.is_file():
            return {}
        return read_delegations(self.delegation_log.read_text(encoding="utf-8"))

    @property
    def killed_by_grader(self) -> bool:
        """True when the kernel was killed for ignoring an interrupt after a timeout."""
        return self._client is not None and self._client.killed

    def peak_address_space_mb(self) -> int:
        """The kernel process's largest address space so far (``VmPeak``), in MiB."""
        if self._process_group is None:
            raise RuntimeError("the kernel is not started")
        status = Path(f"/proc/{self._process_group}/status").read_text(encoding="utf-8")
        kilobytes = next(
            int(line.split()[1]) for line in status.splitlines() if line.startswith("VmPeak:")
        )
        return math.ceil(kilobytes / 1024)

    def exit_description(self) -> str:
        """How the dead kernel ended: ``"signal SIGSEGV"``, ``"exit code 3"``."""
        process = getattr(self._manager.provisioner, "process", None) if self._manager else None
        code = process.poll() if process is not None else None
        if code is None:
            return "unknown cause"
        if code < 0:
            return f"signal {signal.Signals(-code).name}"
        return f"exit code {code}"

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._client is not None:
            with contextlib.suppress(Exception):  # the process group is killed below in any case
                self._client._cleanup_kernel()
        if self._process_group is not None:
            kill_process_group(self._process_group)
        shutil.rmtree(self.private, ignore_errors=True)


class KernelPool:
    """Kernels for one submission after another, each started while the one before is graded.

    :meth:`take` hands out a launched :class:`GradingKernel` (the one started ahead, or a new
    one) and, with ``ahead``, launches the next at once: its start-up (Python, torch, the guard)
    overlaps the current notebook instead of adding to it. Every submission still gets a fresh
    process and folder. :meth:`close` shuts the spare kernel down.
    """

    def __init__(self, limits: Limits, assignment: str, ahead: bool = True) -> None:
        self.limits = limits
        self.assignment = assignment
        self.ahead = ahead
        self._spare: GradingKernel | None = None

    def take(self, deadline: float) -> GradingKernel:
        """A launched kernel whose cells stop at ``deadline``."""
        kernel = self._spare if self._spare is not None else self._launched()
        self._spare = self._launched() if self.ahead else None
        kernel.deadline = deadline
        return kernel

    def _launched(self) -> GradingKernel:
        return GradingKernel(self.limits, self.assignment).launch()

    def close(self) -> None:
        if self._spare is not None:
            self._spare.__exit__(None, None, None)
            self._spare = None


def kill_process_group(group: int) -> None:
    """``SIGKILL`` to process group ``group``, ignoring a group that is already gone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)


def _clean(text: str) -> str:
    """Kernel-provided text without colour codes, on one line, at most 200 characters."""
    text = " ".join(ANSI_ESCAPE.sub("", str(text)).split())
    return (
        text if len(text) <= MAX_MESSAGE_CHARACTERS else text[: MAX_MESSAGE_CHARACTERS - 3] + "..."
    )
