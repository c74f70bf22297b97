"""Twins for the recurrent parity tests: a coursekit network and its torch.nn twin with the same
float64 weights, the same inputs for both, and a comparison of results and gradients.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence

from coursekit.models import GRU, LSTM, RNN

# kind -> (coursekit class, extra constructor arguments)
KINDS: dict[str, tuple[type[nn.Module], dict[str, str]]] = {
    "rnn_tanh": (RNN, {"nonlinearity": "tanh"}),
    "rnn_relu": (RNN, {"nonlinearity": "relu"}),
    "lstm": (LSTM, {}),
    "gru": (GRU, {}),
}
LENGTH_MODES = ("full", "padded", "packed")


def make_twins(
    kind: str, input_size: int, hidden_size: int, seed: int = 0, **config: object
) -> tuple[nn.Module, nn.Module]:
    """``(ours, theirs)``: a float64 ``torch.nn`` network and coursekit's copy of it."""
    ours_class, extra = KINDS[kind]
    theirs = ours_class.torch_class(input_size, hidden_size, **extra, **config).double()
    randomize(theirs, seed)
    return ours_class.from_torch(theirs), theirs


def randomize(module: nn.Module, seed: int) -> None:
    """Draw every parameter of ``module`` from U(-0.7, 0.7) with a generator seeded by ``seed``."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.uniform_(-0.7, 0.7, generator=generator)


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread() -> Iterator[None]:
    """Run the tests of a module on one thread: at these tiny sizes the synchronisation of a
    thread pool costs more than it saves, and far more on a busy machine.
    """
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def weighted_sum(tensors: list[Tensor], seed: int) -> Tensor:
    """``sum_k <w_k, tensors[k]>`` with fixed random weights ``w_k``: unlike a plain sum, every
    entry gets its own upstream gradient, so a mixed-up entry changes the gradients.
    """
    generator = torch.Generator().manual_seed(seed)
    total = torch.zeros((), dtype=torch.float64)
    for tensor in tensors:
        weights = torch.randn(tensor.shape, generator=generator, dtype=tensor.dtype)
        total = total + (weights * tensor).sum()
    return total


def state_tensors(state: Tensor | tuple[Tensor, ...]) -> list[Tensor]:
    """The tensors of a final state: ``[h_n]`` or ``[h_n, c_n]``."""
    return [state] if isinstance(state, Tensor) else list(state)


@dataclass
class Case:
    """One configuration of a parity check."""

    kind: str
    num_layers: int = 1
    bidirectional: bool = False
    batch_first: bool = False
    bias: bool = True
    with_initial_state: bool = False
    length_mode: str = "full"
    lengths: tuple[int, ...] = (3, 5, 1)
    input_size: int = 4
    hidden_size: int = 3
    seed: int = 0
    extra_padding: int = 0  # padded steps after the longest sequence

    @property
    def total_length(self) -> int:
        return max(self.lengths) + self.extra_padding

    @property
    def batch_size(self) -> int:
        return len(self.lengths)


@dataclass
class Result:
    """What one twin returned: the output (padded, or the data of a PackedSequence), the final
    state tensors and, for PackedSequence output, its batch sizes and index permutations.
    """

    output: Tensor
    state: list[Tensor]
    packing: tuple[Tensor | None, ...] = ()


def run_side(module: nn.Module, case: Case, x: Tensor, hx: list[Tensor], reference: bool) -> Result:
    """Run one twin on ``x`` as ``case`` prescribes. For padded input the reference is given
    the PackedSequence built by ``pack_padded_sequence(..., enforce_sorted=False)`` and its
    output is padded back, so both sides are compared as padded tensors.
    """
    initial = None if not hx else hx[0] if len(hx) == 1 else tuple(hx)
    lengths = torch.tensor(case.lengths)
    packed = case.length_mode == "packed" or (case.length_mode == "padded" and reference)
    if packed:
        sequence = pack_padded_sequence(
            x, lengths, batch_first=case.batch_first, enforce_sorted=False
        )
        output, state = module(sequence, initial)
        assert isinstance(output, PackedSequence)
        if case.length_mode == "packed":
            packing = (output.batch_sizes, output.sorted_indices, output.unsorted_indices)
            return Result(output.data, state_tensors(state), packing)
        output, _ = pad_packed_sequence(
            output, batch_first=case.batch_first, total_length=case.total_length
        )
        return Result(output, state_tensors(state))
    if case.length_mode == "padded":
        output, state = module(x, initial, lengths=lengths)
    else:
        output, state = module(x, initial)
    return Result(output, state_tensors(state))


def check_parity(case: Case) -> None:
    """Outputs, final states and the gradients of every parameter, of the input and of the
    initial state agree between coursekit and torch (float64 default tolerances).
    """
    ours, theirs = make_twins(
        case.kind,
        case.input_size,
        case.hidden_size,
        seed=case.seed,
        num_layers=case.num_layers,
        bidirectional=case.bidirectional,
        batch_first=case.batch_first,
        bias=case.bias,
    )
    generator = torch.Generator().manual_seed(case.seed + 1)
    shape = (case.total_length, case.batch_size, case.input_size)
    if case.batch_first:
        shape = (case.batch_size, case.total_length, case.input_size)
    x = torch.randn(shape, generator=generator, dtype=torch.float64)
    state_count = 2 if case.kind == "lstm" else 1
    directions = 2 if case.bidirectional else 1
    state_shape = (case.num_layers * directions, case.batch_size, case.hidden_size)
    hx = [
        torch.randn(state_shape, generator=generator, dtype=torch.float64)
        for _ in range(state_count if case.with_initial_state else 0)
    ]
    leaves, results = {}, {}
    for name, module in (("ours", ours), ("theirs", theirs)):
        x_leaf = x.clone().requires_grad_()
        hx_leaves = [h.clone().requires_grad_() for h in hx]
        result = run_side(module, case, x_leaf, hx_leaves, reference=name == "theirs")
        weighted_sum([result.output, *result.state], seed=case.seed + 2).backward()
        leaves[name] = (x_leaf, hx_leaves)
        results[name] = result
    ours_result, theirs_result = results["ours"], results["theirs"]
    torch.testing.assert_close(ours_result.output, theirs_result.output)
    for our_state, their_state in zip(ours_result.state, theirs_result.state, strict=True):
        torch.testing.assert_close(our_state, their_state)
    for our_index, their_index in zip(ours_result.packing, theirs_result.packing, strict=True):
        assert torch.equal(our_index, their_index)
    their_parameters = dict(theirs.named_parameters())
    assert set(dict(ours.named_parameters())) == set(their_parameters)
    for name, parameter in ours.named_parameters():
        torch.testing.assert_close(parameter.grad, their_parameters[name].grad, msg=name)
    torch.testing.assert_close(leaves["ours"][0].grad, leaves["theirs"][0].grad)
    for our_h, their_h in zip(leaves["ours"][1], leaves["theirs"][1], strict=True):
        torch.testing.assert_close(our_h.grad, their_h.grad)
