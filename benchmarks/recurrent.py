"""Rows: a training step (forward and backward) of ``coursekit.models.LSTM`` and ``GRU`` against
``torch.nn.LSTM`` and ``GRU`` with the same weights, on CPU in float32.

Each row first checks that both networks give the same output, then times them alternately
(after one warm-up step each) and reports the median of the timed steps. The thread count is
left as torch sets it.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor, nn

from benchmarks.registry import Row, alternating_median_times, benchmark
from coursekit.models import GRU, LSTM

# (batch, length, input size, hidden size)
FULL_SIZES = (64, 100, 256, 256)
QUICK_SIZES = (4, 8, 16, 16)


def training_step(network: nn.Module, x: Tensor) -> Callable[[], None]:
    """One forward and backward pass of ``network`` on ``x``; the gradients are then dropped."""

    def step() -> None:
        output, _ = network(x)
        output.sum().backward()
        network.zero_grad(set_to_none=True)

    return step


def recurrent_row(network_class: type[LSTM] | type[GRU], quick: bool) -> Row:
    """The row of one network class: same weights, same input, same output, then the timings."""
    batch, length, input_size, hidden_size = QUICK_SIZES if quick else FULL_SIZES
    torch.manual_seed(0)
    reference = network_class.torch_class(input_size, hidden_size)
    ours = network_class.from_torch(reference)
    x = torch.randn(length, batch, input_size)
    with torch.no_grad():
        torch.testing.assert_close(ours(x)[0], reference(x)[0], rtol=1e-4, atol=1e-5)
    ours_seconds, reference_seconds = alternating_median_times(
        training_step(ours, x), training_step(reference, x), repeat=1 if quick else 5
    )
    name = network_class.__name__
    return Row(
        name=f"{name} forward+backward, B={batch} T={length} I={input_size} H={hidden_size}",
        ours=f"coursekit.models.{name}",
        reference=f"torch.nn.{name} {torch.__version__}",
        ours_seconds=ours_seconds,
        reference_seconds=reference_seconds,
    )


@benchmark
def lstm_vs_torch(quick: bool) -> Row:
    """A training step of a one-layer LSTM, float32 on CPU."""
    return recurrent_row(LSTM, quick)


@benchmark
def gru_vs_torch(quick: bool) -> Row:
    """A training step of a one-layer GRU, float32 on CPU."""
    return recurrent_row(GRU, quick)
