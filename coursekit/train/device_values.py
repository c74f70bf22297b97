"""Reading values off the device in one transfer (Chapter 1, Text as sequences).

Every ``loss.item()`` or ``float(tensor)`` makes the host wait until the device has finished all
the work queued before it: called at every training step it keeps a GPU idle between steps.
The training loop therefore keeps its per-step losses and gradient norms on the device, as
0-dimensional tensors, and reads a whole list of them at once every few steps with
:func:`to_host`.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor


def to_host(values: Sequence[Tensor | float]) -> list[float]:
    """The numbers of ``values`` as Python numbers, in order; the tensors among them (one element
    each, on one device) are stacked and read with a single ``tolist()``, one synchronisation.

    Stacking promotes to the widest dtype, so a float32 value is read exactly as ``.item()``
    reads it; integer tensors give ints.
    """
    tensors = [value.detach().reshape(()) for value in values if isinstance(value, Tensor)]
    read = iter(torch.stack(tensors).tolist() if tensors else [])
    return [next(read) if isinstance(value, Tensor) else value for value in values]
