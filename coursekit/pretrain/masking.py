"""The masked language model's corruption: 15 % of the tokens, 80 / 10 / 10 (Chapter 6, BERT).

BERT hides some input tokens and learns to predict them from both sides. Every real token
(not ``[CLS]``, ``[SEP]`` or padding) is chosen with probability 15 %; a chosen token is

- replaced by ``[MASK]`` with probability 80 % (``my dog is hairy -> my dog is [MASK]``),
- replaced by a random token with probability 10 % (``-> my dog is apple``),
- left unchanged with probability 10 % (``-> my dog is hairy``),

and the model is trained to predict the original token at the chosen positions only (the
labels are -100, ignored by the cross-entropy, everywhere else). ``[MASK]`` never occurs in
fine-tuning; the random and unchanged 20 % keep the model from learning that only ``[MASK]``
positions matter, so it must build a good representation of every token. The random tokens are
1.5 % of all tokens (10 % of 15 %), too few to harm its understanding of the language.

With whole-word masking a word's pieces are chosen together (``flight ##less``: both or none),
so the model cannot guess ``##less`` from ``flight`` alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

IGNORE_INDEX = -100
"""The label of a position that is not predicted (``F.cross_entropy``'s ``ignore_index``)."""


@dataclass(frozen=True)
class MaskingRule:
    """The probabilities of the corruption: ``select`` a token (0.15), then replace a chosen
    one by ``[MASK]`` (0.8) or by a random token (0.1); the rest stays unchanged.
    """

    select: float = 0.15
    mask: float = 0.8
    random: float = 0.1

    def __post_init__(self) -> None:
        for name in ("select", "mask", "random"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} is a probability in [0, 1], got {value}")
        if self.mask + self.random > 1.0:
            raise ValueError(
                f"mask + random must be <= 1 (the rest stays unchanged), got {self.mask} + "
                f"{self.random}"
            )


def propagate_to_pieces(chosen: Tensor, word_starts: Tensor) -> Tensor:
    """Give every ``##`` piece the choice of the first piece of its word: position t takes the
    value at the last word start s <= t (Chapter 6, BERT).
    """
    positions = torch.arange(chosen.shape[-1], device=chosen.device).expand_as(chosen)
    last_start = torch.where(word_starts, positions, torch.zeros_like(positions)).cummax(-1).values
    return chosen.gather(-1, last_start)


def mask_tokens(
    input_ids: Tensor,
    maskable: Tensor,
    mask_id: int,
    random_ids: Tensor,
    generator: torch.Generator,
    rule: MaskingRule = MaskingRule(),
    word_starts: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """BERT's MLM corruption of ``input_ids [B, T]`` (Chapter 6, BERT):

        chosen_t ~ Bernoulli(0.15) where ``maskable`` (real tokens), else False,
        u_t ~ U(0, 1):
        x_t <- [MASK] if u_t < 0.8,  random id if u_t < 0.9,  x_t otherwise,
        label_t = x_t if chosen_t else -100.

    ``random_ids`` are the ids a random replacement is drawn from (uniformly); with
    ``word_starts [B, T]`` (True where a word begins) whole words are chosen. Every draw
    comes from ``generator``. Returns ``(corrupted ids, labels)``.
    """
    require_masking_arguments(input_ids, maskable, random_ids, word_starts)
    draws = torch.rand(input_ids.shape, generator=generator, device=input_ids.device)
    chosen = draws < rule.select
    if word_starts is not None:
        chosen = propagate_to_pieces(chosen, word_starts)
    chosen &= maskable
    labels = torch.where(chosen, input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    u = torch.rand(input_ids.shape, generator=generator, device=input_ids.device)
    random_index = torch.randint(
        len(random_ids), input_ids.shape, generator=generator, device=input_ids.device
    )
    replaced = torch.where(u < rule.mask, torch.full_like(input_ids, mask_id), input_ids)
    is_random = (u >= rule.mask) & (u < rule.mask + rule.random)
    random_tokens = random_ids.to(input_ids.device)[random_index]
    replaced = torch.where(is_random, random_tokens, replaced)
    return torch.where(chosen, replaced, input_ids), labels


def require_masking_arguments(
    input_ids: Tensor, maskable: Tensor, random_ids: Tensor, word_starts: Tensor | None
) -> None:
    """Ids are an integer ``[B, T]`` tensor; ``maskable`` and ``word_starts`` BoolTensors of
    its shape; at least one id to draw random replacements from.
    """
    if input_ids.dim() != 2 or input_ids.is_floating_point():
        raise ValueError(
            f"input_ids must be an integer tensor [B, T], got {tuple(input_ids.shape)}"
        )
    for name, tensor in (("maskable", maskable), ("word_starts", word_starts)):
        if tensor is not None and (tensor.dtype != torch.bool or tensor.shape != input_ids.shape):
            raise ValueError(
                f"{name} must be a BoolTensor of the shape of input_ids {tuple(input_ids.shape)}, "
                f"got {tensor.dtype} of shape {tuple(tensor.shape)}"
            )
    if random_ids.dim() != 1 or len(random_ids) == 0:
        raise ValueError("random_ids must be a non-empty 1-D tensor of token ids")
