"""The encoder-decoder of Chapter 4: padding never changes a result, the bridge hands the
thought vector over, teacher forcing and the search step agree with each other, the reversed
source is reversed within its length and the attention reported in the original order.
"""

from __future__ import annotations

import pytest
import torch
from torch import Tensor

from coursekit.generate import greedy_decode
from coursekit.models.seq2seq.attention import AdditiveAttention, DotAttention, GeneralAttention
from coursekit.models.seq2seq.decoders import BahdanauDecoder, LuongDecoder
from coursekit.models.seq2seq.encoder_decoder import Decoder, Encoder
from coursekit.models.seq2seq.local_attention import LocalAttention
from coursekit.models.seq2seq.model import Seq2Seq, reverse_within_lengths

VOCAB, EMBEDDING, HIDDEN, BOS, EOS, PAD = 12, 6, 8, 1, 2, 0
DECODERS = ["plain", "bahdanau", "luong"]


def make_model(
    decoder: str,
    cell: str = "gru",
    bidirectional: bool = True,
    num_layers: int = 2,
    reverse_source: bool = False,
    seed: int = 0,
) -> Seq2Seq:
    torch.manual_seed(seed)
    encoder = Encoder(VOCAB, EMBEDDING, HIDDEN, cell, num_layers, bidirectional)
    context = encoder.output_size
    if decoder == "plain":
        built = Decoder(VOCAB, EMBEDDING, HIDDEN, cell, num_layers)
    elif decoder == "bahdanau":
        attention = AdditiveAttention(HIDDEN, context, 5)
        built = BahdanauDecoder(VOCAB, EMBEDDING, HIDDEN, context, attention, cell, num_layers)
    else:
        attention = GeneralAttention(HIDDEN, context)
        built = LuongDecoder(VOCAB, EMBEDDING, HIDDEN, context, attention, cell, num_layers)
    return Seq2Seq(encoder, built, reverse_source=reverse_source).double().eval()


def padded_batch(lengths: list[int], seed: int = 0) -> tuple[Tensor, Tensor]:
    generator = torch.Generator().manual_seed(seed)
    tokens = torch.randint(3, VOCAB, (len(lengths), max(lengths)), generator=generator)
    for row, length in enumerate(lengths):
        tokens[row, length:] = PAD
    return tokens, torch.tensor(lengths)


@pytest.mark.parametrize("decoder", DECODERS)
@pytest.mark.parametrize("cell", ["gru", "lstm"])
def test_padding_changes_no_result(decoder: str, cell: str) -> None:
    model = make_model(decoder, cell, reverse_source=True)
    src, src_lengths = padded_batch([5, 2, 4, 3])
    tgt_in, tgt_lengths = padded_batch([3, 4, 1, 2], seed=1)
    logits, attention = model(src, src_lengths, tgt_in)
    for row in range(4):
        n, m = int(src_lengths[row]), int(tgt_lengths[row])
        alone_logits, alone_attention = model(
            src[row : row + 1, :n], src_lengths[row : row + 1], tgt_in[row : row + 1, :m]
        )
        torch.testing.assert_close(logits[row, :m], alone_logits[0])
        if decoder == "plain":
            assert attention is None and alone_attention is None
        else:
            torch.testing.assert_close(attention[row, :m, :n], alone_attention[0])
            assert torch.all(attention[row, :, n:] == 0)


@pytest.mark.parametrize("cell", ["gru", "lstm"])
def test_a_unidirectional_encoder_hands_its_final_state_to_the_decoder(cell: str) -> None:
    model = make_model("plain", cell, bidirectional=False)
    src, lengths = padded_batch([4, 2])
    state, memory = model.encode(src, lengths)
    _, final = model.encoder(src, lengths)
    for ours, theirs in zip(
        state.hidden if cell == "lstm" else (state.hidden,),
        final if cell == "lstm" else (final,),
        strict=True,
    ):
        torch.testing.assert_close(ours, theirs.transpose(0, 1))  # [B, L, H] = the thought vector
    assert len(list(model.bridge.parameters())) == 0


def test_a_bidirectional_encoder_is_bridged_by_tanh_of_a_linear_map() -> None:
    model = make_model("luong", "lstm", bidirectional=True, num_layers=2)
    src, lengths = padded_batch([4, 2, 3])
    state, _ = model.encode(src, lengths)
    _, final = model.encoder(src, lengths)
    for ours, part, projection in zip(state.hidden, final, model.bridge.projections, strict=True):
        per_layer = part.view(2, 2, 3, HIDDEN)  # [layer, direction, B, H]
        both = torch.cat([per_layer[:, 0], per_layer[:, 1]], dim=-1).transpose(0, 1)
        torch.testing.assert_close(ours, torch.tanh(projection(both)))


@pytest.mark.parametrize("decoder", DECODERS)
def test_the_search_step_gives_the_log_softmax_of_the_teacher_forced_logits(decoder: str) -> None:
    model = make_model(decoder, "lstm")
    src, src_lengths = padded_batch([5, 3])
    tgt_in, _ = padded_batch([4, 4], seed=2)
    logits, attention = model(src, src_lengths, tgt_in)
    state = model.encode(src, src_lengths)
    for t in range(4):
        log_probs, state = model.search_step(tgt_in[:, t], state)
        torch.testing.assert_close(log_probs, torch.log_softmax(logits[:, t], -1))
    step_weights = model.decoder.step(tgt_in[:, 0], *model.encode(src, src_lengths))[2]
    if decoder == "plain":
        assert step_weights is None
    else:
        torch.testing.assert_close(step_weights, attention[:, 0])


@pytest.mark.parametrize("decoder", DECODERS)
def test_without_teacher_forcing_the_decoder_reads_its_greedy_output(decoder: str) -> None:
    model = make_model(decoder, "gru", seed=3)
    src, src_lengths = padded_batch([6, 3, 5])
    steps = 5
    logits, _ = model(src, src_lengths, torch.full((3, steps), BOS), teacher_forcing=0.0)
    own_guesses = logits.argmax(-1).tolist()
    greedy = greedy_decode(
        model.search_step, model.encode(src, src_lengths), torch.full((3,), BOS), EOS, steps
    )
    for guesses, output in zip(own_guesses, greedy, strict=True):
        assert guesses[: len(output.tokens)] == output.tokens


def test_the_teacher_forcing_ratio_applies_in_training_and_full_forcing_in_eval() -> None:
    model = make_model("luong", seed=4)
    model.teacher_forcing = 0.0
    src, src_lengths = padded_batch([4, 4])
    tgt_in, _ = padded_batch([5, 5], seed=5)
    forced = model(src, src_lengths, tgt_in).logits  # eval mode: the true previous tokens
    own = model(src, src_lengths, tgt_in, teacher_forcing=0.0).logits
    torch.testing.assert_close(forced, model(src, src_lengths, tgt_in, teacher_forcing=1.0).logits)
    model.train()  # no dropout in this model: only the inputs differ
    torch.testing.assert_close(model(src, src_lengths, tgt_in).logits, own)
    torch.manual_seed(0)
    mixed = model(src, src_lengths, tgt_in, teacher_forcing=0.5).logits
    assert not torch.allclose(mixed, forced) and not torch.allclose(mixed, own)
    torch.testing.assert_close(mixed[:, 0], forced[:, 0])  # step 0 always reads <sos>


@pytest.mark.parametrize("decoder", DECODERS)
def test_reverse_source_reverses_each_source_within_its_length(decoder: str) -> None:
    reversed_model = make_model(decoder, reverse_source=True)
    plain_model = make_model(decoder, reverse_source=False)
    src, src_lengths = padded_batch([5, 2, 4])
    tgt_in, _ = padded_batch([3, 3, 3], seed=6)
    by_hand = torch.stack(
        [torch.cat([row[:n].flip(0), row[n:]]) for row, n in zip(src, src_lengths, strict=True)]
    )
    assert torch.equal(reverse_within_lengths(src, src_lengths), by_hand)
    assert torch.equal(reverse_within_lengths(by_hand, src_lengths), src)
    ours = reversed_model(src, src_lengths, tgt_in)
    theirs = plain_model(by_hand, src_lengths, tgt_in)
    torch.testing.assert_close(ours.logits, theirs.logits)
    if decoder != "plain":  # reported over the source in its original order
        expected = reverse_within_lengths(theirs.attention.transpose(1, 2), src_lengths).transpose(
            1, 2
        )
        torch.testing.assert_close(ours.attention, expected)


def test_monotonic_local_attention_in_a_decoder_follows_the_target_step() -> None:
    torch.manual_seed(0)
    encoder = Encoder(VOCAB, EMBEDDING, HIDDEN)
    attention = LocalAttention(DotAttention(), half_width=1)
    model = Seq2Seq(encoder, LuongDecoder(VOCAB, EMBEDDING, HIDDEN, HIDDEN, attention)).eval()
    src, src_lengths = padded_batch([6, 4])
    tgt_in, _ = padded_batch([5, 5], seed=7)
    attention_weights = model(src, src_lengths, tgt_in).attention
    for row, length in enumerate([6, 4]):
        for t in range(5):
            centre = min(t, length - 1)
            inside = [s for s in range(6) if abs(s - centre) <= 1 and s < length]
            assert set(attention_weights[row, t].nonzero().flatten().tolist()) == set(inside)


def test_translate_is_beam_search_and_restores_the_training_mode() -> None:
    model = make_model("bahdanau", seed=8).train()
    src, src_lengths = padded_batch([5, 3])
    results = model.translate(src, src_lengths, BOS, EOS, max_len=6, beam_size=3, n_best=2)
    assert model.training
    assert [len(hypotheses) for hypotheses in results] == [2, 2]
    greedy = model.translate(src, src_lengths, BOS, EOS, max_len=6)
    expected = greedy_decode(
        model.search_step, model.eval().encode(src, src_lengths), torch.full((2,), BOS), EOS, 6
    )
    assert [best.tokens for (best,) in greedy] == [output.tokens for output in expected]


def test_mismatched_parts_and_arguments_fail_clearly() -> None:
    encoder = Encoder(VOCAB, EMBEDDING, HIDDEN, "gru", num_layers=2)
    with pytest.raises(ValueError, match="same cell and number of layers"):
        Seq2Seq(encoder, Decoder(VOCAB, EMBEDDING, HIDDEN, "lstm", num_layers=2))
    with pytest.raises(ValueError, match="same cell and number of layers"):
        Seq2Seq(encoder, Decoder(VOCAB, EMBEDDING, HIDDEN, "gru", num_layers=1))
    with pytest.raises(ValueError, match="teacher_forcing is a probability"):
        Seq2Seq(
            encoder, Decoder(VOCAB, EMBEDDING, HIDDEN, "gru", num_layers=2), teacher_forcing=1.5
        )
    model = make_model("luong")
    src, lengths = padded_batch([3, 2])
    with pytest.raises(ValueError, match="token ids must lie in 0 .. 11"):
        model(src, lengths, torch.full((2, 3), VOCAB))
    with pytest.raises(ValueError, match="every length must be between 1 and the padded length"):
        model(src, torch.tensor([4, 2]), src)
    bad = Seq2Seq(
        Encoder(VOCAB, EMBEDDING, HIDDEN, bidirectional=True),
        LuongDecoder(VOCAB, EMBEDDING, HIDDEN, 2 * HIDDEN, DotAttention()),
    )
    with pytest.raises(ValueError, match="need the same size, got query size 8 and key size 16"):
        bad(src, lengths, src)


@pytest.mark.parametrize("cell", ["gru", "lstm"])
def test_the_teacher_forced_decoder_reads_the_target_in_one_call_as_the_step_loop_would(
    cell: str,
) -> None:
    """Decoder.forward under full teacher forcing (one call over the target) gives the logits
    and the gradients of the step-by-step loop of RecurrentDecoder.forward, in float64."""
    model = make_model("plain", cell=cell).double()
    src = torch.randint(3, VOCAB, (4, 7), generator=torch.Generator().manual_seed(1))
    lengths = torch.tensor([7, 3, 5, 1])
    tgt_in = torch.randint(3, VOCAB, (4, 6), generator=torch.Generator().manual_seed(2))
    results = []
    for forward in (model.decoder.forward, super(Decoder, model.decoder).forward):
        model.zero_grad()
        state, memory = model.encode(src, lengths)
        logits, attention = forward(tgt_in, state, memory, 1.0)
        logits.pow(2).sum().backward()
        results.append((logits, [p.grad.clone() for p in model.parameters()], attention))
    (fast, fast_grads, fast_attention), (loop, loop_grads, _) = results
    torch.testing.assert_close(fast, loop, rtol=1e-12, atol=1e-12)
    for fast_grad, loop_grad in zip(fast_grads, loop_grads, strict=True):
        torch.testing.assert_close(fast_grad, loop_grad, rtol=1e-10, atol=1e-12)
    assert fast_attention is None
