"""Twins: our modules built equal to their production implementation, weights and all.

Chapters 2 to 5 copy a torch module (``from_torch``): our modules keep torch's parameter names,
so that ``load_state_dict`` copies the weights one to one, and the class reads the twin's
configuration to build itself. Chapters 6 and 7 copy a Hugging Face model (``from_hf``): our
modules name their parts after the book (``attention``, ``feed_forward``, ``content_bias``) and
Hugging Face after the original code (``dec_attn``, ``pos_ff``, ``r_w_bias``), so a table maps
each part of our dotted parameter names to Hugging Face's, and the same table copies the weights
and, in the tests, pairs every gradient with its twin.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar

import torch
from torch import nn

TwinT = TypeVar("TwinT", bound="TorchTwin")


class TorchTwin(nn.Module):
    """A module built equal to a torch module, its twin (Chapters 2 to 5): ``from_torch(twin)``
    rebuilds the twin's configuration with :meth:`constructor_arguments` and copies its weights,
    dtype and device. By default the constructor arguments are the twin's attributes of the same
    names (``twin_arguments``), as for torch's recurrent cells and networks; a class whose
    arguments torch stores elsewhere overrides :meth:`constructor_arguments`.
    """

    torch_class: ClassVar[type[nn.Module]]
    twin_arguments: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def constructor_arguments(cls, torch_module: Any) -> dict[str, object]:
        """The arguments that rebuild ``torch_module``'s configuration in this class."""
        return {name: getattr(torch_module, name) for name in cls.twin_arguments}

    @classmethod
    def from_torch(cls: type[TwinT], torch_module: nn.Module) -> TwinT:
        """A module with the configuration, weights, dtype and device of the torch twin."""
        if not isinstance(torch_module, cls.torch_class):
            raise TypeError(
                f"{cls.__name__}.from_torch expects a torch.nn.{cls.torch_class.__name__}, "
                f"got {type(torch_module).__name__}"
            )
        module = cls(**cls.constructor_arguments(torch_module))
        reference = next(torch_module.parameters(), None)
        if reference is not None:  # a LayerNorm without gamma and beta has nothing to copy
            module.to(dtype=reference.dtype, device=reference.device)
        module.load_state_dict(torch_module.state_dict())
        return module


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


def require_hf_class(hf_model: object, expected: str, ours: str) -> None:
    """Reject a model that is not Hugging Face's ``expected`` class (by name, so that coursekit
    never imports transformers) (Chapter 7).
    """
    if type(hf_model).__name__ != expected:
        raise TypeError(
            f"{ours}.from_hf expects a Hugging Face {expected}, got {type(hf_model).__name__}"
        )
