"""Copying the weights of a Hugging Face model into coursekit's twin (Chapter 7, Transformer-XL
and XLNet).

coursekit names the parts of a model after the book (``attention``, ``feed_forward``,
``content_bias``); Hugging Face after the original code (``dec_attn``, ``pos_ff``, ``r_w_bias``).
A table maps each part of our dotted parameter names to Hugging Face's, so that the same table
copies the weights and, in the tests, pairs every gradient with its twin.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch
from torch import nn


def hf_name(name: str, names: Mapping[str, str]) -> str:
    """Hugging Face's name of our parameter ``name``: each dotted part replaced by its entry in
    ``names`` (a part without an entry is kept), e.g. ``layers.0.attention.output.weight`` ->
    ``layers.0.dec_attn.o_net.weight`` (Chapter 7).
    """
    return ".".join(names.get(part, part) for part in name.split("."))


def paired_parameters(
    model: nn.Module, hf_model: nn.Module, names: Mapping[str, str]
) -> list[tuple[str, nn.Parameter, nn.Parameter]]:
    """``(name, ours, theirs)`` for every parameter of ``model`` and its Hugging Face twin, found
    through :func:`hf_name` (a parameter shared by several parts counts once, under its first
    name, on both sides). Raises a ValueError when a parameter of either model has no twin
    (Chapter 7).
    """
    theirs = dict(hf_model.named_parameters())
    ours = dict(model.named_parameters())
    missing = [name for name in ours if hf_name(name, names) not in theirs]
    unused = sorted(set(theirs) - {hf_name(name, names) for name in ours})
    if missing or unused:
        raise ValueError(
            f"{type(hf_model).__name__} does not match {type(model).__name__}: ours without a "
            f"Hugging Face twin {missing}, theirs without ours {unused}; build the model with "
            "from_hf, which reads the configuration"
        )
    return [(name, parameter, theirs[hf_name(name, names)]) for name, parameter in ours.items()]


def load_hf_weights(model: nn.Module, hf_model: nn.Module, names: Mapping[str, str]) -> None:
    """Move ``model`` to the dtype and device of ``hf_model``'s first parameter and copy every
    parameter of ``hf_model`` into it (:func:`paired_parameters`); a tensor that Hugging Face
    stores in another shape (XLNet's ``mask_emb [1, 1, d]``) is reshaped (Chapter 7).
    """
    reference = next(hf_model.parameters())
    model.to(dtype=reference.dtype, device=reference.device)
    with torch.no_grad():
        for _, ours, theirs in paired_parameters(model, hf_model, names):
            ours.copy_(theirs.reshape(ours.shape))


def check_hf_class(hf_model: object, expected: str, ours: str) -> None:
    """Reject a model that is not Hugging Face's ``expected`` class (by name, so that coursekit
    never imports transformers) (Chapter 7).
    """
    if type(hf_model).__name__ != expected:
        raise TypeError(
            f"{ours}.from_hf expects a Hugging Face {expected}, got {type(hf_model).__name__}"
        )
