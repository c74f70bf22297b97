"""The learning-rate schedule of the Transformer paper (Chapter 5, Transformers).

The rate grows linearly for ``warmup`` steps, then decays with the inverse square root of the
step number n:

    lr(n) = d_model^-0.5 * min(n^-0.5, n * warmup^-1.5),

peaking at n = warmup with d_model^-0.5 * warmup^-0.5 (the paper: d_model 512, warmup 4000,
with Adam beta = (0.9, 0.98), eps 1e-9). tensor2tensor calls it the "noam" schedule.
"""

from __future__ import annotations

from coursekit.arguments import require_positive_int


class TransformerWarmupSchedule:
    """``lr(n) = d_model^-0.5 min(n^-0.5, n warmup^-1.5)`` as a factor for
    ``torch.optim.lr_scheduler.LambdaLR`` (Chapter 5).

    ``LambdaLR`` calls ``schedule(step)`` with the number of scheduler steps taken so far, 0
    before the first update; the update it sets the rate for is n = step + 1, so the rate is
    never 0 (or infinite, at n = 0). With the optimizer's ``lr=1.0`` the rate is exactly the
    paper's; another ``lr`` scales it. Use it with ``coursekit.train.fit(...,
    scheduler=LambdaLR(optimizer, TransformerWarmupSchedule(512, 4000)),
    scheduler_interval="step")``. An object rather than a lambda, so ``LambdaLR.state_dict``
    (and a checkpoint) keeps it.
    """

    def __init__(self, d_model: int, warmup_steps: int = 4000) -> None:
        for name, value in (("d_model", d_model), ("warmup_steps", warmup_steps)):
            require_positive_int(name, value)
        self.d_model = d_model
        self.warmup_steps = warmup_steps

    def __repr__(self) -> str:
        return (
            f"TransformerWarmupSchedule(d_model={self.d_model}, warmup_steps={self.warmup_steps})"
        )

    def __call__(self, step: int) -> float:
        """The rate of update n = step + 1."""
        n = step + 1
        return self.d_model**-0.5 * min(n**-0.5, n * self.warmup_steps**-1.5)
