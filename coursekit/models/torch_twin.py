"""Modules built equal to a torch module, their *twin* (Chapters 2-5): read the twin's
configuration, build the same module on the twin's dtype and device, and copy its weights.

The modules keep torch's parameter names, so ``load_state_dict`` copies the weights one to one.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from torch import nn

ModuleT = TypeVar("ModuleT", bound=nn.Module)


def copy_of_torch_module(cls: type[ModuleT], torch_module: nn.Module) -> ModuleT:
    """A ``cls`` built with the configuration of its torch twin ``torch_module`` (read by
    ``cls.constructor_arguments``), on the twin's dtype and device, holding a copy of its weights.
    """
    twin: Any = cls  # a module class with ``torch_class`` and ``constructor_arguments``
    if not isinstance(torch_module, twin.torch_class):
        raise TypeError(
            f"{cls.__name__}.from_torch expects a torch.nn.{twin.torch_class.__name__}, "
            f"got {type(torch_module).__name__}"
        )
    module = cls(**twin.constructor_arguments(torch_module))
    reference = next(torch_module.parameters())
    module.to(dtype=reference.dtype, device=reference.device)
    module.load_state_dict(torch_module.state_dict())
    return module


class TorchTwin(nn.Module):
    """A module whose constructor arguments are attributes of the same names on its torch twin
    (``twin_arguments``), as for torch's recurrent cells and networks: ``from_torch(twin)``
    rebuilds the twin's configuration and copies its weights.
    """

    torch_class: ClassVar[type[nn.Module]]
    twin_arguments: ClassVar[tuple[str, ...]]

    @classmethod
    def constructor_arguments(cls, torch_module: nn.Module) -> dict[str, object]:
        """The arguments that rebuild ``torch_module``'s configuration in this class."""
        return {name: getattr(torch_module, name) for name in cls.twin_arguments}

    @classmethod
    def from_torch(cls: type[ModuleT], torch_module: nn.Module) -> ModuleT:
        """A module with the configuration, weights, dtype and device of the torch twin."""
        return copy_of_torch_module(cls, torch_module)
