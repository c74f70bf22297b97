"""What the BERT models require of their arguments (Chapter 6, BERT): the shapes, dtypes and
ranges of ``input_ids``, ``attention_mask``, ``token_type_ids`` and ``inputs_embeds``. Wrong inputs are rejected here with a message that names the fix, so
that the models read like their equations.
"""

from __future__ import annotations

from typing import cast

from torch import Tensor

from coursekit.models.bert.config import BertConfig


def require_ids(name: str, ids: Tensor, upper: int, what: str) -> None:
    """``ids`` is an integer ``[B, T]`` tensor with values in ``0 .. upper - 1``."""
    if not isinstance(ids, Tensor) or ids.dim() != 2 or ids.is_floating_point() or ids.is_complex():
        raise ValueError(
            f"{name} must be an integer tensor [B, T], got "
            f"{type(ids).__name__} of shape {tuple(getattr(ids, 'shape', ()))}; add a batch "
            "dimension with .unsqueeze(0) for one sequence"
        )
    if ids.numel() and not 0 <= int(ids.min()) <= int(ids.max()) < upper:
        raise ValueError(
            f"{name} must lie in 0 .. {upper - 1} ({what}), got values from {int(ids.min())} to "
            f"{int(ids.max())}"
        )


def require_bert_inputs(
    config: BertConfig,
    input_ids: Tensor | None,
    attention_mask: Tensor | None,
    token_type_ids: Tensor | None,
    inputs_embeds: Tensor | None,
) -> None:
    """Exactly one of ``input_ids [B, T]`` and ``inputs_embeds [B, T, H]``, at most
    ``max_position_embeddings`` positions; ``attention_mask`` (1 = token, 0 = padding) and
    ``token_type_ids`` (segments) of shape ``[B, T]`` (Chapter 6, BERT).
    """
    if (input_ids is None) == (inputs_embeds is None):
        raise ValueError("pass exactly one of input_ids and inputs_embeds")
    if input_ids is not None:
        require_ids("input_ids", input_ids, config.vocab_size, "the vocabulary")
        shape = tuple(input_ids.shape)
    else:
        inputs_embeds = cast(Tensor, inputs_embeds)
        if inputs_embeds.dim() != 3 or inputs_embeds.shape[-1] != config.hidden_size:
            raise ValueError(
                f"inputs_embeds must be [B, T, {config.hidden_size}], got shape "
                f"{tuple(inputs_embeds.shape)}"
            )
        shape = tuple(inputs_embeds.shape[:2])
    if shape[1] > config.max_position_embeddings:
        raise ValueError(
            f"the input has {shape[1]} positions but the model has max_position_embeddings="
            f"{config.max_position_embeddings}: truncate it (encode(..., truncation=True))"
        )
    if token_type_ids is not None:
        require_ids("token_type_ids", token_type_ids, config.type_vocab_size, "the segments")
    for name, tensor in (("attention_mask", attention_mask), ("token_type_ids", token_type_ids)):
        if tensor is not None and tuple(tensor.shape) != shape:
            raise ValueError(
                f"{name} must have the shape of the input [B, T] = {shape}, got "
                f"{tuple(tensor.shape)}"
            )
    if attention_mask is not None and not bool(
        ((attention_mask == 0) | (attention_mask == 1)).all()
    ):
        raise ValueError(
            "attention_mask must hold 1 for real tokens and 0 for padding (the opposite of "
            "torch's key_padding_mask), got other values"
        )
