"""The one attention map of Chapters 4 to 6 (coursekit.viz.plots.heat_map): its tick rule labels
every token while labels of at least 6 pt fit the side, every k-th token beyond; the map shows
the weights from 0 to 1 with the tokens it was given, and rejects weights of another shape.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from coursekit.viz.plots.heat_map import (
    LABEL_PITCH,
    LARGEST_LABEL,
    SMALLEST_LABEL,
    as_matrix,
    draw_heat_map,
    token_ticks,
)

SIDE = 3.0  # inches: the side of a map in the explorers' step figure


def tokens(count: int) -> list[str]:
    return [f"w{i}" for i in range(count)]


def test_five_tokens_are_all_labelled_in_the_largest_size() -> None:
    ticks = token_ticks(tokens(5), SIDE)
    assert ticks.positions == [0, 1, 2, 3, 4] and ticks.labels == tokens(5)
    assert ticks.font_size == LARGEST_LABEL


def test_twenty_tokens_are_all_labelled_in_a_smaller_size() -> None:
    ticks = token_ticks(tokens(20), SIDE)
    assert ticks.positions == list(range(20)) and ticks.labels == tokens(20)
    assert ticks.font_size == 8  # 10.8 pt per token: 8 pt labels, a quarter apart


def test_sixty_tokens_label_every_third_token_in_the_smallest_size() -> None:
    ticks = token_ticks(tokens(60), SIDE)
    assert ticks.font_size == SMALLEST_LABEL
    assert ticks.positions == list(range(0, 60, 3))  # 3.6 pt per token, 7.5 pt per label
    assert ticks.labels == [f"w{i}" for i in range(0, 60, 3)]


@pytest.mark.parametrize("count", [1, 5, 12, 20, 24, 60, 200])
@pytest.mark.parametrize("side", [0.5, 1.4, 3.0, 6.4])
def test_labels_never_crowd_and_a_token_goes_unlabelled_only_for_lack_of_room(
    count: int, side: float
) -> None:
    ticks = token_ticks(tokens(count), side)
    pitch = 72.0 * side / count
    step = ticks.positions[1] - ticks.positions[0] if len(ticks.positions) > 1 else 1
    assert SMALLEST_LABEL <= ticks.font_size <= LARGEST_LABEL
    assert ticks.positions[0] == 0
    if len(ticks.positions) > 1:
        assert step * pitch >= ticks.font_size * LABEL_PITCH - 1e-9  # labels do not overlap
    if step > 1:  # one token fewer between labels would crowd them even at the smallest size
        assert (step - 1) * pitch < SMALLEST_LABEL * LABEL_PITCH


def test_the_map_shows_the_weights_from_zero_to_one_with_square_cells_and_the_tokens() -> None:
    weights = torch.softmax(torch.randn(3, 4, generator=torch.Generator().manual_seed(0)), -1)
    ax = Figure().subplots()
    image = draw_heat_map(ax, weights, ["x", "y", "z"], list("abcd"))
    np.testing.assert_allclose(image.get_array(), weights.numpy(), rtol=1e-6)
    assert image.get_clim() == (0.0, 1.0) and ax.get_aspect() == 1.0
    assert [label.get_text() for label in ax.get_xticklabels()] == list("abcd")
    assert [label.get_text() for label in ax.get_yticklabels()] == ["x", "y", "z"]


def test_a_side_left_bare_has_no_labels() -> None:
    ax = Figure().subplots()
    draw_heat_map(ax, np.full((2, 2), 0.5), ["x", "y"], ["a", "b"], label_rows=False)
    assert list(ax.get_yticks()) == [] and len(ax.get_xticks()) == 2


def test_weights_of_another_shape_are_rejected_with_the_shape_expected() -> None:
    with pytest.raises(ValueError, match=r"\[len\(query_tokens\), len\(key_tokens\)\] = \[2, 3\]"):
        as_matrix(np.ones((3, 2)), 2, 3)
    with pytest.raises(ValueError, match=r"= \[2, 3\]"):
        draw_heat_map(Figure().subplots(), np.ones((3, 2)), ["x", "y"], ["a", "b", "c"])
