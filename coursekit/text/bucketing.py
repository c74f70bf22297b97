"""Length bucketing: batch sequences of similar length to waste less padding (Chapter 1).

A random batch pads every sequence to the longest one it happens to contain. Sorting by length
first makes neighbours similar, but a fully sorted epoch is the same every time and feeds the
model easy (short) batches first. The compromise of torchtext's old ``BucketIterator``: shuffle,
cut the data into large chunks, sort each chunk by length, cut it into batches, and shuffle the
batches. :func:`padding_fraction` measures what it saves.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence

import torch
from torch.utils.data import Sampler

from coursekit.arguments import require_positive_int


class BucketBatchSampler(Sampler[list[int]]):
    """Yield batches of dataset indices whose sequences have similar lengths (Chapter 1).

    Each epoch: permute the indices (when ``shuffle``), split them into chunks of
    ``batch_size * bucket_size_multiplier``, sort every chunk by length, cut it into batches of
    ``batch_size`` and shuffle the order of the batches. Every index appears exactly once per
    epoch. Epoch ``e`` draws its randomness from ``seed + e``, so runs repeat exactly while
    successive epochs differ; :meth:`set_epoch` chooses ``e``, otherwise it counts iterations.
    Use it as ``DataLoader(dataset, batch_sampler=sampler, collate_fn=...)``.
    """

    def __init__(
        self,
        lengths: Sequence[int],
        batch_size: int,
        shuffle: bool = True,
        seed: int = 0,
        bucket_size_multiplier: int = 100,
        drop_last: bool = False,
    ) -> None:
        require_positive_int("batch_size", batch_size)
        require_positive_int("bucket_size_multiplier", bucket_size_multiplier)
        self.lengths = [int(length) for length in lengths]
        if any(length < 0 for length in self.lengths):
            raise ValueError("lengths must be non-negative")
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.seed = seed
        self.bucket_size = batch_size * bucket_size_multiplier
        self.drop_last = drop_last
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        """Make the next iteration produce epoch ``epoch``'s batches."""
        self.epoch = epoch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.lengths) // self.batch_size
        return math.ceil(len(self.lengths) / self.batch_size)

    def __iter__(self) -> Iterator[list[int]]:
        generator = torch.Generator().manual_seed(self.seed + self.epoch)
        self.epoch += 1
        count = len(self.lengths)
        order = torch.randperm(count, generator=generator) if self.shuffle else torch.arange(count)
        indices = order.tolist()
        batches: list[list[int]] = []
        for start in range(0, count, self.bucket_size):
            bucket = sorted(indices[start : start + self.bucket_size], key=self.lengths.__getitem__)
            batches += [
                bucket[i : i + self.batch_size] for i in range(0, len(bucket), self.batch_size)
            ]
        if self.drop_last and batches and len(batches[-1]) < self.batch_size:
            batches.pop()
        if self.shuffle:
            batches = [
                batches[i] for i in torch.randperm(len(batches), generator=generator).tolist()
            ]
        return iter(batches)


def padding_fraction(batches_of_lengths: Iterable[Sequence[int]]) -> float:
    """The share of padded slots: ``sum_batches (|b| max(b) - sum(b)) / sum_batches |b| max(b)``.

    Each batch is the list of its sequence lengths; a padded batch has ``|b| * max(b)`` slots.
    Compare random batches with :class:`BucketBatchSampler` batches (Chapter 1).
    """
    slots = 0
    tokens = 0
    for lengths in batches_of_lengths:
        if len(lengths) > 0:
            slots += len(lengths) * max(lengths)
            tokens += sum(lengths)
    if slots == 0:
        raise ValueError("padding_fraction needs at least one batch with a non-empty sequence")
    return (slots - tokens) / slots
