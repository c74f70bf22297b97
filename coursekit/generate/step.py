"""What greedy decoding and beam search share: the step protocol, the state and the hypotheses
(Chapter 4, Seq2seq and attention).

A decoder, seen from a search, is one function: ``step(tokens [N], state) -> (log_probs [N, V],
state)`` returns log P(y_t = v | y_<t, x) for each of N partial outputs whose last tokens are
``tokens``. The state is whatever the model carries from step to step (a recurrent state, the
encoder's memory), a tensor or a nested tuple/list of tensors, each with the N rows first, so that
a search can copy rows (one per beam) and reorder them (when a beam continues another's prefix).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, Protocol, TypeAlias

from torch import Tensor

from coursekit.arguments import require_non_negative_int, require_positive_int

NestedTensors: TypeAlias = Tensor | None | tuple["NestedTensors", ...] | list["NestedTensors"]


class DecodingStep(Protocol):
    """One step of a decoder: log P(y_t | y_<t, x) for N rows and the state after the step.

    ``tokens`` is ``[N]`` (the previous token y_{t-1} of each row); ``log_probs`` is ``[N, V]``;
    every tensor of ``state`` has its N rows first.
    """

    def __call__(self, tokens: Tensor, state: NestedTensors) -> tuple[Tensor, NestedTensors]: ...


class Hypothesis(NamedTuple):
    """One output of a search: ``tokens`` (without bos; with eos when the model produced it) and
    its ``score``, the sum of log P(y_t | y_<t, x) over the tokens, divided by the length
    penalty for beam search (Chapter 4).
    """

    tokens: list[int]
    score: float


def map_state(function: Callable[[Tensor], Tensor], state: NestedTensors) -> NestedTensors:
    """``state`` with ``function`` applied to each tensor; tuples (named tuples too) and lists
    keep their type and None stays None.
    """
    if state is None:
        return None
    if isinstance(state, Tensor):
        return function(state)
    if isinstance(state, tuple) and hasattr(state, "_fields"):
        named_tuple: Any = type(state)  # built from its fields, not from one iterable
        return named_tuple(*(map_state(function, part) for part in state))
    if isinstance(state, (tuple, list)):
        return type(state)(map_state(function, part) for part in state)
    raise TypeError(
        "a decoder state must be a tensor, None or a (nested) tuple or list of them, got "
        f"{type(state).__name__}; wrap other objects in the step function's closure instead"
    )


def reorder_state(state: NestedTensors, rows: Tensor) -> NestedTensors:
    """Row i of the new state is row ``rows[i]`` of the old one, in every tensor (dimension 0)."""
    return map_state(lambda tensor: tensor.index_select(0, rows), state)


def repeat_state(state: NestedTensors, copies: int) -> NestedTensors:
    """Each row repeated ``copies`` times in place: rows ``b*k .. b*k + k - 1`` are copies of b."""
    return map_state(lambda tensor: tensor.repeat_interleave(copies, dim=0), state)


def require_decoding_arguments(state: NestedTensors, bos: Tensor, eos: int, max_len: int) -> None:
    """Reject a ``bos`` that is not ``[B]`` integers, a state whose tensors do not have B rows
    first, a negative ``eos`` and a ``max_len`` below 1.
    """
    if not isinstance(bos, Tensor) or bos.dim() != 1 or bos.is_floating_point():
        shape = tuple(bos.shape) if isinstance(bos, Tensor) else type(bos).__name__
        raise ValueError(
            f"bos must be a [B] tensor of integer token ids (one start token per input), got "
            f"{shape}; for one input use torch.tensor([bos_id])"
        )
    batch_size = bos.shape[0]

    def require_rows(tensor: Tensor) -> Tensor:
        if tensor.dim() == 0 or tensor.shape[0] != batch_size:
            raise ValueError(
                f"every tensor of the decoder state must have the batch ({batch_size} rows, as "
                f"bos) as its first dimension, got a tensor of shape {tuple(tensor.shape)}; "
                "transpose recurrent states [layers, B, H] to [B, layers, H]"
            )
        return tensor

    map_state(require_rows, state)
    require_non_negative_int("eos", eos)
    require_positive_int("max_len", max_len)


def checked_step(step: DecodingStep, rows: int) -> DecodingStep:
    """``step``, with its log-probabilities checked to be floating-point ``[rows, V]``."""

    def checked(tokens: Tensor, state: NestedTensors) -> tuple[Tensor, NestedTensors]:
        log_probs, new_state = step(tokens, state)
        if (
            not isinstance(log_probs, Tensor)
            or log_probs.shape[:1] != (rows,)
            or log_probs.dim() != 2
            or not log_probs.is_floating_point()
        ):
            shape = tuple(log_probs.shape) if isinstance(log_probs, Tensor) else log_probs
            raise ValueError(
                f"step must return log-probabilities of shape [N, V] = [{rows}, V] (one row per "
                f"token it was given), got {shape}"
            )
        return log_probs, new_state

    return checked


def as_hypotheses(tokens: Tensor, lengths: Tensor, scores: Tensor) -> list[Hypothesis]:
    """``Hypothesis(tokens[i, :lengths[i]], scores[i])`` for each row of ``tokens [R, L]``."""
    return [
        Hypothesis(row[:length], score)
        for row, length, score in zip(
            tokens.tolist(), lengths.tolist(), scores.tolist(), strict=True
        )
    ]


def checked_search(
    step: DecodingStep,
    state: NestedTensors,
    bos: Tensor,
    eos: int,
    max_len: int,
    beam_size: int = 1,
) -> DecodingStep:
    """Check a search's arguments (:func:`require_decoding_arguments`) and return ``step`` with
    its output checked for ``B * beam_size`` rows (:func:`checked_step`).
    """
    require_decoding_arguments(state, bos, eos, max_len)
    return checked_step(step, bos.shape[0] * beam_size)
