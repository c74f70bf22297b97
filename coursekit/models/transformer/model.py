"""The Transformer's encoder and decoder stacks and the whole encoder-decoder model, equal to
``torch.nn.TransformerEncoder``, ``TransformerDecoder`` and ``Transformer`` (Chapter 5,
Transformers).

The encoder is N identical layers (weights not shared) over the source; the decoder N layers
over the target, each attending the encoder's top output, the memory:

    memory = Encoder(src),   output = Decoder(tgt, memory),

with an optional LayerNorm after the last layer of each stack (the ``norm`` of torch's stacks;
``Transformer`` always has both, which pre-norm layers need). Masks are torch's: True (or -inf)
where attention is NOT allowed; the decoder's self-attention takes the causal
``tgt_mask = generate_square_subsequent_mask(T)`` so that position i sees targets 0..i only.

torch's encoder has an inference "fast path": in eval mode without gradients it runs fused
kernels and, with a ``src_key_padding_mask``, turns the batch into a nested tensor whose padded
positions come back as zeros. These classes always compute the equations, so padded positions
hold what the layers compute there (the real positions are the same).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, ClassVar, cast

import torch
from torch import Tensor, nn

from coursekit.arguments import require_positive_int
from coursekit.models.transformer.kv_cache import (
    KeyValueCache,
    LayerKeyValues,
    cache_length,
    incremental_causal_mask,
)
from coursekit.models.transformer.layer_norm import LayerNorm
from coursekit.models.transformer.layers import (
    TransformerDecoderLayer,
    TransformerEncoderLayer,
    TransformerLayer,
)
from coursekit.models.twins import TorchTwin

CachedLayerStep = Callable[[Any, Tensor, LayerKeyValues | None], tuple[Tensor, LayerKeyValues]]
"""``step(layer, x, past)``: one layer of the stack (encoder or decoder) run with its cache."""


def clones(layer: nn.Module, num_layers: int) -> nn.ModuleList:
    """``num_layers`` independent deep copies of ``layer`` (they start equal, as in torch).
    Explained in Chapter 5, Transformers.
    """
    require_positive_int("num_layers", num_layers)
    return nn.ModuleList(copy.deepcopy(layer) for _ in range(num_layers))


def run_cached_layers(
    layers: nn.ModuleList, x: Tensor, cache: KeyValueCache | None, step: CachedLayerStep
) -> tuple[Tensor, KeyValueCache]:
    """Run ``step(layer, x, past)`` through the layers, each with its own cached keys and values;
    returns the output and the new cache (Chapter 5).
    """
    pasts = (None,) * len(layers) if cache is None else cache
    new_cache = []
    for layer, past in zip(layers, pasts, strict=True):
        x, keys_values = step(layer, x, past)
        new_cache.append(keys_values)
    return x, tuple(new_cache)


class TransformerStack(TorchTwin):
    """N copies of a layer and an optional final LayerNorm; ``from_torch`` (Chapter 5)."""

    layer_class: ClassVar[type[TransformerLayer]]
    layer_argument: ClassVar[str]

    def __init__(self, layer: nn.Module, num_layers: int, norm: nn.Module | None = None) -> None:
        super().__init__()
        if not isinstance(layer, self.layer_class):
            raise TypeError(
                f"{type(self).__name__} stacks a coursekit {self.layer_class.__name__}, got "
                f"{type(layer).__name__}; for a torch layer use {self.layer_class.__name__}"
                ".from_torch(layer)"
            )
        self.layers = clones(layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    @classmethod
    def constructor_arguments(
        cls, torch_module: nn.TransformerEncoder | nn.TransformerDecoder
    ) -> dict[str, object]:
        """The arguments that rebuild a torch stack here: a copy of its first layer, its depth
        and its final norm (an ``nn.LayerNorm`` or None).
        """
        norm = torch_module.norm
        if norm is not None and not isinstance(norm, nn.LayerNorm):
            raise ValueError(
                f"the final norm of the torch stack must be an nn.LayerNorm or None, got "
                f"{type(norm).__name__}"
            )
        return {
            cls.layer_argument: cls.layer_class.from_torch(torch_module.layers[0]),
            "num_layers": len(torch_module.layers),
            "norm": None if norm is None else LayerNorm.from_torch(norm),
        }

    def final_norm(self, x: Tensor) -> Tensor:
        """LayerNorm(x) after the last layer, when the stack has a ``norm``."""
        return x if self.norm is None else self.norm(x)

    def time_dim(self, x: Tensor) -> int:
        """The dimension of x that indexes positions."""
        first = cast(TransformerLayer, self.layers[0])
        return 1 if x.dim() == 3 and first.self_attn.batch_first else 0


class TransformerEncoder(TransformerStack):
    """``memory = Encoder(src)``: N encoder layers and an optional final LayerNorm (Chapter 5),
    equal to ``torch.nn.TransformerEncoder(encoder_layer, num_layers, norm)`` (without its
    inference fast path, see the module's docstring).
    """

    torch_class = nn.TransformerEncoder
    layer_class = TransformerEncoderLayer
    layer_argument = "encoder_layer"

    def __init__(
        self,
        encoder_layer: TransformerEncoderLayer,
        num_layers: int,
        norm: nn.Module | None = None,
    ) -> None:
        super().__init__(encoder_layer, num_layers, norm)

    def forward(
        self,
        src: Tensor,
        mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool | None = None,
    ) -> Tensor:
        """The top layer's output (after the final norm), shaped like ``src``."""
        x = src
        for layer in self.layers:
            x = layer(x, mask, src_key_padding_mask, is_causal=bool(is_causal))
        return self.final_norm(x)

    def forward_with_cache(
        self, src: Tensor, cache: KeyValueCache | None
    ) -> tuple[Tensor, KeyValueCache]:
        """Causal self-attention of new positions ``src`` over the P cached ones and themselves
        (a decoder-only language model, :mod:`coursekit.models.transformer.kv_cache`); returns the
        output and the cache of all P + T positions.
        """
        mask = incremental_causal_mask(
            src.shape[self.time_dim(src)], cache_length(cache), src.device
        )
        x, cache = run_cached_layers(
            self.layers, src, cache, lambda layer, x, past: layer.forward_with_cache(x, past, mask)
        )
        return self.final_norm(x), cache


class TransformerDecoder(TransformerStack):
    """``output = Decoder(tgt, memory)``: N decoder layers and an optional final LayerNorm
    (Chapter 5), equal to ``torch.nn.TransformerDecoder(decoder_layer, num_layers, norm)``.
    """

    torch_class = nn.TransformerDecoder
    layer_class = TransformerDecoderLayer
    layer_argument = "decoder_layer"

    def __init__(
        self,
        decoder_layer: TransformerDecoderLayer,
        num_layers: int,
        norm: nn.Module | None = None,
    ) -> None:
        super().__init__(decoder_layer, num_layers, norm)

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """The top layer's output (after the final norm), shaped like ``tgt``."""
        x = tgt
        for layer in self.layers:
            x = layer(
                x, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask,
                tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal,
            )  # fmt: skip
        return self.final_norm(x)

    def forward_with_cache(
        self,
        tgt: Tensor,
        memory: Tensor,
        cache: KeyValueCache | None,
        memory_key_padding_mask: Tensor | None = None,
    ) -> tuple[Tensor, KeyValueCache]:
        """The decoder on new target positions ``tgt`` after P cached ones (causal
        self-attention, :mod:`coursekit.models.transformer.kv_cache`); returns the output and the
        cache of all P + T positions.
        """
        mask = incremental_causal_mask(
            tgt.shape[self.time_dim(tgt)], cache_length(cache), tgt.device
        )

        def step(
            layer: TransformerDecoderLayer, x: Tensor, past: LayerKeyValues | None
        ) -> tuple[Tensor, LayerKeyValues]:
            return layer.forward_with_cache(x, memory, past, mask, memory_key_padding_mask)

        x, cache = run_cached_layers(self.layers, tgt, cache, step)
        return self.final_norm(x), cache


class Transformer(TorchTwin):
    """The encoder-decoder Transformer, equal to ``torch.nn.Transformer`` (Chapter 5):
    ``Decoder(tgt, Encoder(src))`` with N encoder and N decoder layers and a final LayerNorm
    after each stack. Defaults are the paper's base model (d_model 512, 8 heads, 6 + 6 layers,
    d_ff 2048, dropout 0.1); every weight matrix starts Xavier-uniform, as in torch.
    """

    torch_class = nn.Transformer

    def __init__(
        self,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str = "relu",
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
    ) -> None:
        super().__init__()
        layer_arguments = (
            d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
            norm_first, bias,
        )  # fmt: skip
        self.encoder = TransformerEncoder(
            TransformerEncoderLayer(*layer_arguments),
            num_encoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias),
        )
        self.decoder = TransformerDecoder(
            TransformerDecoderLayer(*layer_arguments),
            num_decoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias),
        )
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Xavier-uniform initialisation of every weight matrix, as ``torch.nn.Transformer``."""
        for parameter in self.parameters():
            if parameter.dim() > 1:
                nn.init.xavier_uniform_(parameter)

    @classmethod
    def constructor_arguments(cls, torch_module: nn.Transformer) -> dict[str, object]:
        """The arguments that rebuild ``torch_module``'s configuration in this class."""
        for name, stack_class in (
            ("encoder", nn.TransformerEncoder),
            ("decoder", nn.TransformerDecoder),
        ):
            stack = getattr(torch_module, name)
            if not isinstance(stack, stack_class) or not isinstance(stack.norm, nn.LayerNorm):
                raise ValueError(
                    f"the torch Transformer has a custom {name} ({type(stack).__name__}): only "
                    f"the standard stacks with a final LayerNorm can be copied"
                )
        arguments = TransformerEncoderLayer.constructor_arguments(torch_module.encoder.layers[0])
        return {
            **arguments,
            "num_encoder_layers": len(torch_module.encoder.layers),
            "num_decoder_layers": len(torch_module.decoder.layers),
        }

    @staticmethod
    def generate_square_subsequent_mask(
        sz: int, device: torch.device | None = None, dtype: torch.dtype | None = None
    ) -> Tensor:
        """The causal mask ``[sz, sz]``: -inf above the diagonal (j > i), 0 elsewhere."""
        return torch.full((sz, sz), float("-inf"), dtype=dtype, device=device).triu(diagonal=1)

    def forward(
        self,
        src: Tensor,
        tgt: Tensor,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        src_is_causal: bool | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """``Decoder(tgt, Encoder(src))``, shaped like ``tgt``; masks as in torch."""
        batch_dim = 0 if self.batch_first else 1
        if src.dim() == 3 and (tgt.dim() != 3 or src.shape[batch_dim] != tgt.shape[batch_dim]):
            raise ValueError(
                f"src and tgt must have the same batch size (dimension {batch_dim}), got shapes "
                f"{tuple(src.shape)} and {tuple(tgt.shape)}"
            )
        memory = self.encoder(src, src_mask, src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(
            tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask,
            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal,
        )  # fmt: skip
