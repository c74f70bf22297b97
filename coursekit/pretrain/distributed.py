"""Pretraining on several processes with PyTorch's DistributedDataParallel (Chapter 6, BERT).

``torchrun --nproc_per_node N -m coursekit.pretrain bert ...`` starts N processes (ranks).
Each draws the same global batch of B pairs from the same seeded stream and keeps its shard,
the rows ``rank, rank + N, ...``; DistributedDataParallel (gloo on CPUs, NCCL on GPUs) averages
the ranks' gradients during the backward pass, so every rank takes the same optimizer step.

For that step to be the one-process step, each rank's loss divides its *sum* over its shard by
the count of the whole batch (the chosen tokens and the pairs of all ranks), and is multiplied
by N, since DDP divides the summed gradients by N:

    L_rank = N (sum_{t in M_rank} CE_t / |M| + sum_{b in B_rank} CE_b / |B|),
    (1/N) sum_rank grad L_rank = grad L.

The value each rank reports is L itself (the ranks' shares, summed with ``all_reduce``), so the
log of rank 0 is the log of a one-process run with the same global batch.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator

import torch
import torch.distributed as dist
from torch import Tensor, nn
from torch.nn.parallel import DistributedDataParallel

from coursekit.models.bert.heads import BertForPreTraining
from coursekit.pretrain.batches import FreshBatches, PretrainingBatch
from coursekit.pretrain.objective import pretraining_loss
from coursekit.train.loop import LossFunction

ROW_FIELDS = ("input_ids", "token_type_ids", "attention_mask", "mlm_labels", "nsp_labels")


def rank_and_world() -> tuple[int, int]:
    """This process's rank and the number of processes (0 and 1 outside ``torchrun``)."""
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def start_process_group() -> torch.device | None:
    """Join the process group that ``torchrun`` describes in the environment (``WORLD_SIZE``
    > 1), NCCL with one GPU per rank where CUDA is available, gloo otherwise; returns the
    rank's GPU, or None (one process, or CPUs)."""
    if int(os.environ.get("WORLD_SIZE", "1")) <= 1:
        return None
    if torch.cuda.is_available():
        device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
        torch.cuda.set_device(device)
        dist.init_process_group("nccl")
        return device
    dist.init_process_group("gloo")
    return None


def shard(batch: PretrainingBatch, rank: int, world: int) -> PretrainingBatch:
    """Rows ``rank::world`` of every ``[B, ...]`` field; the counts stay the whole batch's."""
    rows = {name: getattr(batch, name)[rank::world] for name in ROW_FIELDS}
    return dataclasses.replace(batch, **rows)


class ShardedBatches:
    """This rank's shards of a stream of fresh batches (pairs or texts) that every rank draws alike
    (same documents, same seed); its ``generator`` is the stream's, for ``fit`` to save."""

    def __init__(self, batches: FreshBatches, rank: int, world: int) -> None:
        if batches.batch_size % world:
            raise ValueError(
                f"the batch of {batches.batch_size} pairs does not split evenly over {world} "
                "processes: choose a --batch-size that --nproc_per_node divides"
            )
        self.batches, self.rank, self.world = batches, rank, world
        self.generator = batches.generator

    def __len__(self) -> int:
        return len(self.batches)

    def __iter__(self) -> Iterator[PretrainingBatch]:
        return (shard(batch, self.rank, self.world) for batch in self.batches)


class PretrainingObjective(nn.Module):
    """A pretraining loss (``pretraining_loss`` or ``masked_lm_loss``) as a module's forward,
    so that DDP sees the pass (and reduces the gradients of ``model``'s parameters in the
    backward pass)."""

    def __init__(self, model: BertForPreTraining, loss: LossFunction = pretraining_loss) -> None:
        super().__init__()
        self.model, self.loss = model, loss

    def forward(self, batch: PretrainingBatch) -> Tensor:
        return self.loss(self.model, batch)


class DistributedLoss:
    """The loss function ``fit`` calls on every rank: ``L_rank`` for the gradients, L for the
    value (module docstring). Evaluation batches are not sharded: each rank scores them whole.
    """

    def __init__(
        self,
        model: BertForPreTraining,
        device: torch.device | None,
        loss: LossFunction = pretraining_loss,
    ) -> None:
        self.world, self.loss = rank_and_world()[1], loss
        device_ids = None if device is None or device.type != "cuda" else [device]
        self.objective = DistributedDataParallel(
            PretrainingObjective(model, loss), device_ids=device_ids
        )

    def __call__(self, model: BertForPreTraining, batch: PretrainingBatch) -> Tensor:
        if not model.training:
            return self.loss(model, batch)
        share = self.objective(batch) * self.world
        total = share.detach() / self.world
        dist.all_reduce(total)
        return share + (total - share).detach()
