"""fit reads the device only every `log_every` steps and once per validation pass, and records
what a loop reading every step (``loss.item()``, a float gradient norm) records, to within
floating-point rounding (trained floats are never compared bit for bit: the kernels a CPU
picks, AVX2 or AVX-512, may round differently)."""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch
from torch import nn
from toy_regression import Batch, fit_toy, mse

READS = ("item", "tolist", "__float__", "__int__", "__bool__")


class HostReads:
    """Counts the calls of every Tensor method that copies a value to the host."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        for name in READS:
            monkeypatch.setattr(torch.Tensor, name, self.counted(getattr(torch.Tensor, name)))

    def counted(self, read: Any) -> Any:
        def wrapper(tensor: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return read(tensor, *args, **kwargs)

        return wrapper


@pytest.mark.parametrize(("log_every", "reads_per_epoch"), [(1, 6 + 1), (3, 2 + 1), (4, 2 + 1)])
def test_the_host_reads_the_device_every_log_every_steps(
    model: nn.Module,
    train_batches: list[Batch],
    valid_batches: list[Batch],
    monkeypatch: pytest.MonkeyPatch,
    log_every: int,
    reads_per_epoch: int,
) -> None:
    # 6 steps per epoch: a read every log_every steps, one for the remainder, one for validation.
    reads = HostReads(monkeypatch)
    history = fit_toy(
        model,
        train_batches,
        epochs=2,
        valid_batches=valid_batches,
        max_grad_norm=0.5,
        log_every=log_every,
    )
    assert reads.count == 2 * reads_per_epoch
    assert len(history.step_loss) == len(history.grad_norm) == 12


def textbook_run(
    model: nn.Module, batches: list[Batch], epochs: int, max_norm: float | None
) -> tuple[list[float], list[float]]:
    """The loop that reads every step: ``loss.item()``, the global norm as a Python float, and
    the clipping factor ``c / (||g|| + 1e-6)`` computed in Python (what fit did before)."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    losses, norms = [], []
    for _ in range(epochs):
        for batch in batches:
            optimizer.zero_grad(set_to_none=True)
            loss = mse(model, batch)
            loss.backward()
            gradients = [p.grad for p in model.parameters() if p.grad is not None]
            each = torch.stack([torch.linalg.vector_norm(g) for g in gradients])
            norms.append(float(torch.linalg.vector_norm(each)))
            if max_norm is not None and max_norm / (norms[-1] + 1e-6) < 1:
                with torch.no_grad():
                    for gradient in gradients:
                        gradient.mul_(max_norm / (norms[-1] + 1e-6))
            optimizer.step()
            losses.append(loss.item())
    return losses, norms


@pytest.mark.parametrize("max_norm", [None, 0.5], ids=["no-clipping", "clipped"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_records_equal_those_of_a_loop_that_reads_every_step(
    train_batches: list[Batch], max_norm: float | None, dtype: torch.dtype
) -> None:
    torch.manual_seed(0)
    ours = nn.Linear(3, 1).to(dtype)
    reference = nn.Linear(3, 1).to(dtype)
    reference.load_state_dict(ours.state_dict())
    batches = [(x.to(dtype), y.to(dtype)) for x, y in train_batches]
    history = fit_toy(ours, batches, epochs=3, max_grad_norm=max_norm, log_every=4)
    losses, norms = textbook_run(reference, batches, epochs=3, max_norm=max_norm)
    # Same process, same steps: only rounding may differ; a wrong step, a norm read after
    # clipping or a factor applied twice is off by far more than this.
    tight = {"rtol": 1e-6, "atol": 1e-8}
    assert len(history.step_loss) == len(losses) == len(history.grad_norm) == len(norms) == 18
    torch.testing.assert_close(history.step_loss, losses, **tight)
    torch.testing.assert_close(history.grad_norm, norms, **tight)
    assert all(isinstance(value, float) for value in history.step_loss + history.grad_norm)
    if max_norm is not None:
        assert sum(norm > max_norm for norm in norms) >= 3  # clipping was active
    torch.testing.assert_close(ours.state_dict(), reference.state_dict(), **tight)


def test_a_non_finite_norm_under_clipping_raises_at_the_next_read(
    model: nn.Module, train_batches: list[Batch]
) -> None:
    steps: list[int] = []

    def overflowing_at_step_5(model: nn.Module, batch: Batch) -> torch.Tensor:
        steps.append(len(steps) + 1)
        loss = mse(model, batch)
        return loss * math.inf if steps[-1] == 5 else loss

    with pytest.raises(RuntimeError, match="gradient norm at step 5 is (nan|inf)"):
        fit_toy(model, train_batches, loss_fn=overflowing_at_step_5, max_grad_norm=1.0, log_every=3)
    assert steps == [1, 2, 3, 4, 5, 6]  # the read after step 6 found it
