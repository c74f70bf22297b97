"""Training pieces of Chapter 5: label-smoothed cross-entropy equals torch's
``F.cross_entropy(label_smoothing=...)`` (values and gradients, ignore_index, every reduction);
the paper's warmup schedule follows its formula as a ``LambdaLR`` factor; both work in
``coursekit.train.fit`` with a per-step scheduler.
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.optim.lr_scheduler import LambdaLR

from coursekit.models.transformer.language_model import TransformerLanguageModel
from coursekit.train import fit
from coursekit.train.losses import label_smoothed_cross_entropy
from coursekit.train.schedules import TransformerWarmupSchedule


@settings(max_examples=100, deadline=None)
@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    classes=st.integers(1, 7),
    smoothing=st.sampled_from([0.0, 0.1, 0.5, 1.0]),
    ignore_index=st.sampled_from([-100, 0]),
    reduction=st.sampled_from(["mean", "sum", "none"]),
    seed=st.integers(0, 2**16),
)
def test_equals_torch_cross_entropy_with_label_smoothing(
    shape: list[int], classes: int, smoothing: float, ignore_index: int, reduction: str, seed: int
) -> None:
    generator = torch.Generator().manual_seed(seed)
    logits = (
        3 * torch.randn(*shape, classes, generator=generator, dtype=torch.float64)
    ).requires_grad_()
    targets = torch.randint(0, classes, shape, generator=generator)
    ignored = torch.rand(shape, generator=generator) < 0.3
    ignored.view(-1)[0] = False  # at least one counted position (the mean is NaN otherwise)
    targets = targets.masked_fill(ignored, -100) if ignore_index == -100 else targets
    ours = label_smoothed_cross_entropy(logits, targets, smoothing, ignore_index, reduction)
    theirs = F.cross_entropy(
        logits.reshape(-1, classes), targets.reshape(-1), ignore_index=ignore_index,
        reduction=reduction, label_smoothing=smoothing,
    ).reshape(ours.shape)  # fmt: skip
    torch.testing.assert_close(ours, theirs, equal_nan=True)  # NaN: every position ignored
    weights = torch.randn(ours.shape, generator=generator, dtype=torch.float64)
    our_gradient = torch.autograd.grad((weights * ours).sum(), logits)
    their_gradient = torch.autograd.grad((weights * theirs).sum(), logits)
    torch.testing.assert_close(our_gradient, their_gradient, equal_nan=True)


def test_it_is_the_mixture_of_the_true_class_and_the_uniform_distribution() -> None:
    logits = torch.tensor([[2.0, 0.0, -1.0]], dtype=torch.float64)
    log_probs = torch.log_softmax(logits, dim=-1)[0]
    expected = -(0.9 * log_probs[0] + 0.1 * log_probs.mean())
    torch.testing.assert_close(
        label_smoothed_cross_entropy(logits, torch.tensor([0]), 0.1), expected
    )


def test_a_batch_of_ignored_positions_gives_nan_like_torch_and_none_gives_zeros_there() -> None:
    logits, targets = torch.randn(2, 3, 5), torch.full((2, 3), -100)
    assert torch.isnan(label_smoothed_cross_entropy(logits, targets))
    assert torch.isnan(
        F.cross_entropy(logits.reshape(-1, 5), targets.reshape(-1), label_smoothing=0.1)
    )
    targets[0, 1] = 2
    losses = label_smoothed_cross_entropy(logits, targets, reduction="none")
    assert (
        losses.shape == (2, 3)
        and losses[0, 1] > 0
        and (losses.flatten()[[0, 2, 3, 4, 5]] == 0).all()
    )


@pytest.mark.parametrize(
    "logits, targets, options, message",
    [
        (torch.randn(2, 5), torch.zeros(2, 5, dtype=torch.long), {}, r"LAST dimension of logits"),
        (torch.randn(2, 5), torch.zeros(2), {}, r"integer class ids"),
        (torch.randn(2, 5), torch.zeros(2, dtype=torch.long), {"smoothing": 1.5}, r"in \[0, 1\]"),
        (
            torch.randn(2, 5),
            torch.zeros(2, dtype=torch.long),
            {"reduction": "avg"},
            r"reduction must be",
        ),
        (
            torch.zeros(2, 5, dtype=torch.long),
            torch.zeros(2, dtype=torch.long),
            {},
            r"floating-point scores",
        ),
    ],
)
def test_wrong_arguments_are_rejected(
    logits: torch.Tensor, targets: torch.Tensor, options: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        label_smoothed_cross_entropy(logits, targets, **options)


def test_the_schedule_warms_up_linearly_then_decays_as_one_over_the_square_root() -> None:
    schedule = TransformerWarmupSchedule(d_model=512, warmup_steps=4000)
    rates = [schedule(step) for step in range(20000)]  # rates[step] is for update step + 1
    assert all(math.isfinite(rate) and rate > 0 for rate in rates)
    peak = max(range(len(rates)), key=rates.__getitem__)
    assert peak + 1 == 4000
    assert math.isclose(rates[peak], 512**-0.5 * 4000**-0.5)
    assert math.isclose(rates[999] / rates[499], 2.0)  # linear in n during the warmup
    assert math.isclose(rates[15999] / rates[3999], 0.5)  # n^-0.5 after it: 4x the steps, half


def test_the_schedule_drives_lambda_lr_and_is_saved_in_its_state_dict() -> None:
    optimizer = torch.optim.Adam([torch.zeros(1, requires_grad=True)], lr=1.0)
    scheduler = LambdaLR(optimizer, TransformerWarmupSchedule(64, warmup_steps=10))
    assert math.isclose(optimizer.param_groups[0]["lr"], 64**-0.5 * 1 * 10**-1.5)  # update 1
    for _ in range(4):
        optimizer.step()
        scheduler.step()
    assert math.isclose(optimizer.param_groups[0]["lr"], 64**-0.5 * 5 * 10**-1.5)  # update 5
    saved = scheduler.state_dict()["lr_lambdas"][0]
    assert saved == {"d_model": 64, "warmup_steps": 10}
    with pytest.raises(ValueError, match="warmup_steps must be a positive integer"):
        TransformerWarmupSchedule(64, warmup_steps=0)


def test_fit_trains_a_transformer_with_label_smoothing_and_the_warmup_schedule() -> None:
    torch.manual_seed(0)
    model = TransformerLanguageModel(
        12, d_model=16, nhead=2, num_layers=1, dim_feedforward=32, dropout=0.0, max_len=16
    )
    text = torch.arange(12).repeat(2)[:13].unsqueeze(0).repeat(4, 1)  # a cycle to memorise
    text[:, -2:] = 0  # padding at the end
    batches = [text] * 5

    def loss_fn(model: torch.nn.Module, batch: torch.Tensor) -> torch.Tensor:
        logits, _ = model(batch[:, :-1])
        targets = batch[:, 1:].masked_fill(batch[:, 1:] == 0, -100)  # padding does not count
        return label_smoothed_cross_entropy(logits, targets, smoothing=0.1)

    optimizer = torch.optim.Adam(model.parameters(), lr=4.0, betas=(0.9, 0.98), eps=1e-9)
    scheduler = LambdaLR(optimizer, TransformerWarmupSchedule(16, warmup_steps=20))
    history = fit(
        model, batches, loss_fn=loss_fn, optimizer=optimizer, epochs=8, scheduler=scheduler,
        scheduler_interval="step", device="cpu", progress=False,
    )  # fmt: skip
    assert scheduler.last_epoch == 40
    assert math.isclose(
        optimizer.param_groups[0]["lr"], 4.0 * TransformerWarmupSchedule(16, 20)(40)
    )
    assert history.train_loss[-1] < 0.5 * history.train_loss[0]
