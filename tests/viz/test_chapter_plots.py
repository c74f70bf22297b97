"""The plots of Chapters 4 to 6 beside the attention maps (coursekit.viz.plots): BLEU by source
length draws one coloured line per model (Chapter 4), the positional encoding's similarity curve
peaks at the chosen position (Chapter 5), and the neuron view's softmax equals the attention it
explains (Chapter 6); wrong arguments are named.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
import torch
from matplotlib.colors import to_hex

from coursekit.page import TEXT_COLUMN_WIDTH
from coursekit.viz.plots.bleu import plot_bleu_by_length
from coursekit.viz.plots.neuron_view import plot_neuron_view
from coursekit.viz.plots.positional_encoding import encoding_similarity, plot_positional_encoding


def tick_labels(axis) -> list[str]:
    return [label.get_text() for label in axis.get_ticklabels()]


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


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
def test_the_encoding_figure_shows_the_matrix_and_a_similarity_peaked_at_the_position(
    layout: str,
) -> None:
    figure = plot_positional_encoding(d_model=32, num_positions=60, layout=layout, position=20)
    assert figure.get_size_inches()[0] == TEXT_COLUMN_WIDTH
    (matrix,) = [ax for ax in figure.axes if ax.get_images()]
    assert matrix.get_images()[0].get_array().shape == (32, 60) and layout in matrix.get_title()
    similarity = [ax for ax in figure.axes if ax.get_title().startswith("PE(20)")][0]
    curve = similarity.get_lines()[0].get_ydata()
    assert curve.argmax() == 20 and (curve <= 1 + 1e-12).all()
    with pytest.raises(ValueError, match="dimensions must lie in 0 .. 31"):
        plot_positional_encoding(d_model=32, dimensions=[32])


def test_similarity_is_one_at_the_position_and_the_mean_cosine_elsewhere() -> None:
    encoding = torch.tensor(
        [[0.0, 1.0, 0.0, 1.0], [np.sin(1), np.cos(1), np.sin(0.01), np.cos(0.01)]]
    )
    similarity = encoding_similarity(encoding, 0)
    torch.testing.assert_close(similarity, torch.tensor([1.0, (np.cos(1) + np.cos(0.01)) / 2]))


TOKENS = ["[CLS]", "a", "b", "[SEP]", "c", "[SEP]"]


def test_the_neuron_view_shows_the_softmax_of_the_scaled_dot_products() -> None:
    generator = torch.Generator().manual_seed(1)
    query, keys = (
        torch.randn(8, generator=generator),
        torch.randn(len(TOKENS), 8, generator=generator),
    )
    figure = plot_neuron_view(query, keys, TOKENS, query_token=2)
    assert figure.get_size_inches()[0] == TEXT_COLUMN_WIDTH
    scores_axes, softmax_axes = figure.axes[-2], figure.axes[-1]
    heights = [bar.get_width() for bar in softmax_axes.patches]
    expected = torch.softmax(keys @ query / math.sqrt(8), -1)
    torch.testing.assert_close(torch.tensor(heights, dtype=torch.float32), expected)
    scores = [bar.get_width() for bar in scores_axes.patches]
    torch.testing.assert_close(
        torch.tensor(scores, dtype=torch.float32), keys @ query / math.sqrt(8)
    )
    assert "'b'" in figure.axes[0].get_title()
    with pytest.raises(ValueError, match="query must be \\[d_k\\] and keys \\[T, d_k\\]"):
        plot_neuron_view(query, keys[:3], TOKENS, 0)
