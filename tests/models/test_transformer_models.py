"""The Transformer models of Chapter 5, in float64:

- TransformerLanguageModel: decoding with the key-value cache gives the logits of recomputing
  the whole prefix (several lengths, one token or several at a time), coursekit.generate drives
  it unchanged, and the maximum context is enforced with a clear error;
- Seq2SeqTransformer: decode_step gives the log-probabilities of teacher forcing, its state is
  reordered by coursekit.generate's beam search, and greedy and beam search equal searches that
  recompute the prefix;
- TransformerClassifier: max-pooling over the real positions only, so padding changes nothing.
"""

from __future__ import annotations

import pytest
import torch
from recurrent_twins import one_torch_thread  # noqa: F401 (autouse fixture)
from torch import Tensor

from coursekit.generate import beam_search, generate, reorder_state
from coursekit.models.transformer.classifier import TransformerClassifier
from coursekit.models.transformer.language_model import TransformerLanguageModel
from coursekit.models.transformer.seq2seq import Seq2SeqTransformer

VOCAB = 17


def language_model(**options: object) -> TransformerLanguageModel:
    torch.manual_seed(0)
    arguments = {"d_model": 16, "nhead": 2, "num_layers": 2, "dim_feedforward": 24, "max_len": 40}
    return TransformerLanguageModel(VOCAB, **{**arguments, **options}).double().eval()


def random_tokens(*shape: int, seed: int = 1, low: int = 0) -> Tensor:
    return torch.randint(low, VOCAB, shape, generator=torch.Generator().manual_seed(seed))


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"positional": "sinusoidal"},
        {"norm_first": False},
        {"activation": "relu", "num_layers": 3},
    ],
    ids=["pre_norm_learned", "sinusoidal", "post_norm", "relu_3_layers"],
)
@pytest.mark.parametrize("length", [1, 2, 7, 16, 30])
def test_one_token_at_a_time_with_the_cache_equals_recomputing_the_prefix(
    options: dict[str, object], length: int
) -> None:
    model = language_model(**options)
    tokens = random_tokens(3, length)
    with torch.no_grad():
        state, incremental = None, []
        for t in range(length):
            logits, state = model(tokens[:, t : t + 1], state)
            incremental.append(logits[:, 0])
            recomputed, _ = model(tokens[:, : t + 1])  # the whole prefix again, no cache
            torch.testing.assert_close(incremental[-1], recomputed[:, -1])
    whole, _ = model(tokens)
    torch.testing.assert_close(torch.stack(incremental, dim=1), whole)


@pytest.mark.parametrize("pieces", [(5, 9), (1, 13), (4, 4, 6), (13, 1)])
def test_reading_in_pieces_with_the_state_passed_on_equals_one_pass(
    pieces: tuple[int, ...],
) -> None:
    model = language_model()
    tokens = random_tokens(2, sum(pieces), seed=2)
    whole_logits, whole_state = model(tokens)
    state, outputs, start = None, [], 0
    for size in pieces:
        logits, state = model(tokens[:, start : start + size], state)
        outputs.append(logits)
        start += size
    torch.testing.assert_close(torch.cat(outputs, dim=1), whole_logits)
    torch.testing.assert_close(state, whole_state)


def test_the_state_is_one_batch_first_key_value_pair_per_layer() -> None:
    model = language_model(num_layers=3)
    _, state = model(random_tokens(2, 5))
    assert isinstance(state, tuple) and len(state) == 3
    for keys, values in state:
        assert keys.shape == values.shape == (2, 2, 5, 8)  # [B, heads, P, d_k]
    _, longer = model(random_tokens(2, 3), state)
    assert longer[0][0].shape == (2, 2, 8, 8)
    torch.testing.assert_close(longer[0][0][:, :, :5], state[0][0])  # old keys are kept


def test_generate_drives_the_model_with_its_cache() -> None:
    model = language_model()
    prompt = [3, 1, 4]
    greedy = generate(model, prompt, 12, temperature=0)
    context = list(prompt)
    with torch.no_grad():
        for _ in range(12):  # the same decisions, recomputing the whole prefix every time
            logits, _ = model(torch.tensor([context]))
            context.append(int(logits[0, -1].argmax()))
    assert greedy == context[len(prompt) :]
    first = generate(model, prompt, 10, top_k=5, generator=torch.Generator().manual_seed(3))
    again = generate(model, prompt, 10, top_k=5, generator=torch.Generator().manual_seed(3))
    assert first == again and len(first) == 10


def test_the_maximum_context_is_enforced_with_a_clear_error() -> None:
    model = language_model(max_len=12)
    assert len(generate(model, [1, 2, 3], 10, temperature=0)) == 10  # 3 + 10 - 1 = 12 positions
    with pytest.raises(ValueError, match=r"positions 12 \.\. 12 do not fit .* max_len=12"):
        generate(model, [1, 2, 3], 11, temperature=0)
    _, state = model(random_tokens(1, 12))
    with pytest.raises(ValueError, match=r"positions 12 \.\. 12 do not fit"):
        model(random_tokens(1, 1), state)


def test_wrong_states_and_tokens_are_rejected() -> None:
    model = language_model()
    _, state = model(random_tokens(2, 3))
    with pytest.raises(ValueError, match=r"tuple of 2 \(keys, values\) pairs"):
        model(random_tokens(2, 1), state[:1])
    with pytest.raises(ValueError, match=r"B = 3 \(the batch of the new tokens\)"):
        model(random_tokens(3, 1), state)
    with pytest.raises(ValueError, match=r"token ids must lie in 0 \.\. 16"):
        model(torch.tensor([[VOCAB]]))


def test_tied_weights_are_one_parameter() -> None:
    model = language_model(tie_weights=True)
    assert model.output.weight is model.embedding.token.weight
    names = [name for name, _ in model.named_parameters()]
    assert "output.weight" not in names


def seq2seq_model(**options: object) -> Seq2SeqTransformer:
    torch.manual_seed(0)
    arguments = {
        "d_model": 16, "nhead": 2, "num_encoder_layers": 2, "num_decoder_layers": 2,
        "dim_feedforward": 24, "max_len": 30,
    }  # fmt: skip
    return Seq2SeqTransformer(VOCAB, VOCAB - 3, **{**arguments, **options}).double().eval()


def padded_sources() -> Tensor:
    src = random_tokens(3, 7, seed=4, low=3)
    src[1, 4:] = 0  # padding (pad_index 0)
    src[2, 2:] = 0
    return src


@pytest.mark.parametrize("options", [{}, {"norm_first": True, "positional": "learned"}])
def test_decode_step_gives_the_log_probabilities_of_teacher_forcing(
    options: dict[str, object],
) -> None:
    model = seq2seq_model(**options)
    src, tgt = padded_sources(), random_tokens(3, 6, seed=5) % (VOCAB - 3)
    with torch.no_grad():
        expected = torch.log_softmax(model(src, tgt), dim=-1)
        state, steps = model.encode(src), []
        for t in range(tgt.shape[1]):
            log_probs, state = model.decode_step(tgt[:, t], state)
            steps.append(log_probs)
    torch.testing.assert_close(torch.stack(steps, dim=1), expected)


def test_padding_the_source_further_changes_nothing() -> None:
    model = seq2seq_model()
    src, tgt = padded_sources(), random_tokens(3, 4, seed=6) % (VOCAB - 3)
    longer = torch.cat([src, torch.zeros(3, 5, dtype=torch.long)], dim=1)
    torch.testing.assert_close(model(longer, tgt), model(src, tgt))


def recomputing_step(model: Seq2SeqTransformer):
    """A step function without a cache: the state holds the source and the prefix so far."""

    def step(tokens: Tensor, state: tuple[Tensor, Tensor]) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        src, prefix = state
        prefix = torch.cat([prefix, tokens.unsqueeze(1)], dim=1)
        return torch.log_softmax(model(src, prefix)[:, -1], dim=-1), (src, prefix)

    return step


def test_greedy_and_beam_search_with_the_cache_equal_searches_that_recompute() -> None:
    model = seq2seq_model()
    src = padded_sources()
    bos = torch.full((3,), 1)
    with torch.no_grad():
        greedy = model.greedy_decode(src, bos_index=1, eos_index=2, max_len=8)
        empty_prefix = (src, src.new_zeros(3, 0))
        recomputed = beam_search(recomputing_step(model), empty_prefix, bos, 2, 1, 8)
        assert [h.tokens for h in greedy] == [best.tokens for (best,) in recomputed]
        torch.testing.assert_close(
            [h.score for h in greedy], [best.score for (best,) in recomputed]
        )
        cached = beam_search(model.decode_step, model.encode(src), bos, 2, 3, 8, 0.6, n_best=3)
        expected = beam_search(recomputing_step(model), empty_prefix, bos, 2, 3, 8, 0.6, n_best=3)
    for ours, theirs in zip(cached, expected, strict=True):
        assert [hypothesis.tokens for hypothesis in ours] == [h.tokens for h in theirs]
        torch.testing.assert_close([h.score for h in ours], [h.score for h in theirs])


def test_a_reordered_state_decodes_the_reordered_rows() -> None:
    model = seq2seq_model()
    src = padded_sources()
    with torch.no_grad():
        _, state = model.decode_step(torch.full((3,), 1), model.encode(src))
        order = torch.tensor([2, 0, 0])  # row i continues the hypothesis of row order[i]
        reordered, _ = model.decode_step(torch.tensor([5, 6, 6]), reorder_state(state, order))
        original, _ = model.decode_step(torch.tensor([6, 9, 5]), state)
    torch.testing.assert_close(reordered, original[order])


def test_tied_target_embeddings_are_the_output_layer() -> None:
    model = seq2seq_model(tie_embeddings=True)
    assert model.output.weight is model.tgt_embedding.token.weight


def classifier() -> TransformerClassifier:
    torch.manual_seed(0)
    return TransformerClassifier(VOCAB, num_classes=3).double().eval()


def test_classifier_defaults_are_the_sources() -> None:
    model = classifier()
    assert len(model.encoder.layers) == 1
    layer = model.encoder.layers[0]
    assert layer.self_attn.embed_dim == 32 and layer.self_attn.num_heads == 2
    assert layer.linear1.out_features == 128 and model.embedding.position.max_len == 200


def test_classifier_max_pools_the_encoder_output_over_the_real_positions() -> None:
    model = classifier()
    tokens, lengths = random_tokens(2, 6, seed=7, low=1), torch.tensor([6, 3])
    padding = torch.arange(6) >= lengths.unsqueeze(1)
    hidden = model.encoder(model.embedding(tokens), src_key_padding_mask=padding)
    pooled = torch.stack([hidden[0].amax(dim=0), hidden[1, :3].amax(dim=0)])
    torch.testing.assert_close(model(tokens, lengths), model.output(pooled))


def test_classifier_ignores_whatever_fills_the_padding() -> None:
    model = classifier()
    tokens, lengths = random_tokens(2, 6, seed=8, low=1), [6, 3]
    garbage = tokens.clone()
    garbage[1, 3:] = torch.tensor([5, 9, 11])
    longer = torch.cat([tokens, torch.zeros(2, 4, dtype=torch.long)], dim=1)
    expected = model(tokens, lengths)
    torch.testing.assert_close(model(garbage, lengths), expected)
    torch.testing.assert_close(model(longer, lengths), expected)
    with pytest.raises(ValueError, match=r"between 1 and the padded length T=6"):
        model(tokens, [7, 3])
