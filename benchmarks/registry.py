"""The benchmark registry: a row is a function decorated with :func:`benchmark`.

To add a row, write a module in ``benchmarks/`` with a function ``(quick: bool) -> Row``
decorated with ``@benchmark``; ``python -m benchmarks`` imports every module of the folder.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    """One line of the table: our time and the production twin's, in seconds."""

    name: str
    ours: str
    reference: str
    ours_seconds: float
    reference_seconds: float
    notes: tuple[str, ...] = ()

    @property
    def ratio(self) -> float:
        """``ours / reference``: below 1 we are faster, above 1 slower."""
        return self.ours_seconds / self.reference_seconds


Benchmark = Callable[[bool], Row]
BENCHMARKS: list[Benchmark] = []


def benchmark(function: Benchmark) -> Benchmark:
    """Register ``function`` as a row of ``python -m benchmarks``."""
    BENCHMARKS.append(function)
    return function


def best_time(function: Callable[[], object], repeat: int) -> float:
    """The fastest of ``repeat`` wall-clock timings of ``function()``, in seconds (the minimum is
    the least disturbed by other processes).
    """
    timings = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        timings.append(time.perf_counter() - start)
    return min(timings)


def alternating_median_times(
    ours: Callable[[], None], reference: Callable[[], None], repeat: int
) -> tuple[float, float]:
    """Median wall-clock seconds of ``ours`` and ``reference``, timed in turns so that a change
    in the machine's load affects both alike; each runs once untimed first.
    """
    ours()
    reference()
    timings: dict[Callable[[], None], list[float]] = {ours: [], reference: []}
    for _ in range(repeat):
        for function, times in timings.items():
            start = time.perf_counter()
            function()
            times.append(time.perf_counter() - start)
    return statistics.median(timings[ours]), statistics.median(timings[reference])


def render_table(rows: list[Row]) -> str:
    """A plain-text table of the rows, one line each."""
    header = ("benchmark", "ours", "reference", "ours (ms)", "reference (ms)", "ratio")
    lines = [
        (
            row.name,
            row.ours,
            row.reference,
            f"{1000 * row.ours_seconds:.1f}",
            f"{1000 * row.reference_seconds:.1f}",
            f"{row.ratio:.2f}",
        )
        for row in rows
    ]
    widths = [max(len(cells[i]) for cells in [header, *lines]) for i in range(len(header))]
    rule = "  ".join("-" * width for width in widths)
    formatted = [
        "  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True))
        for cells in [header, *lines]
    ]
    return "\n".join(line.rstrip() for line in [formatted[0], rule, *formatted[1:]])
