"""BucketBatchSampler covers every index once, is reproducible, and really saves padding."""

from __future__ import annotations

import random

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from torch.utils.data import DataLoader

from coursekit.text import BucketBatchSampler, padding_fraction


def skewed_lengths(count: int, seed: int = 0) -> list[int]:
    """Mostly short sequences and a long tail, like sentences in a corpus."""
    rng = random.Random(seed)
    return [max(1, int(rng.lognormvariate(2.5, 0.8))) for _ in range(count)]


@given(
    st.lists(st.integers(0, 30), min_size=0, max_size=60),
    st.integers(1, 7),
    st.integers(1, 4),
    st.booleans(),
    st.integers(0, 3),
)
def test_every_index_exactly_once(
    lengths: list[int], batch_size: int, multiplier: int, shuffle: bool, seed: int
) -> None:
    sampler = BucketBatchSampler(lengths, batch_size, shuffle, seed, multiplier)
    batches = list(sampler)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    assert len(batches) == len(sampler)
    assert all(1 <= len(batch) <= batch_size for batch in batches)
    assert sum(len(batch) < batch_size for batch in batches) <= 1


def test_batches_inside_a_bucket_are_sorted_by_length() -> None:
    lengths = [5, 1, 4, 2, 3, 6]
    batches = list(
        BucketBatchSampler(lengths, batch_size=2, shuffle=False, bucket_size_multiplier=3)
    )
    assert batches == [[1, 3], [4, 2], [0, 5]]


def test_drop_last_drops_only_the_incomplete_batch() -> None:
    sampler = BucketBatchSampler(list(range(10)), batch_size=3, drop_last=True)
    batches = list(sampler)
    assert len(batches) == len(sampler) == 3
    assert all(len(batch) == 3 for batch in batches)


def test_same_seed_same_epochs_and_epochs_differ() -> None:
    lengths = skewed_lengths(500)
    first = BucketBatchSampler(lengths, 16, seed=7)
    second = BucketBatchSampler(lengths, 16, seed=7)
    epoch_0, epoch_1 = list(first), list(first)
    assert epoch_0 == list(second)
    assert epoch_0 != epoch_1
    first.set_epoch(0)
    assert list(first) == epoch_0
    assert list(BucketBatchSampler(lengths, 16, seed=8)) != epoch_0


def test_bucketing_reduces_padding_against_random_batches() -> None:
    lengths = skewed_lengths(2000)
    order = torch.randperm(len(lengths), generator=torch.Generator().manual_seed(0)).tolist()
    random_batches = [order[i : i + 32] for i in range(0, len(order), 32)]
    bucketed = list(BucketBatchSampler(lengths, 32, bucket_size_multiplier=50))
    random_padding = padding_fraction([[lengths[i] for i in b] for b in random_batches])
    bucket_padding = padding_fraction([[lengths[i] for i in b] for b in bucketed])
    assert random_padding > 0.4
    assert bucket_padding < random_padding / 5


def test_padding_fraction_counts_padded_slots() -> None:
    # [1, 3]: 2 x 3 slots, 4 tokens; [2, 2]: 4 slots, 4 tokens -> 2 padded of 10.
    assert padding_fraction([[1, 3], [2, 2]]) == pytest.approx(0.2)
    assert padding_fraction([[4, 4, 4]]) == 0.0
    with pytest.raises(ValueError, match="at least one batch"):
        padding_fraction([])


def test_works_as_a_dataloader_batch_sampler() -> None:
    data = [torch.arange(n) for n in [3, 1, 2, 3, 1]]
    sampler = BucketBatchSampler([len(x) for x in data], batch_size=2, shuffle=False)
    loader = DataLoader(
        data, batch_sampler=sampler, collate_fn=lambda batch: [len(x) for x in batch]
    )
    assert list(loader) == [[1, 1], [2, 3], [3]]  # one bucket, sorted by length


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"batch_size": 0}, "batch_size must be a positive integer"),
        ({"batch_size": 2, "bucket_size_multiplier": 0}, "bucket_size_multiplier"),
        ({"batch_size": 2, "lengths": [1, -2]}, "non-negative"),
    ],
)
def test_invalid_arguments(kwargs: dict[str, object], message: str) -> None:
    arguments = {"lengths": [1, 2, 3], **kwargs}
    with pytest.raises(ValueError, match=message):
        BucketBatchSampler(**arguments)  # type: ignore[arg-type]
