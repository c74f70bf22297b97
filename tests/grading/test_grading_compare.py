"""compare(): assert_close semantics, readable messages, and no trust in the answer object."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch

from coursekit.grading import compare


def test_equal_values_of_every_supported_kind_match() -> None:
    value = {
        "ids": torch.arange(6).reshape(2, 3),
        "mask": torch.tensor([True, False]),
        "scores": torch.linspace(0, 1, 5, dtype=torch.float64),
        "count": 3,
        "flag": True,
        "ratio": 0.25,
        "word": "cat",
        "nothing": None,
        "nested": [("a", 1), ["b", 2.5]],
    }
    assert compare(value, value) is None


def test_shape_mismatch_message() -> None:
    message = compare(torch.zeros(2, 5), torch.zeros(5, 2))
    assert message == "shape mismatch: expected (2, 5), got (5, 2)"


def test_dtype_mismatch_message() -> None:
    message = compare(torch.zeros(3, dtype=torch.int64), torch.zeros(3, dtype=torch.float32))
    assert message == "dtype mismatch: expected torch.int64, got torch.float32"


def test_value_mismatch_counts_elements_and_locates_the_largest_difference() -> None:
    expected = torch.zeros(2, 5)
    actual = expected.clone()
    actual[0, 0], actual[1, 2], actual[1, 4] = 0.1, 0.5, -0.25
    message = compare(expected, actual)
    assert message is not None
    assert message.startswith(
        "3 of 10 elements differ; largest absolute difference 0.5 at index (1, 2)"
    )
    assert "(expected 0, got 0.5)" in message


def test_integer_and_bool_tensors_are_compared_exactly() -> None:
    assert compare(torch.tensor([1, 2, 3]), torch.tensor([1, 2, 4])) == (
        "1 of 3 elements differs; largest absolute difference 1 at index (2,) (expected 3, got 4)"
    )
    message = compare(torch.tensor([[True, False]]), torch.tensor([[True, True]]))
    assert message == "1 of 2 elements differs; first at index (0, 1) (expected False, got True)"


def test_nested_containers_report_the_path_to_the_difference() -> None:
    expected = [0, {"tokens": torch.zeros(2, 5), "length": 5}]
    actual = [0, {"tokens": torch.zeros(5, 2), "length": 5}]
    assert compare(expected, actual) == "[1]['tokens']: shape mismatch: expected (2, 5), got (5, 2)"
    actual = [0, {"tokens": torch.zeros(2, 5), "length": 4}]
    assert compare(expected, actual) == "[1]['length']: expected 5, got 4"


def test_container_shape_messages() -> None:
    assert compare([1, 2, 3], [1, 2]) == "expected 3 items, got 2"
    assert compare({"a": 1, "b": 2}, {"a": 1}) == "missing keys 'b'"
    assert compare({"a": 1}, {"a": 1, "c": 3}) == "unexpected keys 'c'"
    assert compare([1, 2], "12") == "expected a list of 2 items, got str '12'"
    assert compare(None, 0) == "expected None, got int 0"


def test_lists_and_tuples_are_interchangeable() -> None:
    assert compare((torch.ones(2), [1, 2]), [torch.ones(2), (1, 2)]) is None


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("scale", [0.0, 1e-9, 1e-7, 1e-6, 1e-5, 1e-4, 1e-2])
def test_tolerance_agrees_with_torch_testing_assert_close(dtype: torch.dtype, scale: float) -> None:
    generator = torch.Generator().manual_seed(0)
    expected = torch.randn(4, 6, generator=generator, dtype=dtype)
    actual = expected + scale * torch.randn(4, 6, generator=generator, dtype=dtype)
    try:
        torch.testing.assert_close(actual, expected)
        torch_says_close = True
    except AssertionError:
        torch_says_close = False
    assert (compare(expected, actual) is None) == torch_says_close


def test_explicit_tolerances_apply_to_tensors_and_floats() -> None:
    assert compare(torch.tensor([1.0]), torch.tensor([1.01])) is not None
    assert compare(torch.tensor([1.0]), torch.tensor([1.01]), rtol=0.02, atol=0.0) is None
    assert compare(1.0, 1.01, rtol=0.02, atol=0.0) is None
    assert compare(1.0, 1.03, rtol=0.02, atol=0.0) == "expected 1, got 1.03 (difference 0.03)"


def test_nan_matches_nan() -> None:
    assert compare(torch.tensor([math.nan, 1.0]), torch.tensor([math.nan, 1.0])) is None
    assert compare(math.nan, math.nan) is None
    assert compare(torch.tensor([math.nan]), torch.tensor([0.0])) is not None


def test_scalars_accept_numbers_of_the_right_kind_only() -> None:
    assert compare(3, np.int64(3)) is None
    assert compare(3, torch.tensor(3)) is None
    assert compare(0.5, torch.tensor(0.5, dtype=torch.float64)) is None
    assert compare(0.5, np.float32(0.5)) is None
    assert compare(1.0, 1) is None
    assert compare(1, True) == "expected an int, got bool True"
    assert compare(True, 1) == "expected a bool, got int 1"
    assert compare(1, 1.0) == "expected an int, got float 1"
    assert compare("cat", "Cat") == "expected 'cat', got 'Cat'"
    assert compare(2.0, torch.tensor([2.0])) == (
        "expected a float, got a torch.Tensor; return a single number (e.g. with .item())"
    )


def test_a_list_where_a_tensor_is_expected_gets_a_hint() -> None:
    assert compare(torch.tensor([1, 2]), [1, 2]) == (
        "expected a torch.Tensor, got list; convert it with torch.tensor(...)"
    )


class AlwaysEqual:
    """An answer that claims to equal everything."""

    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    __hash__ = None  # type: ignore[assignment]


@pytest.mark.parametrize(
    "expected", [3, 0.5, True, "cat", None, [1, 2], {"a": 1}, torch.zeros(2)], ids=repr
)
def test_an_object_equal_to_everything_never_passes(expected: Any) -> None:
    assert compare(expected, AlwaysEqual()) is not None


def test_a_parameter_is_compared_as_the_tensor_it_holds() -> None:
    assert compare(torch.zeros(2, 3), torch.nn.Parameter(torch.zeros(2, 3))) is None
    assert compare(torch.zeros(2, 3), torch.nn.Parameter(torch.ones(2, 3))) is not None


def test_tensors_that_require_grad_are_compared_by_value() -> None:
    actual = torch.zeros(3, requires_grad=True)
    assert compare(torch.zeros(3), actual) is None


def test_unsupported_reference_types_are_a_question_bug() -> None:
    with pytest.raises(TypeError, match="cannot compare reference values of type set"):
        compare({1, 2}, {1, 2})


def test_equal_infinities_match_and_opposite_ones_do_not() -> None:
    assert compare(math.inf, math.inf, rtol=0, atol=0) is None
    assert compare(-math.inf, -math.inf) is None
    assert compare(math.inf, -math.inf) is not None
    assert compare(math.inf, 1e308) is not None


def test_a_named_tuple_message_names_the_items_that_match() -> None:
    expected = (torch.ones(2), torch.zeros(3), torch.tensor([1, 2]))
    one_wrong = (torch.ones(2), torch.ones(3), torch.tensor([1, 2]))
    message = compare(expected, one_wrong, names=("weights", "context", "ids"))
    assert message is not None
    assert message.startswith("context: ")
    assert message.endswith("(right: weights, ids)")
    all_wrong = (torch.zeros(2), torch.ones(3), torch.tensor([2, 1]))
    message = compare(expected, all_wrong, names=("weights", "context", "ids"))
    assert message is not None
    assert "right:" not in message
    assert compare(expected, expected, names=("weights", "context", "ids")) is None
