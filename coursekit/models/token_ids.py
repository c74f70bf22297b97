"""What every model of the course requires of the token ids it reads (Chapters 2 to 7).

A model that starts with an embedding reads a batch of token ids ``[B, T]``: integers, one row
per sequence, each id a row of the embedding table ``E``, so that ``e_t = E[x_t]``. Each kind of
mistake gets its own fix: floating-point ids are converted with ``.long()``, a single sequence
gets a batch dimension with ``.unsqueeze(0)``, an id outside the vocabulary comes from another
vocabulary.
"""

from __future__ import annotations

import torch
from torch import Tensor

ID_DTYPES = (torch.long, torch.int)


def require_token_ids(tokens: Tensor, vocab_size: int) -> None:
    """Reject anything but a ``[B, T]`` integer tensor of ids in ``0 .. vocab_size - 1``, with
    the fix of the case at hand (Chapters 2 to 7)."""
    if tokens.dtype not in ID_DTYPES:
        raise ValueError(
            f"tokens must be integer ids (torch.long) that index the embedding table, got dtype "
            f"{tokens.dtype} (shape {tuple(tokens.shape)}); convert them with tokens.long()"
        )
    if tokens.dim() == 1:
        raise ValueError(
            f"tokens must be a [B, T] tensor of ids (batch first), got one sequence of shape "
            f"{tuple(tokens.shape)}; add a batch dimension with tokens.unsqueeze(0)"
        )
    if tokens.dim() != 2:
        raise ValueError(
            f"tokens must be a [B, T] tensor of ids (batch first), one row per sequence, got "
            f"shape {tuple(tokens.shape)}"
        )
    if tokens.numel() and not 0 <= int(tokens.min()) <= int(tokens.max()) < vocab_size:
        raise ValueError(
            f"token ids must lie in 0 .. {vocab_size - 1} (the vocabulary size is {vocab_size}), "
            f"got ids from {int(tokens.min())} to {int(tokens.max())}: were they made with "
            "another vocabulary?"
        )
