"""Helpers of the Transformer parity tests: float64 torch modules with random weights and
coursekit's copies of them, and a comparison of outputs and of every gradient.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping, Sequence

import pytest
import torch
from recurrent_twins import randomize, weighted_sum
from torch import Tensor, nn

from coursekit.models.twins import hf_name


def torch_twin(module: nn.Module, seed: int = 0) -> nn.Module:
    """``module`` in float64 with every parameter (biases too, which torch starts at zero)
    drawn from U(-0.7, 0.7), so that a mixed-up parameter changes the results.
    """
    module = module.double()
    randomize(module, seed)
    return module


def check_outputs_and_gradients(
    ours: nn.Module,
    theirs: nn.Module,
    our_outputs: Sequence[Tensor | None],
    their_outputs: Sequence[Tensor | None],
    inputs: Sequence[Tensor],
    seed: int = 0,
    hf_names: Mapping[str, str] | None = None,
) -> None:
    """Each output agrees (float64 default tolerances), and so do the gradients of a random
    weighted sum of the outputs with respect to ``inputs`` and to every parameter, matched by
    name (ours renamed through ``hf_names``, a table of :func:`hf_name`, when given).
    """
    assert len(our_outputs) == len(their_outputs)
    for our_output, their_output in zip(our_outputs, their_outputs, strict=True):
        if their_output is None:
            assert our_output is None
        else:
            torch.testing.assert_close(our_output, their_output)
    our_parameters = {
        name if hf_names is None else hf_name(name, hf_names): parameter
        for name, parameter in ours.named_parameters()
    }
    their_parameters = dict(theirs.named_parameters())
    assert sorted(our_parameters) == sorted(their_parameters)
    names = sorted(their_parameters)
    differentiable = [output for output in their_outputs if output is not None]
    their_loss = weighted_sum(differentiable, seed)
    our_loss = weighted_sum([output for output in our_outputs if output is not None], seed)
    their_gradients = torch.autograd.grad(
        their_loss, [*inputs, *(their_parameters[name] for name in names)], allow_unused=True
    )
    our_gradients = torch.autograd.grad(
        our_loss, [*inputs, *(our_parameters[name] for name in names)], allow_unused=True
    )
    labels = [f"input {index}" for index in range(len(inputs))] + names
    for label, our_gradient, their_gradient in zip(
        labels, our_gradients, their_gradients, strict=True
    ):
        if their_gradient is None:
            assert our_gradient is None or not our_gradient.any(), label
        else:
            torch.testing.assert_close(
                our_gradient, their_gradient, msg=lambda m, n=label: f"{n}: {m}"
            )


@pytest.fixture(autouse=True)
def quiet_torch_mask_warnings() -> Iterator[None]:
    """torch warns when a boolean and a float mask are mixed, and when a TransformerEncoder
    cannot use nested tensors; the tests mix masks on purpose.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*Support for mismatched.*")
        warnings.filterwarnings("ignore", message=".*enable_nested_tensor.*")
        warnings.filterwarnings("ignore", message=".*nested tensors is in prototype.*")
        yield
