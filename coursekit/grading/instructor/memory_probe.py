"""Check, once before grading, that a kernel can start and load the driver under ``--memory``.

A limit below what a kernel needs would otherwise mark every student ``crashed``: an
instructor's mistake written into the gradebook. :func:`require_memory_limit` starts one sandboxed
kernel under the limits on an empty folder; when it cannot start, a second kernel without the
address-space limit measures what one needs (``VmPeak``), and the error names that minimum.
See the book's Exercises page.
"""

from __future__ import annotations

import dataclasses
import math
import time

from coursekit.grading.instructor.kernel import (
    STARTUP_SECONDS,
    GradingKernel,
    KernelStartError,
    Limits,
)

#: What every graded notebook loads: the kernel-side driver and, through it, torch.
DRIVER_IMPORT = "import coursekit.grading.instructor.exchange"
#: The measuring kernel's address-space limit (MiB): large enough never to be the problem.
UNLIMITED_MB = 1 << 20
#: Head-room added to the measured need when suggesting a limit, and the step it is rounded to.
SUGGESTION_FACTOR = 1.25
SUGGESTION_STEP_MB = 256


def require_memory_limit(limits: Limits, assignment: str) -> None:
    """Raise ``ValueError`` naming the measured minimum when a kernel cannot start and import the
    driver under ``limits.memory_mb`` MiB of address space."""
    if _starts_under(limits, assignment):
        return
    needed = _address_space_needed_mb(limits, assignment)
    suggestion = math.ceil(needed * SUGGESTION_FACTOR / SUGGESTION_STEP_MB) * SUGGESTION_STEP_MB
    raise ValueError(
        f"--memory {limits.memory_mb} MiB is too small for a kernel to start here: one needs "
        f"about {needed} MiB of address space (measured); nothing was graded. Use "
        f"--memory {suggestion} or more"
    )


def _starts_under(limits: Limits, assignment: str) -> bool:
    try:
        with _kernel(limits, assignment) as kernel:
            return kernel.run(DRIVER_IMPORT).outcome == "ok"
    except KernelStartError:
        return False


def _address_space_needed_mb(limits: Limits, assignment: str) -> int:
    unlimited = dataclasses.replace(limits, memory_mb=UNLIMITED_MB)
    with _kernel(unlimited, assignment) as kernel:
        kernel.run(DRIVER_IMPORT)
        return kernel.peak_address_space_mb()


def _kernel(limits: Limits, assignment: str) -> GradingKernel:
    kernel = GradingKernel(limits, assignment)
    kernel.deadline = time.monotonic() + STARTUP_SECONDS
    return kernel
