"""Row: batched beam search (beam 5) against greedy decoding of the same ``Seq2Seq`` model, in
seconds per output token.

Both decode the same batch of random sources with the same (untrained) GRU encoder-decoder with
Luong attention, float32 on CPU, for a fixed number of steps (the untrained model rarely
produces eos). The row first checks that beam search with one beam gives greedy decoding's
tokens. The ratio is the price of searching k = 5 hypotheses per input: one model step on
B * k rows instead of B, plus the reordering of the beams' states.
"""

from __future__ import annotations

import torch

from benchmarks.registry import Row, alternating_median_times, benchmark
from coursekit.generate import beam_search, greedy_decode
from coursekit.models.seq2seq.attention import GeneralAttention
from coursekit.models.seq2seq.decoders import LuongDecoder
from coursekit.models.seq2seq.encoder_decoder import Encoder
from coursekit.models.seq2seq.model import Seq2Seq

BEAM_SIZE = 5
BOS, EOS = 1, 2
# (batch, source length, vocabulary, embedding, hidden size, steps)
FULL_SIZES = (32, 20, 1000, 64, 128, 30)
QUICK_SIZES = (4, 6, 50, 8, 16, 5)


@benchmark
def beam_search_vs_greedy(quick: bool) -> Row:
    """Seconds per output token: beam search with 5 beams, and greedy decoding."""
    batch, length, vocab_size, embedding, hidden, steps = QUICK_SIZES if quick else FULL_SIZES
    torch.manual_seed(0)
    encoder = Encoder(vocab_size, embedding, hidden)
    decoder = LuongDecoder(vocab_size, embedding, hidden, hidden, GeneralAttention(hidden, hidden))
    model = Seq2Seq(encoder, decoder).eval()
    src = torch.randint(3, vocab_size, (batch, length))
    lengths = torch.full((batch,), length)
    bos = torch.full((batch,), BOS)
    results: dict[str, int] = {}

    def greedy() -> None:
        with torch.no_grad():
            state = model.encode(src, lengths)
            outputs = greedy_decode(model.search_step, state, bos, EOS, steps)
        results["greedy"] = sum(len(output.tokens) for output in outputs)

    def beam() -> None:
        with torch.no_grad():
            state = model.encode(src, lengths)
            outputs = beam_search(model.search_step, state, bos, EOS, BEAM_SIZE, steps)
        results["beam"] = sum(len(best.tokens) for (best,) in outputs)

    with torch.no_grad():
        state = model.encode(src, lengths)
        one_beam = beam_search(model.search_step, state, bos, EOS, 1, steps)
        greedy_outputs = greedy_decode(model.search_step, state, bos, EOS, steps)
    if [best.tokens for (best,) in one_beam] != [output.tokens for output in greedy_outputs]:
        raise AssertionError("beam search with one beam differs from greedy decoding")
    beam_seconds, greedy_seconds = alternating_median_times(beam, greedy, repeat=1 if quick else 5)
    return Row(
        name=f"beam search k={BEAM_SIZE} per output token, B={batch} V={vocab_size} H={hidden}",
        ours=f"coursekit.generate.beam_search (beam {BEAM_SIZE})",
        reference="coursekit.generate.greedy_decode",
        ours_seconds=beam_seconds / results["beam"],
        reference_seconds=greedy_seconds / results["greedy"],
    )
