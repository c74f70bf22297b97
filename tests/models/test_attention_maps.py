"""Attention maps of Chapter 5's Transformers, in float64: each layer's per-head weights equal
the weights torch's own attention module computes from the input it really receives inside
torch's twin layer (captured by a forward hook), for post- and pre-norm stacks, with padding
and causal masks, and for the three attention kinds of an encoder-decoder; the models'
wrappers give maps whose rows sum to 1 over the keys they may see.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import torch
from recurrent_twins import one_torch_thread  # noqa: F401 (autouse fixture)
from torch import Tensor, nn

from coursekit.models.transformer.attention_maps import (
    classifier_attention_maps,
    decoder_attention_maps,
    encoder_attention_maps,
    language_model_attention_maps,
    seq2seq_attention_maps,
)
from coursekit.models.transformer.classifier import TransformerClassifier
from coursekit.models.transformer.language_model import TransformerLanguageModel
from coursekit.models.transformer.model import TransformerDecoder, TransformerEncoder
from coursekit.models.transformer.seq2seq import Seq2SeqTransformer
from coursekit.text.masks import causal_mask

D_MODEL, HEADS = 8, 2


@contextmanager
def recorded_weights(attention_modules: list[nn.MultiheadAttention]) -> Iterator[list[Tensor]]:
    """Per-head weights of torch's attention modules, recomputed by torch itself (explicit
    path) from the very inputs and masks each call received, in call order.
    """
    recorded: list[Tensor] = []

    def hook(module: nn.MultiheadAttention, args: tuple, kwargs: dict, output: object) -> None:
        query, key, value = args[:3]  # torch's layers pass them by position
        masks = {name: kwargs.get(name) for name in ("key_padding_mask", "attn_mask")}
        if masks["attn_mask"] is None and kwargs.get("is_causal"):
            masks["attn_mask"] = causal_mask(query.shape[1])
        recorded.append(
            module.forward(
                query, key, value, **masks, need_weights=True, average_attn_weights=False
            )[1]
        )

    handles = [m.register_forward_hook(hook, with_kwargs=True) for m in attention_modules]
    try:
        yield recorded
    finally:
        for handle in handles:
            handle.remove()


def random_input(*shape: int, seed: int = 0) -> Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


@pytest.mark.parametrize("norm_first", [False, True], ids=["post_norm", "pre_norm"])
@pytest.mark.parametrize("masking", ["none", "padding", "causal"])
def test_encoder_maps_are_the_weights_torch_computes_in_each_layer(
    norm_first: bool, masking: str
) -> None:
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(
        D_MODEL, HEADS, 16, dropout=0.0, batch_first=True, norm_first=norm_first
    )
    twin = nn.TransformerEncoder(layer, 3, enable_nested_tensor=False).double()
    ours = TransformerEncoder.from_torch(twin)
    src = random_input(2, 5, D_MODEL)
    padding = (
        torch.tensor([[False] * 5, [False] * 3 + [True] * 2]) if masking == "padding" else None
    )
    mask = causal_mask(5) if masking == "causal" else None
    with recorded_weights([m.self_attn for m in twin.layers]) as expected:
        twin(src, mask=mask, src_key_padding_mask=padding)  # with gradients: no fast path
    maps = encoder_attention_maps(ours, src, mask, padding)
    assert maps.shape == (3, 2, HEADS, 5, 5)
    torch.testing.assert_close(maps, torch.stack(expected))
    if padding is not None:
        assert bool((maps[:, 1, :, :, 3:] == 0).all())
    if mask is not None:
        assert bool((maps.triu(diagonal=1) == 0).all())


@pytest.mark.parametrize("norm_first", [False, True], ids=["post_norm", "pre_norm"])
def test_decoder_maps_are_torch_self_and_cross_attention_weights(norm_first: bool) -> None:
    torch.manual_seed(1)
    layer = nn.TransformerDecoderLayer(
        D_MODEL, HEADS, 16, dropout=0.0, batch_first=True, norm_first=norm_first
    )
    twin = nn.TransformerDecoder(layer, 2).double()
    ours = TransformerDecoder.from_torch(twin)
    tgt, memory = random_input(2, 4, D_MODEL, seed=1), random_input(2, 6, D_MODEL, seed=2)
    padding = torch.tensor([[False] * 6, [False] * 4 + [True] * 2])
    mask = causal_mask(4)
    with (
        recorded_weights([m.self_attn for m in twin.layers]) as self_expected,
        recorded_weights([m.multihead_attn for m in twin.layers]) as cross_expected,
    ):
        twin(tgt, memory, tgt_mask=mask, memory_key_padding_mask=padding)
    self_maps, cross_maps = decoder_attention_maps(ours, tgt, memory, mask, padding)
    assert self_maps.shape == (2, 2, HEADS, 4, 4) and cross_maps.shape == (2, 2, HEADS, 4, 6)
    torch.testing.assert_close(self_maps, torch.stack(self_expected))
    torch.testing.assert_close(cross_maps, torch.stack(cross_expected))


def assert_rows_are_distributions(maps: Tensor) -> None:
    torch.testing.assert_close(maps.sum(dim=-1), torch.ones_like(maps[..., 0]))
    assert bool((maps >= 0).all())


def test_model_wrappers_give_distributions_over_the_keys_each_query_may_see() -> None:
    torch.manual_seed(2)
    tokens = torch.randint(3, 11, (2, 6), generator=torch.Generator().manual_seed(3))
    language_model = TransformerLanguageModel(11, D_MODEL, HEADS, 2, 16, max_len=10).double()
    lm_maps = language_model_attention_maps(language_model, tokens)
    assert lm_maps.shape == (2, 2, HEADS, 6, 6) and bool((lm_maps.triu(1) == 0).all())
    assert_rows_are_distributions(lm_maps)
    assert language_model.training, "the model's mode is given back"

    classifier = TransformerClassifier(11, 2, D_MODEL, HEADS, 1, 16, max_len=10).double()
    lengths = torch.tensor([6, 4])
    class_maps = classifier_attention_maps(classifier, tokens, lengths)
    assert class_maps.shape == (1, 2, HEADS, 6, 6) and bool((class_maps[:, 1, ..., 4:] == 0).all())
    assert_rows_are_distributions(class_maps)

    translator = Seq2SeqTransformer(
        11, 9, D_MODEL, HEADS, 2, 1, 16, dropout=0.1, max_len=10, pad_index=0
    ).double()
    src = tokens.clone()
    src[1, 4:] = 0
    tgt_in = torch.tensor([[1, 3, 4], [1, 5, 6]])
    maps = seq2seq_attention_maps(translator, src, tgt_in)
    assert maps.encoder.shape == (2, 2, HEADS, 6, 6)
    assert maps.decoder.shape == (1, 2, HEADS, 3, 3) and maps.cross.shape == (1, 2, HEADS, 3, 6)
    assert bool((maps.cross[:, 1, ..., 4:] == 0).all()) and bool((maps.decoder.triu(1) == 0).all())
    for kind in maps:
        assert_rows_are_distributions(kind)
