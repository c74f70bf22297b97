"""Wrong inputs to the attention modules of Chapter 4 fail with a message that names the
argument and the fix.
"""

from __future__ import annotations

import pytest
import torch

from coursekit.models.seq2seq.attention import (
    AdditiveAttention,
    CosineAttention,
    DotAttention,
    GeneralAttention,
    LocationAttention,
)
from coursekit.models.seq2seq.local_attention import LocalAttention

B, T, S, D = 2, 3, 4, 5


def good_inputs() -> dict[str, torch.Tensor]:
    return {
        "query": torch.randn(B, T, D),
        "keys": torch.randn(B, S, D),
        "values": torch.randn(B, S, 6),
        "key_padding_mask": torch.tensor([[False] * 4, [False, False, True, True]]),
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"query": torch.randn(D)}, r"query must be a tensor of shape \[B, Dq\]"),
        ({"keys": torch.randn(S, D)}, r"keys must be a tensor of shape \[B, S, Dk\]"),
        ({"values": [[1.0]]}, "values must be a tensor .* got a list"),
        ({"keys": torch.randn(B, S, D, dtype=torch.float64)}, "keys must be floating-point with"),
        ({"query": torch.randint(0, 3, (B, T, D))}, "query must be floating-point"),
        ({"keys": torch.randn(B + 1, S, D)}, "must share the batch size, got 2, 3 and 2"),
        ({"values": torch.randn(B, S + 1, 6)}, "same number S >= 1 of source positions"),
        ({"keys": torch.randn(B, 0, D), "values": torch.randn(B, 0, 6)}, "S >= 1"),
        ({"key_padding_mask": torch.zeros(B, S)}, r"key_padding_mask must be a bool tensor"),
        ({"key_padding_mask": torch.zeros(B, S + 1, dtype=torch.bool)}, r"\[B, S\] = \[2, 4\]"),
        (
            {"key_padding_mask": torch.tensor([[False] * 4, [True] * 4])},
            r"masks every key of batch rows \[1\]",
        ),
    ],
)  # fmt: skip
def test_wrong_inputs_are_named(change: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        DotAttention()(**{**good_inputs(), **change})


def test_sizes_must_match_what_the_module_was_built_for() -> None:
    inputs = good_inputs()
    with pytest.raises(
        ValueError, match="GeneralAttention was built for query of size 7, got query with 5"
    ):
        GeneralAttention(7, D)(**inputs)
    with pytest.raises(ValueError, match="AdditiveAttention was built for keys of size 3"):
        AdditiveAttention(D, 3, 4)(**inputs)
    inputs["keys"] = torch.randn(B, S, D + 1)
    for module in (DotAttention(), CosineAttention()):
        with pytest.raises(ValueError, match="need the same size, got query size 5 and key size 6"):
            module(**inputs)
    with pytest.raises(ValueError, match="max_source_length=3 positions, got keys with S=4"):
        LocationAttention(D, max_source_length=3)(**good_inputs())


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"half_width": 0}, "half_width D must be a positive integer"),
        ({"half_width": 1, "mode": "global"}, "mode must be one of"),
        ({"half_width": 1, "mode": "predictive"}, "give query_size .* and hidden_size"),
    ],
)
def test_local_attention_arguments_are_checked(arguments: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        LocalAttention(DotAttention(), **arguments)


def test_monotonic_local_attention_needs_the_step_of_a_one_step_query() -> None:
    inputs = {**good_inputs(), "query": torch.randn(B, D)}
    module = LocalAttention(DotAttention(), half_width=1)
    with pytest.raises(ValueError, match="pass the target step of a one-step query"):
        module(**inputs)
    for step in (-1, 1.5, torch.tensor([1, 2, 3])):
        with pytest.raises(
            ValueError, match=r"step must be an int >= 0 or a LongTensor \[B\] = \[2\]"
        ):
            module(**inputs, step=step)


def test_cosine_strength_must_be_positive() -> None:
    with pytest.raises(ValueError, match="strength .* must be a finite number > 0"):
        CosineAttention(strength=0.0)
