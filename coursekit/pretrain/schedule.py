"""BERT's learning-rate schedule: linear warmup, then linear decay to zero (Chapter 6, BERT).

    lr(n) = lr_max * n / warmup                          for n <= warmup,
    lr(n) = lr_max * (total - n) / (total - warmup)      for warmup < n <= total,

for update n = 1, 2, ...; BERT warmed up for 10,000 of its 1,000,000 steps. During warmup the
rate does not depend on ``total``, so a short run repeats the first steps of a long one exactly.
"""

from __future__ import annotations

from coursekit.arguments import require_positive_int


class WarmupLinearDecay:
    """The factor of ``lr_max`` at each update, for ``torch.optim.lr_scheduler.LambdaLR``
    (Chapter 6, BERT). ``LambdaLR`` calls it with the number of steps taken so far (0 before the
    first update), so update n = step + 1. An object rather than a lambda, so that
    ``LambdaLR.state_dict`` (and a checkpoint) keeps it.
    """

    def __init__(self, warmup_steps: int, total_steps: int) -> None:
        for name, value in (("warmup_steps", warmup_steps), ("total_steps", total_steps)):
            require_positive_int(name, value)
        self.warmup_steps, self.total_steps = warmup_steps, total_steps

    def __repr__(self) -> str:
        return (
            f"WarmupLinearDecay(warmup_steps={self.warmup_steps}, total_steps={self.total_steps})"
        )

    def __call__(self, step: int) -> float:
        """The factor of update n = step + 1."""
        n = step + 1
        if n <= self.warmup_steps:
            return n / self.warmup_steps
        return max(0.0, (self.total_steps - n) / max(1, self.total_steps - self.warmup_steps))
