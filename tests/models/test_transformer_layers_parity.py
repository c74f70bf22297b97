"""coursekit's Transformer layers, stacks and full model equal torch.nn.TransformerEncoderLayer,
TransformerDecoderLayer, TransformerEncoder, TransformerDecoder and Transformer in float64:
outputs and the gradients of the inputs and of every parameter (matched by name), post- and
pre-norm, relu and gelu, with and without biases, batch_first and unbatched inputs, boolean
(True = NOT allowed) and float masks, 2-D and per-head 3-D attention masks, key padding, the
causal flags, 1 to 3 layers, with and without the final LayerNorm.

How the comparison stays exact: torch's encoder has an inference "fast path" (fused kernels
and, with a key padding mask, a nested-tensor batch whose padded positions come back as zeros)
that it takes only in eval mode without gradients. The parity tests run both sides in TRAINING
mode with dropout=0, where torch computes the same equations as coursekit (and gradients are
needed anyway); two further tests compare with torch's eval-mode fast path, where padded
positions differ by design.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from recurrent_twins import one_torch_thread  # noqa: F401 (autouse fixture)
from torch import Tensor, nn
from transformer_twins import (  # noqa: F401 (autouse fixture)
    check_outputs_and_gradients,
    quiet_torch_mask_warnings,
    torch_twin,
)

from coursekit.models.transformer.layers import TransformerDecoderLayer, TransformerEncoderLayer
from coursekit.models.transformer.model import Transformer, TransformerDecoder, TransformerEncoder

D_MODEL, HEADS, FEEDFORWARD = 8, 2, 12


@st.composite
def layer_configs(draw: st.DrawFn) -> dict[str, object]:
    """torch's layer arguments; dropout 0 (the parity tests run in training mode)."""
    return {
        "d_model": D_MODEL,
        "nhead": HEADS,
        "dim_feedforward": FEEDFORWARD,
        "dropout": 0.0,
        "activation": draw(st.sampled_from(["relu", "gelu"])),
        "layer_norm_eps": draw(st.sampled_from([1e-5, 1e-3])),
        "batch_first": draw(st.booleans()),
        "norm_first": draw(st.booleans()),
        "bias": draw(st.booleans()),
    }


class Inputs:
    """Random float64 sequences and masks in the layout of a configuration."""

    def __init__(self, draw: st.DrawFn, config: dict[str, object]) -> None:
        self.draw = draw
        self.batch_first = config["batch_first"]
        self.batched = draw(st.booleans())
        self.batch = draw(st.integers(1, 3)) if self.batched else 1
        self.generator = torch.Generator().manual_seed(draw(st.integers(0, 2**16)))

    def sequence(self, length: int) -> Tensor:
        """``[B, T, d]`` or ``[T, B, d]`` (``[T, d]`` unbatched), requiring gradients."""
        shape = (self.batch, length, D_MODEL) if self.batch_first else (length, self.batch, D_MODEL)
        x = torch.randn(shape, generator=self.generator, dtype=torch.float64)
        if not self.batched:
            x = x[0] if self.batch_first else x[:, 0]
        return x.requires_grad_()

    def attention_mask(
        self, length: int, key_length: int, allow_causal: bool
    ) -> tuple[Tensor | None, bool | None]:
        """A mask (none, bool, float, 3-D per head, or causal) and the causal flag to pass."""
        kinds = ["none", "bool", "float", "per_head"] + (["causal"] * 2 if allow_causal else [])
        kind = self.draw(st.sampled_from(kinds))
        if kind == "none":
            return None, self.draw(st.sampled_from([None, False]))
        if kind == "causal":
            mask = torch.ones(length, length, dtype=torch.bool).triu(1)
            if self.draw(st.booleans()):
                mask = nn.Transformer.generate_square_subsequent_mask(length, dtype=torch.float64)
            return mask, self.draw(st.sampled_from([None, True]))
        shape = (
            (self.batch * HEADS, length, key_length) if kind == "per_head" else (length, key_length)
        )
        if kind == "float":
            return torch.randn(shape, generator=self.generator, dtype=torch.float64), None
        mask = torch.rand(shape, generator=self.generator) < 0.4
        mask[..., 0] = False  # every query keeps a key
        return mask, None

    def padding_mask(self, key_length: int) -> Tensor | None:
        """None, or a boolean / float key padding mask that keeps position 0 of each sequence."""
        kind = self.draw(st.sampled_from(["none", "bool", "float"]))
        if kind == "none":
            return None
        lengths = torch.randint(1, key_length + 1, (self.batch,), generator=self.generator)
        mask = torch.arange(key_length) >= lengths.unsqueeze(1)
        if kind == "float":
            mask = torch.zeros(mask.shape, dtype=torch.float64).masked_fill(mask, float("-inf"))
        return mask if self.batched else mask[0]


def first_bool(flag: bool | None) -> bool:
    """A layer's causal flag (the layers take a bool; None means False there)."""
    return bool(flag)


@st.composite
def encoder_cases(draw: st.DrawFn) -> dict[str, object]:
    config = draw(layer_configs())
    inputs = Inputs(draw, config)
    length = draw(st.integers(1, 5))
    mask, is_causal = inputs.attention_mask(length, length, allow_causal=True)
    return {
        "config": config,
        "num_layers": draw(st.integers(1, 3)),
        "final_norm": draw(st.booleans()),
        "src": inputs.sequence(length),
        "mask": mask,
        "src_key_padding_mask": inputs.padding_mask(length),
        "is_causal": is_causal,
    }


@st.composite
def decoder_cases(draw: st.DrawFn) -> dict[str, object]:
    config = draw(layer_configs())
    inputs = Inputs(draw, config)
    length, memory_length = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    tgt_mask, tgt_is_causal = inputs.attention_mask(length, length, allow_causal=True)
    memory_mask, _ = inputs.attention_mask(length, memory_length, allow_causal=False)
    return {
        "config": config,
        "num_layers": draw(st.integers(1, 3)),
        "final_norm": draw(st.booleans()),
        "tgt": inputs.sequence(length),
        "memory": inputs.sequence(memory_length),
        "tgt_mask": tgt_mask,
        "memory_mask": memory_mask,
        "tgt_key_padding_mask": inputs.padding_mask(length),
        "memory_key_padding_mask": inputs.padding_mask(memory_length),
        "tgt_is_causal": tgt_is_causal,
    }


def stack_twins(
    torch_stack: type[nn.Module], torch_layer: type[nn.Module], case: dict[str, object], seed: int
) -> nn.Module:
    """A float64 torch stack of ``case["num_layers"]`` layers, with random weights."""
    norm = nn.LayerNorm(D_MODEL, eps=1e-4) if case["final_norm"] else None
    return torch_twin(torch_stack(torch_layer(**case["config"]), case["num_layers"], norm), seed)


@settings(max_examples=80, deadline=None)
@given(encoder_cases(), st.integers(0, 100))
def test_encoder_layer_equals_torch(case: dict[str, object], seed: int) -> None:
    theirs = torch_twin(nn.TransformerEncoderLayer(**case["config"]), seed)
    ours = TransformerEncoderLayer.from_torch(theirs)
    arguments = (
        case["src"],
        case["mask"],
        case["src_key_padding_mask"],
        first_bool(case["is_causal"]),
    )
    check_outputs_and_gradients(
        ours, theirs, [ours(*arguments)], [theirs(*arguments)], [case["src"]], seed
    )


@settings(max_examples=80, deadline=None)
@given(decoder_cases(), st.integers(0, 100))
def test_decoder_layer_equals_torch(case: dict[str, object], seed: int) -> None:
    theirs = torch_twin(nn.TransformerDecoderLayer(**case["config"]), seed)
    ours = TransformerDecoderLayer.from_torch(theirs)
    names = ("tgt", "memory", "tgt_mask", "memory_mask", "tgt_key_padding_mask")
    arguments = (
        *(case[name] for name in names),
        case["memory_key_padding_mask"],
        first_bool(case["tgt_is_causal"]),
    )
    inputs = [case["tgt"], case["memory"]]
    check_outputs_and_gradients(
        ours, theirs, [ours(*arguments)], [theirs(*arguments)], inputs, seed
    )


@settings(max_examples=80, deadline=None)
@given(encoder_cases(), st.integers(0, 100))
def test_encoder_stack_equals_torch(case: dict[str, object], seed: int) -> None:
    theirs = stack_twins(nn.TransformerEncoder, nn.TransformerEncoderLayer, case, seed)
    ours = TransformerEncoder.from_torch(theirs)
    options = {name: case[name] for name in ("mask", "src_key_padding_mask", "is_causal")}
    our_output, their_output = ours(case["src"], **options), theirs(case["src"], **options)
    check_outputs_and_gradients(ours, theirs, [our_output], [their_output], [case["src"]], seed)


@settings(max_examples=80, deadline=None)
@given(decoder_cases(), st.integers(0, 100))
def test_decoder_stack_equals_torch(case: dict[str, object], seed: int) -> None:
    theirs = stack_twins(nn.TransformerDecoder, nn.TransformerDecoderLayer, case, seed)
    ours = TransformerDecoder.from_torch(theirs)
    names = (
        "tgt_mask",
        "memory_mask",
        "tgt_key_padding_mask",
        "memory_key_padding_mask",
        "tgt_is_causal",
    )
    options = {name: case[name] for name in names}
    our_output = ours(case["tgt"], case["memory"], **options)
    their_output = theirs(case["tgt"], case["memory"], **options)
    inputs = [case["tgt"], case["memory"]]
    check_outputs_and_gradients(ours, theirs, [our_output], [their_output], inputs, seed)


@st.composite
def transformer_cases(draw: st.DrawFn) -> dict[str, object]:
    config = draw(layer_configs())
    inputs = Inputs(draw, config)
    source_length, target_length = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    src_mask, src_is_causal = inputs.attention_mask(source_length, source_length, True)
    tgt_mask, tgt_is_causal = inputs.attention_mask(target_length, target_length, True)
    memory_mask, _ = inputs.attention_mask(target_length, source_length, False)
    source_padding = inputs.padding_mask(source_length)
    return {
        "config": config,
        "num_encoder_layers": draw(st.integers(1, 3)),
        "num_decoder_layers": draw(st.integers(1, 3)),
        "src": inputs.sequence(source_length),
        "tgt": inputs.sequence(target_length),
        "options": {
            "src_mask": src_mask,
            "tgt_mask": tgt_mask,
            "memory_mask": memory_mask,
            "src_key_padding_mask": source_padding,
            "tgt_key_padding_mask": inputs.padding_mask(target_length),
            "memory_key_padding_mask": draw(st.sampled_from([None, source_padding])),
            "src_is_causal": src_is_causal,
            "tgt_is_causal": tgt_is_causal,
        },
    }


@settings(max_examples=60, deadline=None)
@given(transformer_cases(), st.integers(0, 100))
def test_transformer_equals_torch(case: dict[str, object], seed: int) -> None:
    depth = {name: case[name] for name in ("num_encoder_layers", "num_decoder_layers")}
    theirs = torch_twin(nn.Transformer(**case["config"], **depth), seed)
    ours = Transformer.from_torch(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    src, tgt = case["src"], case["tgt"]
    our_output = ours(src, tgt, **case["options"])
    their_output = theirs(src, tgt, **case["options"])
    check_outputs_and_gradients(ours, theirs, [our_output], [their_output], [src, tgt], seed)


def eval_mode_twins() -> tuple[TransformerEncoder, nn.TransformerEncoder]:
    """A post-norm, batch-first torch encoder that may take its fast path, and our copy."""
    layer = nn.TransformerEncoderLayer(D_MODEL, HEADS, FEEDFORWARD, batch_first=True)
    theirs = torch_twin(nn.TransformerEncoder(layer, 2, enable_nested_tensor=True)).eval()
    return TransformerEncoder.from_torch(theirs).eval(), theirs


def test_torchs_eval_fast_path_zeroes_padded_positions_and_agrees_at_the_real_ones() -> None:
    ours, theirs = eval_mode_twins()
    src = torch.randn(3, 6, D_MODEL, dtype=torch.float64)
    padding = torch.arange(6) >= torch.tensor([[6], [4], [2]])
    with torch.no_grad():
        our_output = ours(src, src_key_padding_mask=padding)
        their_output = theirs(src, src_key_padding_mask=padding)
    assert not their_output[padding].any()  # torch's nested tensor comes back padded with zeros
    assert our_output[padding].abs().min() > 0  # coursekit computes the layers there too
    torch.testing.assert_close(our_output[~padding], their_output[~padding])


def test_torchs_eval_fast_path_without_padding_agrees_everywhere() -> None:
    ours, theirs = eval_mode_twins()
    src = torch.randn(2, 5, D_MODEL, dtype=torch.float64)
    with torch.no_grad():
        torch.testing.assert_close(ours(src), theirs(src))


def test_stacks_start_from_copies_of_the_layer_and_transformer_resets_them() -> None:
    torch.manual_seed(0)
    stack = TransformerEncoder(TransformerEncoderLayer(D_MODEL, HEADS, FEEDFORWARD), 3)
    first, last = stack.layers[0].linear1.weight, stack.layers[2].linear1.weight
    assert torch.equal(first, last) and first.data_ptr() != last.data_ptr()
    model = Transformer(D_MODEL, HEADS, 2, 2, FEEDFORWARD)
    encoder_layers = model.encoder.layers
    assert not torch.equal(encoder_layers[0].linear1.weight, encoder_layers[1].linear1.weight)


def test_generate_square_subsequent_mask_equals_torchs() -> None:
    torch.testing.assert_close(
        Transformer.generate_square_subsequent_mask(5, dtype=torch.float64),
        nn.Transformer.generate_square_subsequent_mask(5, dtype=torch.float64),
    )


def test_from_torch_rejects_what_it_cannot_copy() -> None:
    custom = nn.TransformerEncoderLayer(D_MODEL, HEADS, FEEDFORWARD, activation=torch.tanh)
    with pytest.raises(ValueError, match="only the activations relu and exact gelu"):
        TransformerEncoderLayer.from_torch(custom)
    layer = nn.TransformerEncoderLayer(D_MODEL, HEADS, FEEDFORWARD)
    with pytest.raises(ValueError, match="must be an nn.LayerNorm or None, got Identity"):
        TransformerEncoder.from_torch(nn.TransformerEncoder(layer, 2, norm=nn.Identity()))
    encoder = nn.TransformerEncoder(layer, 2)  # no final norm: not the standard encoder
    with pytest.raises(ValueError, match="custom encoder"):
        Transformer.from_torch(nn.Transformer(D_MODEL, HEADS, custom_encoder=encoder))
    with pytest.raises(TypeError, match=r"TransformerEncoderLayer.from_torch\(layer\)"):
        TransformerEncoder(layer, 2)


def test_wrong_inputs_are_rejected_with_a_message() -> None:
    layer = TransformerEncoderLayer(D_MODEL, HEADS, FEEDFORWARD, batch_first=True)
    with pytest.raises(ValueError, match=r"src must be \[B, T, d_model\].*d_model=8"):
        layer(torch.randn(2, 3, 6))
    model = Transformer(D_MODEL, HEADS, 1, 1, FEEDFORWARD)
    with pytest.raises(ValueError, match=r"same batch size \(dimension 1\)"):
        model(torch.randn(4, 2, D_MODEL), torch.randn(3, 5, D_MODEL))
