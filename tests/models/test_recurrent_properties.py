"""Properties over random sizes and configurations: parity with torch.nn, and a padded batch
computing exactly what each of its sequences computes alone.
"""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from recurrent_twins import (  # noqa: F401 (one_torch_thread is an autouse fixture)
    KINDS,
    LENGTH_MODES,
    Case,
    check_parity,
    make_twins,
    one_torch_thread,
    state_tensors,
)

lengths_strategy = st.lists(st.integers(1, 7), min_size=1, max_size=4).map(tuple)


@settings(max_examples=25, deadline=None)
@given(
    kind=st.sampled_from(list(KINDS)),
    lengths=lengths_strategy,
    extra_padding=st.integers(0, 2),
    length_mode=st.sampled_from(LENGTH_MODES),
    input_size=st.integers(1, 5),
    hidden_size=st.integers(1, 5),
    num_layers=st.integers(1, 3),
    bidirectional=st.booleans(),
    batch_first=st.booleans(),
    with_initial_state=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_random_configurations_match_torch(
    kind: str,
    lengths: tuple[int, ...],
    extra_padding: int,
    length_mode: str,
    input_size: int,
    hidden_size: int,
    num_layers: int,
    bidirectional: bool,
    batch_first: bool,
    with_initial_state: bool,
    seed: int,
) -> None:
    check_parity(
        Case(
            kind,
            num_layers=num_layers,
            bidirectional=bidirectional,
            batch_first=batch_first,
            with_initial_state=with_initial_state,
            length_mode=length_mode,
            lengths=lengths,
            extra_padding=extra_padding,
            input_size=input_size,
            hidden_size=hidden_size,
            seed=seed,
        )
    )


@settings(max_examples=15, deadline=None)
@given(
    kind=st.sampled_from(list(KINDS)),
    lengths=lengths_strategy,
    extra_padding=st.integers(0, 2),
    num_layers=st.integers(1, 2),
    bidirectional=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_a_padded_batch_computes_what_each_sequence_computes_alone(
    kind: str,
    lengths: tuple[int, ...],
    extra_padding: int,
    num_layers: int,
    bidirectional: bool,
    seed: int,
) -> None:
    network, _ = make_twins(
        kind, 3, 4, seed=seed, num_layers=num_layers, bidirectional=bidirectional
    )
    generator = torch.Generator().manual_seed(seed)
    total_length = max(lengths) + extra_padding
    x = torch.randn(total_length, len(lengths), 3, generator=generator, dtype=torch.float64)
    output, state = network(x, lengths=list(lengths))
    for b, length in enumerate(lengths):
        alone_output, alone_state = network(x[:length, b])
        torch.testing.assert_close(output[:length, b], alone_output)
        assert not output[length:, b].any(), "padded positions must output zeros"
        for batch_part, alone_part in zip(
            state_tensors(state), state_tensors(alone_state), strict=True
        ):
            torch.testing.assert_close(batch_part[:, b], alone_part)
