"""``copy``, ``reverse``, ``sort``: token-id sequence tasks (Chapter 5, Transformers).

A source is a sequence of token ids ``x_1 ... x_T`` with ``T ~ U{min_len, ..., max_len}`` and
every ``x_t ~ U{FIRST_TOKEN_ID, ..., vocab_size - 1}``; the target is ``f(x)``:

- ``copy``:    ``y = x``
- ``reverse``: ``y_t = x_{T+1-t}``
- ``sort``:    ``y`` is ``x`` in increasing order.

Ids ``0, 1, 2`` are reserved for ``PAD_ID``, ``SOS_ID`` and ``EOS_ID`` and never appear in an
example, so ``vocab_size`` (specials included) is the size of the model's embedding table.
Sources and targets carry no ``<sos>``/``<eos>``: the collate function adds them.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable

from coursekit.arguments import require_int, require_positive_int
from coursekit.data.records import SequencePair
from coursekit.data.registry import SEED_OPTION, SIZE_OPTION, DatasetInfo, Option, register
from coursekit.data.splits import generator_for, sample_split

PAD_ID = 0
SOS_ID = 1
EOS_ID = 2
FIRST_TOKEN_ID = 3

Task = Callable[[list[int]], list[int]]

TASKS: dict[str, tuple[Task, str]] = {
    "copy": (list, "copy a sequence of token ids"),
    "reverse": (lambda tokens: tokens[::-1], "reverse a sequence of token ids"),
    "sort": (sorted, "sort a sequence of token ids"),
}


def draw_tokens(rng: random.Random, vocab_size: int, min_len: int, max_len: int) -> list[int]:
    """A source sequence: uniform length in ``[min_len, max_len]``, uniform non-special ids."""
    length = rng.randint(min_len, max_len)
    return [rng.randint(FIRST_TOKEN_ID, vocab_size - 1) for _ in range(length)]


def sequence_task(
    task: str, split: str, *, n: int, seed: int, vocab_size: int, min_len: int, max_len: int
) -> list[SequencePair]:
    """``SequencePair(x, f(x))`` for the task ``f`` named ``task`` (Chapter 5, Transformers).

    The source sequence is the key that decides the split.
    """
    require_int("vocab_size", vocab_size, minimum=FIRST_TOKEN_ID + 1)
    require_positive_int("min_len", min_len)
    require_int("max_len", max_len, minimum=min_len)
    transform = TASKS[task][0]
    sources = sample_split(
        lambda rng: [draw_tokens(rng, vocab_size, min_len, max_len)],
        key=lambda tokens: " ".join(map(str, tokens)),
        split=split,
        n=n,
        rng=generator_for(task, split, seed),
    )
    return [SequencePair(source, transform(source)) for source in sources]


def register_task(task: str) -> None:
    """Register ``task`` as a generated dataset with the options shared by all three tasks."""
    info = DatasetInfo(
        name=task,
        description=f"{TASKS[task][1]} (ids from {FIRST_TOKEN_ID}; pad=0, sos=1, eos=2)",
        kind="generated",
        splits=("train", "valid", "test"),
        options=(
            SIZE_OPTION,
            SEED_OPTION,
            Option("vocab_size", 13, "vocabulary size, the 3 specials included"),
            Option("min_len", 3, "shortest source sequence"),
            Option("max_len", 12, "longest source sequence"),
        ),
        sizes={"train": 5000, "valid": 500, "test": 500},
    )
    register(info)(functools.partial(sequence_task, task))


for task_name in TASKS:
    register_task(task_name)
