"""What the parity tests of Chapter 7 share, in every lane (the main suite, the legacy lane and
``make test-colab``): reading consecutive segments with memories on both sides, a random loss
over several outputs, and the comparison of outputs, memories and every parameter's gradient with
the Hugging Face twin's, paired by name through the model's name table.

``tests/`` is on ``sys.path`` because ``tests/conftest.py`` lives there, so test modules of
any lane import this one as ``hf_parity``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import torch
from torch import Tensor, nn

from coursekit.models.twins import paired_parameters


def random_projection(outputs: Sequence[Tensor], seed: int = 0) -> Tensor:
    """``sum_k <w_k, outputs[k]>`` with fixed random w_k: every entry of every output gets its
    own upstream gradient, so a mixed-up entry changes the gradients.
    """
    generator = torch.Generator().manual_seed(seed)
    terms = [(torch.randn(o.shape, generator=generator, dtype=o.dtype) * o).sum() for o in outputs]
    return torch.stack(terms).sum()


def assert_same_gradients(
    ours: nn.Module,
    theirs: nn.Module,
    names: Mapping[str, str],
    our_loss: Tensor,
    their_loss: Tensor,
) -> None:
    """The gradient of ``our_loss`` with respect to every parameter of ``ours`` equals that of
    ``their_loss`` with respect to its twin (float64 tolerances); every parameter of either model
    has a twin (:func:`paired_parameters` checks it). A parameter the loss does not reach must
    get no gradient on either side.
    """
    pairs = paired_parameters(ours, theirs, names)
    our_gradients = torch.autograd.grad(our_loss, [p[1] for p in pairs], allow_unused=True)
    their_gradients = torch.autograd.grad(their_loss, [p[2] for p in pairs], allow_unused=True)
    for (name, _, twin), our_gradient, their_gradient in zip(
        pairs, our_gradients, their_gradients, strict=True
    ):
        if their_gradient is None or our_gradient is None:
            for gradient in (our_gradient, their_gradient):
                assert gradient is None or not gradient.any(), f"{name}: one-sided gradient"
            continue
        torch.testing.assert_close(
            our_gradient.reshape(twin.shape), their_gradient, msg=lambda m, n=name: f"{n}: {m}"
        )


def run_segments(
    model: nn.Module, segments: list[dict[str, Any]], mems: Any, hf_layout: bool
) -> list[tuple[Tensor, list[Tensor]]]:
    """The first output and the memories of each segment (keyword arguments of ``model``), each
    segment reading the memories the one before returned, starting from ``mems``; memories in
    our batch-first layout (Hugging Face's ``[M, B, d]`` transposed when ``hf_layout``).
    """
    results = []
    for inputs in segments:
        output = model(**inputs, mems=mems)
        mems = output.mems
        results.append((output[0], [m.transpose(0, 1) if hf_layout else m for m in mems]))
    return results


def assert_same_segments(
    ours: nn.Module,
    theirs: nn.Module,
    names: Mapping[str, str],
    segments: list[dict[str, Any]],
    our_start: Any = None,
    their_start: Any = None,
) -> None:
    """Both models read ``segments`` one after the other from their starting memories: same
    outputs and memories in every segment, and same gradients of every parameter for a random
    loss over all the outputs.
    """
    our_results = run_segments(ours, segments, our_start, hf_layout=False)
    their_results = run_segments(theirs, segments, their_start, hf_layout=True)
    for (our_output, our_mems), (their_output, their_mems) in zip(
        our_results, their_results, strict=True
    ):
        torch.testing.assert_close(our_output, their_output)
        assert len(our_mems) == len(their_mems)
        for our_memory, their_memory in zip(our_mems, their_mems, strict=True):
            torch.testing.assert_close(our_memory, their_memory)
    assert_same_gradients(
        ours,
        theirs,
        names,
        random_projection([output for output, _ in our_results]),
        random_projection([output for output, _ in their_results]),
    )
