"""The attention figures of Chapters 4 to 6 (coursekit.viz.plots): translation models side by side
in the text column (Chapter 4), one row of a map in detail in the words of its chapter (the
explorers of Chapters 4 to 6), and the grid of every head of one layer or of every layer
(Chapters 5 and 6), each map drawn by the one heat map with its tick rule.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from coursekit.page import TEXT_COLUMN_WIDTH
from coursekit.viz.plots.attention_heads import plot_attention_heads
from coursekit.viz.plots.attention_models import plot_attention_models
from coursekit.viz.plots.attention_step import plot_attention_step
from coursekit.viz.plots.heat_map import TRANSLATION


def tick_labels(axis) -> list[str]:
    return [label.get_text() for label in axis.get_ticklabels()]


def weights(*shape: int) -> torch.Tensor:
    scores = torch.randn(*shape, generator=torch.Generator().manual_seed(0))
    return torch.softmax(scores, dim=-1)


def heat_maps(figure: Figure) -> list[Axes]:
    return [ax for ax in figure.axes if ax.get_images() and ax.get_label() != "<colorbar>"]


def colour_bars(figure: Figure) -> list[Axes]:
    return [ax for ax in figure.axes if ax.get_label() == "<colorbar>"]


def test_one_model_of_20_by_20_tokens_fits_the_column_and_labels_every_token() -> None:
    source, target = [f"src{i}" for i in range(20)], [f"tgt{i}" for i in range(20)]
    maps = weights(20, 20)
    figure = plot_attention_models({"Bahdanau": maps}, source, {"Bahdanau": target})
    figure.canvas.draw()
    (ax,) = heat_maps(figure)
    assert tick_labels(ax.xaxis) == source and tick_labels(ax.yaxis) == target
    assert (ax.get_xlabel(), ax.get_ylabel()) == (TRANSLATION.key, TRANSLATION.query)
    (bar,) = colour_bars(figure)
    assert r"attention weight $\alpha_{t,j}$" in bar.get_ylabel()  # mathtext, not the raw name
    np.testing.assert_allclose(ax.get_images()[0].get_array(), maps.numpy(), rtol=1e-6)
    assert figure.get_size_inches()[0] <= TEXT_COLUMN_WIDTH
    cell = ax.get_window_extent().width / figure.dpi / len(source)
    assert cell >= 0.2  # shrunk into the column, a cell per token stays readable


def test_models_side_by_side_each_get_their_own_output_tokens() -> None:
    figure = plot_attention_models(
        {"bahdanau": weights(2, 3), "luong": weights(4, 3)},
        ["a", "b", "c"],
        {"bahdanau": ["x", "y"], "luong": ["p", "q", "r", "s"]},
    )
    figure.canvas.draw()
    maps = heat_maps(figure)
    assert [ax.get_title() for ax in maps] == ["bahdanau", "luong"]
    assert tick_labels(maps[1].yaxis) == ["p", "q", "r", "s"]
    assert len(colour_bars(figure)) == 1, "one colour bar for every model"


def test_three_maps_of_12_tokens_fit_the_book_column_on_two_rows() -> None:
    source = [f"s{i}" for i in range(12)]
    names = ("a", "b", "c")
    figure = plot_attention_models(
        {name: weights(10, 12) for name in names},
        source,
        {name: [f"t{i}" for i in range(10)] for name in names},
    )
    assert figure.get_size_inches()[0] <= TEXT_COLUMN_WIDTH
    figure.canvas.draw()
    maps = heat_maps(figure)
    assert [ax.get_title() for ax in maps] == list(names)
    assert [tick_labels(ax.xaxis) for ax in maps] == [source] * 3
    assert len({round(ax.get_position().y0, 2) for ax in maps}) == 2, "two maps per row"
    assert len(colour_bars(figure)) == 1
    cell = maps[0].get_window_extent().width / figure.dpi / len(source)
    assert cell >= 0.5 * 0.32 * 0.9  # at most shrunk by half, give or take the layout


def test_a_decoding_step_frames_its_row_and_draws_its_weights_over_the_source() -> None:
    maps = weights(3, 4)
    figure = plot_attention_step(
        maps, ["x", "y", "z"], ["a", "b", "c", "d"], 1, roles=TRANSLATION, title="Bahdanau"
    )
    figure.canvas.draw()
    heat_map, bars = figure.axes[:2]
    (frame,) = heat_map.patches
    assert (frame.get_x(), frame.get_y(), frame.get_width(), frame.get_height()) == (
        -0.5, 0.5, 4, 1,
    )  # fmt: skip
    np.testing.assert_allclose([bar.get_height() for bar in bars.patches], maps[1], rtol=1e-6)
    assert tick_labels(bars.xaxis) == tick_labels(heat_map.xaxis) == ["a", "b", "c", "d"]
    assert bars.get_title() == "step 1: producing 'y'" and bars.get_ylim() == (0.0, 1.0)
    assert heat_map.get_ylabel() == TRANSLATION.query and figure.get_suptitle() == "Bahdanau"
    assert figure.get_size_inches()[0] == TEXT_COLUMN_WIDTH
    with pytest.raises(ValueError, match="query must lie in 0 .. 2"):
        plot_attention_step(maps, ["x", "y", "z"], list("abcd"), 3)


def test_a_query_of_a_head_is_titled_with_its_token_and_position() -> None:
    figure = plot_attention_step(weights(3, 4), ["q0", "q1", "q2"], list("abcd"), 2)
    heat_map, bars = figure.axes[:2]
    assert bars.get_title() == "query 'q2' (position 2)"
    assert "query" in heat_map.get_ylabel() and "key" in heat_map.get_xlabel()


def test_six_heads_of_one_layer_take_two_rows_labelled_on_the_outside() -> None:
    figure = plot_attention_heads(weights(1, 6, 2, 3), ["x", "y"], ["a", "b", "c"], 2, "toy")
    figure.canvas.draw()
    maps = heat_maps(figure)
    assert [ax.get_title() for ax in maps] == [f"head {h}" for h in range(1, 7)]
    assert figure.get_suptitle() == "toy, layer 2" and len(colour_bars(figure)) == 1
    labelled_rows = [bool(tick_labels(ax.yaxis)) for ax in maps]
    labelled_columns = [bool(tick_labels(ax.xaxis)) for ax in maps]
    assert labelled_rows == [True, False, False, False, True, False]  # four to a row
    assert labelled_columns == [False, False, True, True, True, True]  # the lowest in a column
    assert figure.get_size_inches()[0] <= TEXT_COLUMN_WIDTH


def test_every_layer_takes_a_row_of_its_heads() -> None:
    maps = weights(3, 2, 4, 4)
    figure = plot_attention_heads(maps, list("abcd"), list("abcd"))
    shown = heat_maps(figure)
    assert [ax.get_title() for ax in shown] == [
        f"layer {layer}, head {head}" for layer in (1, 2, 3) for head in (1, 2)
    ]
    np.testing.assert_allclose(shown[3].get_images()[0].get_array(), maps[1, 1], rtol=1e-6)
    assert figure.get_suptitle() == ""


def test_head_maps_of_another_shape_are_rejected_with_the_shape_expected() -> None:
    with pytest.raises(ValueError, match=r"\[layers, heads, 2, 3\]"):
        plot_attention_heads(weights(2, 2, 3), ["x", "y"], ["a", "b", "c"])
