"""The memory of segment-level recurrence (Chapter 7, Transformer-XL and XLNet).

A vanilla Transformer language model reads a long text in independent segments: no token sees
past the start of its segment (context fragmentation). Transformer-XL caches, for every layer n,
the states h_tau^{n-1} that layer n read in the previous segment and lets the next segment attend
to them as well:

    h~_{tau+1}^{n-1} = [SG(h_tau^{n-1}) o h_{tau+1}^{n-1}],

where o joins along the positions and SG is the stop-gradient: the memory is read but never
trained through, so a segment costs the same to train whatever the length of the text. Keys and
values come from h~, queries from the new segment only. Since layer n's memory was itself built
from a memory, the longest dependency grows with the depth: O(N x L) for N layers and segments
of length L. The memory keeps the ``mem_len`` most recent states of each layer, as many segments
as memory allows.

Memories are tuples with one tensor ``[B, M, d_model]`` per layer, batch first (Hugging Face
keeps ``[M, B, d_model]``: transpose its ``mems`` with ``m.transpose(0, 1)``).
"""

from __future__ import annotations

import torch
from torch import Tensor

Mems = tuple[Tensor, ...]
"""One memory ``[B, M, d_model]`` per layer: the states each layer read, oldest first."""


def extended_context(memory: Tensor | None, hidden: Tensor) -> Tensor:
    """``h~ = [SG(memory) o hidden]`` along the positions: ``[B, M + Q, d]`` (Chapter 7)."""
    return hidden if memory is None else torch.cat([memory.detach(), hidden], dim=1)


def append_to_memory(memory: Tensor | None, states: Tensor, mem_len: int | None) -> Tensor:
    """The ``mem_len`` most recent of ``[memory o states]``, detached from the graph (all of
    them when ``mem_len`` is None) (Chapter 7).
    """
    joined = extended_context(memory, states.detach())
    return joined if mem_len is None else joined[:, max(0, joined.shape[1] - mem_len) :]


def memory_length(mems: Mems | None) -> int:
    """M, the number of positions each layer's memory holds (0 without memory) (Chapter 7)."""
    return 0 if mems is None else mems[0].shape[1]


def require_mems(mems: Mems | None, num_layers: int, batch_size: int, d_model: int) -> None:
    """Reject memories that are not one ``[B, M, d_model]`` tensor per layer, all of one length
    M, for this batch (Chapter 7).
    """
    if mems is None:
        return
    if not isinstance(mems, (tuple, list)) or len(mems) != num_layers:
        raise ValueError(
            f"mems must be the memories a previous call returned: one [B, M, d_model] tensor "
            f"per layer ({num_layers}), got {type(mems).__name__}"
            f"{f' of length {len(mems)}' if isinstance(mems, (tuple, list)) else ''}"
        )
    expected = (batch_size, mems[0].shape[1] if mems[0].dim() == 3 else -1, d_model)
    for layer, memory in enumerate(mems):
        if not isinstance(memory, Tensor) or tuple(memory.shape) != expected:
            shape = tuple(memory.shape) if isinstance(memory, Tensor) else type(memory).__name__
            raise ValueError(
                f"mems[{layer}] must be [B, M, d_model] = [{batch_size}, M, {d_model}] with the "
                f"same M in every layer (batch first: transpose Hugging Face's [M, B, d_model] "
                f"mems with .transpose(0, 1)), got {shape}"
            )
