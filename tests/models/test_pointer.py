"""The pointer network of Chapter 4: its output distribution is the additive attention over the
input positions, padding gets probability 0, and it learns to sort short sequences.
"""

from __future__ import annotations

import random

import pytest
import torch
import torch.nn.functional as F

from coursekit.data import load
from coursekit.data.records import SequencePair
from coursekit.models.seq2seq.pointer import (
    IGNORE_POSITION,
    PointerNetwork,
    collate_pointer_pairs,
    pointer_loss,
    pointer_targets,
)


def test_pointer_targets_use_each_source_position_once() -> None:
    assert pointer_targets([5, 3, 5, 4], [3, 4, 5, 5]) == [1, 3, 0, 2]  # a stable sort
    assert pointer_targets([7, 8, 7], [7, 8, 7][::-1]) == [0, 1, 2]
    with pytest.raises(ValueError, match="can only output positions of its input"):
        pointer_targets([3, 4], [3, 3])


def test_collate_pads_sources_and_marks_missing_targets() -> None:
    pairs = [SequencePair([6, 4, 5], [4, 5, 6]), SequencePair([9], [9])]
    src, lengths, positions = collate_pointer_pairs(pairs)
    assert src.tolist() == [[6, 4, 5], [9, 0, 0]]
    assert lengths.tolist() == [3, 1]
    assert positions.tolist() == [[1, 2, 0], [0, IGNORE_POSITION, IGNORE_POSITION]]


def test_output_distribution_is_the_masked_attention_over_positions() -> None:
    torch.manual_seed(0)
    model = PointerNetwork(vocab_size=10, embedding_dim=4, hidden_size=6).double()
    src, lengths, positions = collate_pointer_pairs(
        [SequencePair([3, 5, 4, 7], [3, 4, 5, 7]), SequencePair([9, 8], [8, 9])]
    )
    log_probs = model(src, lengths, positions)
    assert log_probs.shape == (2, 4, 4)
    torch.testing.assert_close(log_probs.exp().sum(-1), torch.ones(2, 4, dtype=torch.float64))
    assert torch.all(log_probs[1, :, 2:] == -torch.inf)  # padding positions are never pointed at
    # u^i_j = v^T tanh(W_1 e_j + W_2 d_i) on the decoder states of the teacher-forced inputs
    embedded = model.embedding(src)
    encoder_states, final = model.encoder(embedded, lengths=lengths)
    chosen = torch.stack([embedded[b, positions[b, :-1].clamp(min=0)] for b in range(2)])
    inputs = torch.cat([model.start.expand(2, 1, -1), chosen], dim=1)
    decoder_states, _ = model.decoder(inputs, final)
    pointer = model.pointer
    u = torch.einsum(
        "h,bijh->bij",
        pointer.energy.weight[0],
        torch.tanh(
            (decoder_states @ pointer.query_projection.weight.T).unsqueeze(2)
            + (encoder_states @ pointer.key_projection.weight.T).unsqueeze(1)
        ),
    )
    u[1, :, 2:] = -torch.inf
    torch.testing.assert_close(log_probs, F.log_softmax(u, dim=-1))
    expected_loss = (
        -(log_probs[0, [0, 1, 2, 3], [0, 2, 1, 3]].sum() + log_probs[1, [0, 1], [1, 0]].sum()) / 6
    )
    torch.testing.assert_close(pointer_loss(log_probs, positions), expected_loss)


def test_learns_to_sort_short_sequences() -> None:
    torch.manual_seed(0)
    options = {"min_len": 3, "max_len": 6, "vocab_size": 13}
    train, test = load("sort", "train", n=2000, **options), load("sort", "test", n=200, **options)
    model = PointerNetwork(vocab_size=13, embedding_dim=16, hidden_size=32)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    rng = random.Random(0)
    for _ in range(250):
        src, lengths, positions = collate_pointer_pairs(rng.sample(train, 32))
        loss = pointer_loss(model(src, lengths, positions), positions)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    src, lengths, _ = collate_pointer_pairs(test)
    decoded = model.decode(src, lengths)
    sorted_right = [
        [pair.source[i] for i in chosen] == pair.target
        for chosen, pair in zip(decoded, test, strict=True)
    ]
    assert sum(sorted_right) / len(test) >= 0.8
