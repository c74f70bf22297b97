"""Producing text with a trained model: sampling (Chapter 2), greedy decoding and beam search
(Chapter 4).

:mod:`~coursekit.generate.sampling` draws tokens from a language model (temperature, top-k,
top-p); :mod:`~coursekit.generate.search` (greedy decoding and beam search) looks for the most
probable output of a conditional model, through any ``step(tokens, state)`` function
(:mod:`~coursekit.generate.step`).
"""

from __future__ import annotations

from coursekit.generate.sampling import (
    choose_greedy,
    generate,
    require_logits,
    require_sampling_arguments,
    sample_next_token,
    sampling_distribution,
    top_k_filter,
    top_p_filter,
)
from coursekit.generate.search import (
    BeamStep,
    beam_search,
    beam_step,
    gnmt_length_penalty,
    greedy_decode,
)
from coursekit.generate.step import (
    DecodingStep,
    Hypothesis,
    NestedTensors,
    reorder_state,
    repeat_state,
)

__all__ = [
    "BeamStep",
    "DecodingStep",
    "Hypothesis",
    "NestedTensors",
    "beam_search",
    "beam_step",
    "require_logits",
    "require_sampling_arguments",
    "choose_greedy",
    "generate",
    "gnmt_length_penalty",
    "greedy_decode",
    "reorder_state",
    "repeat_state",
    "sample_next_token",
    "sampling_distribution",
    "top_k_filter",
    "top_p_filter",
]
