"""From BLEU's counts to the score: brevity penalty, smoothing, geometric mean (Chapter 1).

BLEU (Papineni et al., 2002) condenses a corpus into sufficient statistics: for each order
``n = 1..N`` the clipped n-gram matches ``m_n`` and the hypothesis n-grams ``t_n``, plus the
hypothesis length ``c`` and the reference length ``r``. This module turns them into

    BLEU = BP(c, r) * exp( (1/N) * sum_n log p_n ),   p_n = m_n / t_n,

with sacrebleu's smoothing of zero precisions and its edge cases, bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

SmoothMethod = Literal["exp", "floor", "add-k", "none"]

# Default smoothing values, as in sacrebleu (Chen and Cherry, 2014): "floor" replaces a zero
# match count by 0.1, "add-k" adds 1 to the matches and totals of orders n >= 2.
SMOOTH_DEFAULTS: dict[str, float] = {"exp": 0.0, "floor": 0.1, "add-k": 1, "none": 0.0}
"""sacrebleu's default ``smooth_value`` of each method ("exp" and "none" do not use one)."""


@dataclass(frozen=True)
class BLEUScore:
    """A BLEU score with the statistics it was computed from (Chapter 1, Text as sequences).

    ``score`` is ``100 * BP * exp(mean_n log p_n)`` in [0, 100]; ``precisions`` are the (smoothed)
    n-gram precisions ``100 * p_n`` in percent; ``counts`` and ``totals`` are the clipped matches
    ``m_n`` and hypothesis n-grams ``t_n`` *before* smoothing (sacrebleu reports them after
    "add-k" smoothing); ``sys_len`` is ``c`` and ``ref_len`` is ``r``. ``str(score)`` prints the
    same line as sacrebleu.
    """

    score: float
    counts: tuple[int, ...]
    totals: tuple[int, ...]
    precisions: tuple[float, ...]
    bp: float
    sys_len: int
    ref_len: int

    @property
    def ratio(self) -> float:
        """Length ratio ``c / r`` (0 when the references are empty), as sacrebleu prints it."""
        return self.sys_len / self.ref_len if self.ref_len else 0.0

    def __str__(self) -> str:
        precisions = "/".join(f"{precision:.1f}" for precision in self.precisions)
        return (
            f"BLEU = {self.score:.2f} {precisions} (BP = {self.bp:.3f} ratio = {self.ratio:.3f} "
            f"hyp_len = {self.sys_len:d} ref_len = {self.ref_len:d})"
        )


def brevity_penalty(hypothesis_length: int, reference_length: int) -> float:
    """BLEU's brevity penalty ``BP = exp(1 - r/c)`` if ``c < r``, else 1 (Chapter 1).

    Precision alone rewards saying little, so BLEU multiplies by BP < 1 when the hypotheses
    (``c`` tokens) are shorter than the references (``r`` tokens). An empty hypothesis against a
    non-empty reference gets BP = 0 (the limit of exp(1 - r/c) as c -> 0), as in sacrebleu.
    """
    if hypothesis_length < 0 or reference_length < 0:
        raise ValueError(
            f"lengths must be >= 0, got hypothesis_length={hypothesis_length}, "
            f"reference_length={reference_length}"
        )
    if hypothesis_length >= reference_length:
        return 1.0
    if hypothesis_length == 0:
        return 0.0
    return math.exp(1 - reference_length / hypothesis_length)


def smoothed_precisions(
    counts: Sequence[int],
    totals: Sequence[int],
    smooth_method: SmoothMethod = "exp",
    smooth_value: float | None = None,
) -> tuple[list[float], int]:
    """The n-gram precisions ``100 * m_n / t_n`` in percent, with a zero ``m_n`` smoothed.

    Chapter 1, Text as sequences. One order without any match would make the geometric mean 0,
    so sacrebleu's smoothing methods (Chen and Cherry, 2014) replace a zero precision by

    - ``"exp"``: ``100 / (2**k * t_n)`` for the k-th order without matches (mteval's rule);
    - ``"floor"``: ``100 * smooth_value / t_n``;
    - ``"add-k"``: ``100 * (m_n + k) / (t_n + k)`` for every order ``n >= 2``;
    - ``"none"``: 0.

    The loop stops at the first order with no hypothesis n-gram (a hypothesis shorter than n
    tokens), whose precision stays 0. Returns the precisions and that count of orders with
    n-grams, the *effective order*.
    """
    if smooth_method not in SMOOTH_DEFAULTS:
        raise ValueError(
            f"smooth_method must be one of {list(SMOOTH_DEFAULTS)}, got {smooth_method!r}"
        )
    if smooth_value is None:
        smooth_value = SMOOTH_DEFAULTS[smooth_method]
    precisions = [0.0] * len(counts)
    effective_order = 0
    orders_without_match = 0
    matches: float
    total: float
    for n, (matches, total) in enumerate(zip(counts, totals, strict=True), start=1):
        if smooth_method == "add-k" and n > 1:
            matches += smooth_value
            total += smooth_value
        if total == 0:
            break
        effective_order = n
        if matches > 0:
            precisions[n - 1] = 100.0 * matches / total
        elif smooth_method == "exp":
            orders_without_match += 1
            precisions[n - 1] = 100.0 / (2**orders_without_match * total)
        elif smooth_method == "floor":
            precisions[n - 1] = 100.0 * smooth_value / total
    return precisions, effective_order


def bleu_from_statistics(
    counts: Sequence[int],
    totals: Sequence[int],
    sys_len: int,
    ref_len: int,
    *,
    smooth_method: SmoothMethod = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
) -> BLEUScore:
    """BLEU from its sufficient statistics (Chapter 1, Text as sequences).

    ``BLEU = BP(c, r) * exp((1/N) * sum_{n<=N} log p_n)`` with the precisions ``p_n`` (in percent)
    of :func:`smoothed_precisions`. ``N`` is the maximum order ``len(counts)``; with
    ``effective_order=True`` (sentence BLEU) it is lowered to the number of orders for which the
    hypothesis has n-grams at all, so a 3-word sentence is not punished for having no 4-gram.
    Any zero precision in the mean makes BLEU 0, and so does a corpus without a single match.
    """
    if len(counts) != len(totals) or not counts:
        raise ValueError(
            f"counts and totals need one entry per n-gram order, got {len(counts)} and {len(totals)}"
        )
    bp = brevity_penalty(sys_len, ref_len)
    if not any(counts):
        precisions = [0.0] * len(counts)
        return BLEUScore(0.0, tuple(counts), tuple(totals), tuple(precisions), bp, sys_len, ref_len)
    precisions, orders_with_ngrams = smoothed_precisions(
        counts, totals, smooth_method, smooth_value
    )
    averaged = precisions[:orders_with_ngrams] if effective_order else precisions
    if min(averaged) == 0.0:
        score = 0.0
    else:
        score = bp * math.exp(sum(math.log(precision) for precision in averaged) / len(averaged))
    return BLEUScore(score, tuple(counts), tuple(totals), tuple(precisions), bp, sys_len, ref_len)
