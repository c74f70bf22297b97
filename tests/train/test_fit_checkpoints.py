"""Atomic checkpoints, safe loading, and a resumed run equal to an uninterrupted one.

Two runs of the same training in one process are compared to within rounding (``SAME_RUN``),
never bit for bit: trained floats may differ in the last bits between CPUs (AVX2, AVX-512),
and a test must not depend on that. A run that trains nothing is compared exactly: its weights
and history are those read back from the checkpoint."""

from __future__ import annotations

import pickle
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from torch import nn

from coursekit.train import (
    History,
    capture_rng_state,
    fit,
    load_checkpoint,
    restore_rng_state,
    save_checkpoint,
)


class Interrupted(Exception):
    """Stands for a crash or a Ctrl-C in the middle of training."""


class NoisyRegressor(nn.Module):
    """A model with dropout, so training consumes torch's random numbers."""

    def __init__(self) -> None:
        super().__init__()
        self.hidden = nn.Linear(3, 16)
        self.dropout = nn.Dropout(0.3)
        self.out = nn.Linear(16, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.dropout(torch.relu(self.hidden(x))))


def build_run(seed: int = 0) -> dict[str, Any]:
    """Everything a training script creates before calling fit, from scratch."""
    torch.manual_seed(seed)
    model = NoisyRegressor()
    x = torch.randn(48, 3, generator=torch.Generator().manual_seed(123))
    dataset = torch.utils.data.TensorDataset(x, x @ torch.tensor([[1.0], [-2.0], [0.5]]))
    loader = torch.utils.data.DataLoader(
        dataset, batch_size=8, shuffle=True, generator=torch.Generator().manual_seed(seed)
    )
    valid = torch.utils.data.DataLoader(dataset, batch_size=16)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    return {
        "model": model,
        "loader": loader,
        "valid": valid,
        "optimizer": optimizer,
        "scheduler": scheduler,
    }


def noisy_loss(crash_at_step: int | None = None) -> Any:
    """MSE plus noise from Python's and NumPy's generators; raises at a given training step."""
    steps = [0]

    def loss_fn(model: nn.Module, batch: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        steps[0] += model.training
        if model.training and steps[0] == crash_at_step:
            raise Interrupted
        x, y = batch
        jitter = random.random() * 1e-3 + float(np.random.rand()) * 1e-3
        return nn.functional.mse_loss(model(x), y) + jitter

    return loss_fn


def run_fit(run: dict[str, Any], loss_fn: Any, path: Path | None, **options: Any) -> History:
    return fit(
        run["model"],
        run["loader"],
        loss_fn=loss_fn,
        optimizer=run["optimizer"],
        epochs=options.pop("epochs", 5),
        valid_batches=run["valid"],
        scheduler=run["scheduler"],
        max_grad_norm=1.0,
        checkpoint_path=path,
        device="cpu",
        progress=False,
        **options,
    )


#: Tolerance of two runs of the same training in this process: far below what one step more
#: or less, a lost random state or a wrong learning rate changes, but not bit for bit.
SAME_RUN = {"rtol": 1e-6, "atol": 1e-8}


def seed_globals(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


# The second case stops early inside the resumed part: "max" of a falling training loss makes
# epoch 1 the best, so epochs 2 and 3 do not improve and the run stops after epoch 3.
@pytest.mark.parametrize(
    "stopping",
    [{}, {"early_stopping_patience": 2, "monitor": "train_loss", "mode": "max"}],
    ids=["no-early-stopping", "early-stopping"],
)
def test_resumed_run_equals_the_uninterrupted_run(tmp_path: Path, stopping: dict[str, Any]) -> None:
    uninterrupted = build_run()
    seed_globals(1)
    expected = run_fit(uninterrupted, noisy_loss(), tmp_path / "a.pt", **stopping)
    assert expected.stopped_early == bool(stopping)

    interrupted = build_run()
    seed_globals(1)
    with pytest.raises(Interrupted):  # the loader has 6 batches: step 15 is inside epoch 3
        run_fit(interrupted, noisy_loss(crash_at_step=15), tmp_path / "b.pt", **stopping)
    assert load_checkpoint(tmp_path / "b.pt")["epoch"] == 2

    resumed = build_run()  # a fresh process: new objects, and the global generators elsewhere
    seed_globals(99)
    history = run_fit(resumed, noisy_loss(), tmp_path / "b.pt", resume=True, **stopping)

    # The records (lists of losses and norms, best epoch, stopped_early) and the weights.
    torch.testing.assert_close(history.to_dict(), expected.to_dict(), **SAME_RUN)
    torch.testing.assert_close(
        resumed["model"].state_dict(), uninterrupted["model"].state_dict(), **SAME_RUN
    )
    assert resumed["scheduler"].state_dict() == uninterrupted["scheduler"].state_dict()


def test_resume_if_exists_without_a_checkpoint_starts_from_scratch(tmp_path: Path) -> None:
    seed_globals(1)
    path = tmp_path / "fresh.pt"
    first = run_fit(build_run(), noisy_loss(), path, epochs=2, resume="if-exists")
    seed_globals(1)
    second = run_fit(build_run(), noisy_loss(), None, epochs=2)
    torch.testing.assert_close(first.to_dict(), second.to_dict(), **SAME_RUN)
    assert load_checkpoint(path)["epoch"] == 2


def test_resume_if_exists_with_a_checkpoint_resumes(tmp_path: Path) -> None:
    path = tmp_path / "run.pt"
    finished = run_fit(build_run(), noisy_loss(), path, epochs=2)
    resumed = run_fit(build_run(), noisy_loss(crash_at_step=1), path, epochs=2, resume="if-exists")
    assert resumed.to_dict() == finished.to_dict()  # no step ran: the crash was never reached


def test_resume_true_without_a_checkpoint_trains_nothing(tmp_path: Path) -> None:
    run = build_run()
    before = {name: tensor.clone() for name, tensor in run["model"].state_dict().items()}
    with pytest.raises(FileNotFoundError, match="no checkpoint at .*missing.pt"):
        run_fit(run, noisy_loss(), tmp_path / "missing.pt", resume=True)
    for name, tensor in run["model"].state_dict().items():
        assert torch.equal(tensor, before[name]), name
    assert list(tmp_path.iterdir()) == []


def test_resuming_a_finished_run_trains_nothing(tmp_path: Path) -> None:
    run = build_run()
    history = run_fit(run, noisy_loss(), tmp_path / "done.pt", epochs=2)
    again = build_run()
    resumed = run_fit(
        again, noisy_loss(crash_at_step=1), tmp_path / "done.pt", epochs=2, resume=True
    )
    assert resumed.to_dict() == history.to_dict()
    assert torch.equal(again["model"].out.weight, run["model"].out.weight)


def test_resume_with_other_metrics_is_refused(tmp_path: Path) -> None:
    run_fit(build_run(), noisy_loss(), tmp_path / "m.pt", epochs=1)
    with pytest.raises(ValueError, match="pass the same metrics"):
        run_fit(
            build_run(),
            noisy_loss(),
            tmp_path / "m.pt",
            metrics={"one": lambda model: 1.0},
            resume=True,
        )


def broken_save(obj: object, file: Any, *args: Any, **kwargs: Any) -> None:
    """torch.save that dies half-way, like a full disk."""
    file.write(b"half a checkpoint")
    raise OSError("No space left on device")


def test_a_failed_save_leaves_no_partial_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "ckpt.pt"
    monkeypatch.setattr(torch, "save", broken_save)
    with pytest.raises(OSError, match="No space left"):
        save_checkpoint({"weights": torch.ones(3)}, target)
    assert list(tmp_path.iterdir()) == []


def test_a_failed_save_keeps_the_previous_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "ckpt.pt"
    save_checkpoint({"weights": torch.ones(3)}, target)
    monkeypatch.setattr(torch, "save", broken_save)
    with pytest.raises(OSError):
        save_checkpoint({"weights": torch.zeros(3)}, target)
    assert list(tmp_path.iterdir()) == [target]
    assert torch.equal(load_checkpoint(target)["weights"], torch.ones(3))


def test_fit_keeps_the_last_good_checkpoint_when_saving_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "run.pt"
    run_fit(build_run(), noisy_loss(), target, epochs=1)
    monkeypatch.setattr(torch, "save", broken_save)
    with pytest.raises(OSError):
        run_fit(build_run(), noisy_loss(), target, epochs=3, resume=True)
    assert load_checkpoint(target)["epoch"] == 1
    assert sorted(tmp_path.iterdir()) == [target]


class Payload:
    """An arbitrary object: unpickling it could run code, so weights-only loading refuses it."""


def test_loading_is_weights_only(tmp_path: Path) -> None:
    path = tmp_path / "unsafe.pt"
    torch.save({"payload": Payload()}, path)
    with pytest.raises(pickle.UnpicklingError):
        load_checkpoint(path)
    with pytest.raises(FileNotFoundError, match="no checkpoint at"):
        load_checkpoint(tmp_path / "missing.pt")


def test_rng_states_round_trip_through_a_checkpoint(tmp_path: Path) -> None:
    generator = torch.Generator().manual_seed(5)
    save_checkpoint({"rng": capture_rng_state([generator])}, tmp_path / "rng.pt")
    first = (
        random.random(),
        np.random.rand(),
        torch.rand(1).item(),
        torch.rand(1, generator=generator).item(),
    )
    restore_rng_state(load_checkpoint(tmp_path / "rng.pt")["rng"], [generator])
    second = (
        random.random(),
        np.random.rand(),
        torch.rand(1).item(),
        torch.rand(1, generator=generator).item(),
    )
    assert first == second
    with pytest.raises(ValueError, match="data generators"):
        restore_rng_state(load_checkpoint(tmp_path / "rng.pt")["rng"], [])
