"""coursekit's RNN, LSTM and GRU equal torch.nn.RNN/LSTM/GRU in float64: outputs, final states
and the gradients of every parameter, of the input and of the initial state, for every
combination of depth, direction, layout, bias, initial state and variable lengths.
"""

from __future__ import annotations

import pytest
import torch
from recurrent_twins import (  # noqa: F401 (one_torch_thread is an autouse fixture)
    KINDS,
    LENGTH_MODES,
    Case,
    check_parity,
    make_twins,
    one_torch_thread,
)
from torch.nn.utils.rnn import pack_sequence


@pytest.mark.parametrize("length_mode", LENGTH_MODES)
@pytest.mark.parametrize("with_initial_state", [False, True], ids=["zero_state", "given_state"])
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("batch_first", [False, True], ids=["time_first", "batch_first"])
@pytest.mark.parametrize("bidirectional", [False, True], ids=["forward", "bidirectional"])
@pytest.mark.parametrize("num_layers", [1, 2, 3])
@pytest.mark.parametrize("kind", list(KINDS))
def test_network_matches_torch(
    kind: str,
    num_layers: int,
    bidirectional: bool,
    batch_first: bool,
    bias: bool,
    with_initial_state: bool,
    length_mode: str,
) -> None:
    check_parity(
        Case(
            kind,
            num_layers=num_layers,
            bidirectional=bidirectional,
            batch_first=batch_first,
            bias=bias,
            with_initial_state=with_initial_state,
            length_mode=length_mode,
        )
    )


@pytest.mark.parametrize("kind", list(KINDS))
def test_long_sequences_and_a_wider_batch_match_torch(kind: str) -> None:
    lengths = (30, 1, 17, 30, 8, 2, 29)
    for length_mode in LENGTH_MODES:
        check_parity(
            Case(
                kind,
                num_layers=2,
                bidirectional=True,
                with_initial_state=True,
                length_mode=length_mode,
                lengths=lengths,
                input_size=6,
                hidden_size=5,
            )
        )


@pytest.mark.parametrize("kind", list(KINDS))
def test_sorted_packed_sequence_without_permutation_matches_torch(kind: str) -> None:
    ours, theirs = make_twins(kind, 2, 3, bidirectional=True)
    sequences = [torch.randn(n, 2, dtype=torch.float64) for n in (4, 4, 2)]
    packed = pack_sequence(sequences, enforce_sorted=True)
    assert packed.sorted_indices is None
    (our_output, our_state), (their_output, their_state) = ours(packed), theirs(packed)
    assert our_output.sorted_indices is None and our_output.unsorted_indices is None
    assert torch.equal(our_output.batch_sizes, their_output.batch_sizes)
    torch.testing.assert_close(our_output.data, their_output.data)
    torch.testing.assert_close(our_state, their_state)


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("with_initial_state", [False, True], ids=["zero_state", "given_state"])
def test_one_unbatched_sequence_matches_torch(kind: str, with_initial_state: bool) -> None:
    ours, theirs = make_twins(kind, 3, 4, num_layers=2, bidirectional=True)
    x = torch.randn(6, 3, dtype=torch.float64)
    hx = None
    if with_initial_state:
        hx = torch.randn(4, 4, dtype=torch.float64)
        hx = (hx, torch.randn(4, 4, dtype=torch.float64)) if kind == "lstm" else hx
    (our_output, our_state), (their_output, their_state) = ours(x, hx), theirs(x, hx)
    assert our_output.shape == (6, 8)
    torch.testing.assert_close(our_output, their_output)
    torch.testing.assert_close(our_state, their_state)


def test_lengths_as_a_python_list_equal_lengths_as_a_tensor() -> None:
    ours, _ = make_twins("gru", 3, 4, batch_first=True)
    x = torch.randn(3, 5, 3, dtype=torch.float64)
    from_list = ours(x, lengths=[5, 2, 3])
    from_tensor = ours(x, lengths=torch.tensor([5, 2, 3]))
    torch.testing.assert_close(from_list, from_tensor)


def test_state_dict_loads_straight_from_torch() -> None:
    ours, theirs = make_twins("lstm", 3, 4, num_layers=2, bidirectional=True)
    ours.reset_parameters()
    assert not torch.equal(ours.weight_hh_l1_reverse, theirs.weight_hh_l1_reverse)
    ours.load_state_dict(theirs.state_dict())
    assert list(ours.state_dict()) == list(theirs.state_dict())
    x = torch.randn(5, 2, 3, dtype=torch.float64)
    torch.testing.assert_close(ours(x), theirs(x))
