"""Show a model equal to its production twin: outputs, states and every gradient, side by side.

The test suite proves each of the course's models equal to the implementation it mirrors over
many configurations; a chapter shows one case to the reader. :func:`compare_with_twin` runs both
models on copies of the same inputs, backpropagates the same random combination of all their
results, and compares results, input gradients and the gradients of every parameter, matched by
name (through a table of Hugging Face's names where the twin names its parts otherwise, as for
Chapter 6's BERT). Chapter 3, LSTM and GRU, is the first to use it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import cast

import torch
from torch import Tensor, nn

from coursekit.models.twins import hf_name

Runner = Callable[..., object]


@dataclass(frozen=True)
class ParityReport:
    """Which groups agree within ``rtol``/``atol`` and the largest absolute difference of all."""

    outputs: bool
    gradients: bool
    same_parameter_names: bool
    largest_difference: float

    @property
    def equal(self) -> bool:
        """True when results, gradients and parameter names all agree."""
        return self.outputs and self.gradients and self.same_parameter_names


def flatten(result: object) -> list[Tensor]:
    """Every tensor of a nested result (``(output, (h_n, c_n))`` -> three tensors), in order."""
    if isinstance(result, Tensor):
        return [result]
    if isinstance(result, (tuple, list)):
        return [tensor for part in result for tensor in flatten(part)]
    raise TypeError(f"cannot compare a result of type {type(result).__name__}")


def results_and_gradients(
    run: Runner,
    module: nn.Module,
    inputs: Sequence[Tensor],
    seed: int = 1,
    hf_names: Mapping[str, str] | None = None,
) -> tuple[list[Tensor], dict[str, Tensor]]:
    """``run(module, *inputs)`` and the gradients of ``sum_r <w_r, r>`` (random ``w_r``) with
    respect to the floating-point inputs (``"input 0"``, ...) and every parameter (by name, or
    by its Hugging Face name through the table ``hf_names``)."""
    copies = [x.detach().clone().requires_grad_(x.is_floating_point()) for x in inputs]
    results = flatten(run(module, *copies))
    weights = torch.Generator().manual_seed(seed)
    score = cast(
        Tensor,
        sum(
            (result * torch.randn(result.shape, generator=weights, dtype=result.dtype)).sum()
            for result in results
        ),
    )
    sources = {f"input {i}": x for i, x in enumerate(copies) if x.requires_grad}
    sources.update(
        (name if hf_names is None else hf_name(name, hf_names), parameter)
        for name, parameter in module.named_parameters()
    )
    gradients = torch.autograd.grad(score, list(sources.values()), allow_unused=True)
    return results, {
        name: torch.zeros_like(source) if gradient is None else gradient
        for (name, source), gradient in zip(sources.items(), gradients, strict=True)
    }


def compare_with_twin(
    ours: nn.Module,
    twin: nn.Module,
    inputs: Sequence[Tensor],
    run_ours: Runner | None = None,
    run_twin: Runner | None = None,
    rtol: float = 1e-10,
    atol: float = 1e-12,
    hf_names: Mapping[str, str] | None = None,
) -> ParityReport:
    """Compare ``ours`` with ``twin`` on ``inputs`` (see the module docstring).

    ``run_*(module, *inputs)`` call each model (default: ``module(*inputs)``); results are
    compared in order. ``hf_names`` maps the parts of our parameter names to the twin's. The default tolerances suit float64, where two correct implementations
    agree to about 1e-15.
    """
    our_results, our_gradients = results_and_gradients(
        run_ours or _call, ours, inputs, hf_names=hf_names
    )
    twin_results, twin_gradients = results_and_gradients(run_twin or _call, twin, inputs)
    pairs = list(zip(our_results, twin_results, strict=True))
    names_agree = our_gradients.keys() == twin_gradients.keys()
    gradient_pairs = [(our_gradients[n], twin_gradients[n]) for n in twin_gradients if names_agree]

    def close(group: list[tuple[Tensor, Tensor]]) -> bool:
        return all(torch.allclose(a, b, rtol=rtol, atol=atol) for a, b in group)

    differences = [float((a - b).detach().abs().max()) for a, b in pairs + gradient_pairs]
    return ParityReport(
        outputs=close(pairs),
        gradients=names_agree and close(gradient_pairs),
        same_parameter_names=names_agree,
        largest_difference=max(differences, default=0.0),
    )


def _call(module: nn.Module, *inputs: Tensor) -> object:
    return module(*inputs)
