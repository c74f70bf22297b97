"""The attention figures of Chapter 4 render with the Agg backend and label their axes with the
tokens and models they were given.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
import torch
from matplotlib.colors import to_hex

from coursekit.viz.attention import (
    plot_attention,
    plot_attention_models,
    plot_attention_step,
    plot_bleu_by_length,
)
from coursekit.viz.drawing import TEXT_COLUMN_WIDTH


def tick_labels(axis) -> list[str]:
    return [label.get_text() for label in axis.get_ticklabels()]


def random_weights(rows: int, columns: int) -> torch.Tensor:
    return torch.softmax(torch.randn(rows, columns, generator=torch.Generator().manual_seed(0)), -1)


def test_heat_map_of_20_by_20_tokens_labels_both_axes_and_has_a_colour_bar() -> None:
    source = [f"src{i}" for i in range(20)]
    target = [f"tgt{i}" for i in range(20)]
    weights = random_weights(20, 20)
    ax = plot_attention(weights, source, target, title="fr -> en")
    ax.figure.canvas.draw()
    assert tick_labels(ax.xaxis) == source and tick_labels(ax.yaxis) == target
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title() == "fr -> en"
    colour_bar = [other for other in ax.figure.axes if other is not ax]
    assert len(colour_bar) == 1 and "attention weight" in colour_bar[0].get_ylabel()
    assert r"$\alpha_{t,j}$" in colour_bar[0].get_ylabel()  # mathtext, not the raw name
    image = ax.get_images()[0]
    np.testing.assert_allclose(image.get_array(), weights.numpy(), rtol=1e-6)
    assert image.get_clim() == (0.0, 1.0)
    width, height = ax.figure.get_size_inches()
    assert width / 20 >= 0.3 and height / 20 >= 0.3  # a cell per token stays readable


def test_heat_map_rejects_weights_that_do_not_match_the_tokens() -> None:
    with pytest.raises(
        ValueError, match=r"\[len\(target_tokens\), len\(source_tokens\)\] = \[2, 3\]"
    ):
        plot_attention(np.ones((3, 2)), ["a", "b", "c"], ["x", "y"])


def test_step_figure_frames_the_row_and_draws_its_weights() -> None:
    weights = random_weights(3, 4)
    figure = plot_attention_step(weights, ["a", "b", "c", "d"], ["x", "y", "z"], step=1)
    figure.canvas.draw()
    heat_map, bars = figure.axes[0], figure.axes[1]
    frame = heat_map.patches[-1]
    assert frame.get_y() == pytest.approx(0.5) and frame.get_width() == 4
    np.testing.assert_allclose(
        [bar.get_height() for bar in bars.patches], weights[1].numpy(), rtol=1e-6
    )
    assert tick_labels(bars.xaxis) == ["a", "b", "c", "d"]
    assert "'y'" in bars.get_title()
    with pytest.raises(ValueError, match="step must lie in 0 .. 2"):
        plot_attention_step(weights, ["a", "b", "c", "d"], ["x", "y", "z"], step=3)


def test_models_side_by_side_each_get_their_own_output_tokens() -> None:
    figure = plot_attention_models(
        {"bahdanau": random_weights(2, 3), "luong": random_weights(4, 3)},
        ["a", "b", "c"],
        {"bahdanau": ["x", "y"], "luong": ["p", "q", "r", "s"]},
    )
    figure.canvas.draw()
    maps = [ax for ax in figure.axes if ax.get_images()]
    assert [ax.get_title() for ax in maps] == ["bahdanau", "luong"]
    assert tick_labels(maps[1].yaxis) == ["p", "q", "r", "s"]
    assert len(figure.axes) == len(maps) + 1, "one colour bar for every model"


def test_three_heat_maps_of_12_tokens_fit_the_book_column_on_two_rows() -> None:
    source = [f"s{i}" for i in range(12)]
    names = ("a", "b", "c")
    figure = plot_attention_models(
        {name: random_weights(10, 12) for name in names},
        source,
        {name: [f"t{i}" for i in range(10)] for name in names},
    )
    width, _ = figure.get_size_inches()
    assert width <= TEXT_COLUMN_WIDTH
    figure.canvas.draw()
    maps = [ax for ax in figure.axes if ax.get_images()]
    assert [ax.get_title() for ax in maps] == list(names)
    assert [tick_labels(ax.xaxis) for ax in maps] == [source] * 3
    rows = {round(ax.get_position().y0, 2) for ax in maps}
    assert len(rows) == 2, "two maps per row, shrunk to about 60 %: three would be 41 %"
    assert len(figure.axes) == len(maps) + 1, "one colour bar for every model"
    cell = maps[0].get_window_extent().width / figure.dpi / len(source)
    assert cell >= 0.5 * 0.32 * 0.9  # at most shrunk by half, give or take the layout


def test_bleu_by_length_draws_one_coloured_line_per_model_with_a_legend() -> None:
    buckets = ["1-10", "11-20", "21-30", "31+"]
    scores = {"no attention": [40.0, 25.0, 10.0, 3.0], "Bahdanau": [45.0, 41.0, 38.0, 35.0]}
    ax = plot_bleu_by_length(
        buckets, scores, colors={"no attention": "#777777", "Bahdanau": "#1f77b4"}
    )
    ax.figure.canvas.draw()
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == list(scores)
    assert [to_hex(line.get_color()) for line in lines] == ["#777777", "#1f77b4"]
    assert [list(line.get_ydata()) for line in lines] == list(scores.values())
    assert tick_labels(ax.xaxis) == buckets
    assert ax.get_xlabel() == "source length (tokens)" and ax.get_ylabel() == "BLEU"
    assert [text.get_text() for text in ax.get_legend().get_texts()] == list(scores)
    default = plot_bleu_by_length(buckets, scores)
    assert len({line.get_color() for line in default.get_lines()}) == 2
    with pytest.raises(ValueError, match="has 2 scores for 4 buckets"):
        plot_bleu_by_length(buckets, {"model": [1.0, 2.0]})
