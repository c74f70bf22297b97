"""SequenceTagger: a label per position, from the left context only unless bidirectional."""

from __future__ import annotations

import torch

from coursekit.models.recurrent.tagger import SequenceTagger


def test_shapes_and_what_each_position_can_see() -> None:
    torch.manual_seed(0)
    tokens = torch.randint(1, 10, (2, 6))
    for bidirectional in (False, True):
        tagger = SequenceTagger(10, 4, 5, 3, bidirectional=bidirectional).double()
        embedded = tagger.embedding(tokens).detach().requires_grad_()
        states, _ = tagger.recurrent(embedded, lengths=torch.tensor([6, 4]))
        logits = tagger.output(states)
        assert tagger(tokens, [6, 4]).shape == (2, 6, 3)
        (gradient,) = torch.autograd.grad(logits[0, 2].sum(), embedded)
        sees_the_future = bool(gradient[0, 3:].abs().sum() > 0)
        assert sees_the_future == bidirectional


def test_padding_does_not_change_the_real_positions() -> None:
    torch.manual_seed(0)
    tagger = SequenceTagger(10, 4, 5, 3, bidirectional=True).double()
    short = torch.tensor([[3, 4, 5]])
    padded = torch.tensor([[3, 4, 5, 0, 0]])
    torch.testing.assert_close(tagger(short, [3]), tagger(padded, [3])[:, :3])
