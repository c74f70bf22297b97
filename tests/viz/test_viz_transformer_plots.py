"""The figures of Chapter 5 render with the Agg backend: one head in detail shows the chosen
query's weights over the keys, every head of a layer gets a labelled panel, and the positional
encoding's similarity curve peaks at the chosen position; wrong shapes are named.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
import torch

from coursekit.viz.transformer_plots import (
    encoding_similarity,
    plot_attention_head,
    plot_attention_heads,
    plot_positional_encoding,
)


def weights(*shape: int) -> torch.Tensor:
    scores = torch.randn(*shape, generator=torch.Generator().manual_seed(0))
    return torch.softmax(scores, dim=-1)


def test_one_head_shows_the_chosen_query_over_the_keys() -> None:
    maps = weights(3, 4)
    figure = plot_attention_head(maps, ["q0", "q1", "q2"], list("abcd"), query=1, title="t")
    heat_map, bars = figure.axes[:2]
    heights = [patch.get_height() for patch in bars.patches]
    np.testing.assert_allclose(heights, maps[1].numpy(), rtol=1e-6)
    assert [label.get_text() for label in bars.get_xticklabels()] == list("abcd")
    assert "q1" in bars.get_title() and figure._suptitle.get_text() == "t"
    assert {line.get_ydata()[0] for line in heat_map.get_lines()} == {0.5, 1.5}
    with pytest.raises(ValueError, match="query must lie in 0 .. 2"):
        plot_attention_head(maps, ["q0", "q1", "q2"], list("abcd"), query=3)


def test_six_heads_take_two_rows_of_panels_and_one_colour_bar() -> None:
    figure = plot_attention_heads(weights(6, 2, 3), ["x", "y"], ["a", "b", "c"])
    titled = [ax.get_title() for ax in figure.axes if ax.get_title()]
    assert titled == [f"head {h}" for h in range(1, 7)]
    assert len([ax for ax in figure.axes if ax.get_label() == "<colorbar>"]) == 1
    with pytest.raises(ValueError, match=r"\[heads, 2, 3\]"):
        plot_attention_heads(weights(2, 3), ["x", "y"], ["a", "b", "c"])


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
def test_the_encoding_figure_shows_the_matrix_and_a_similarity_peaked_at_the_position(
    layout: str,
) -> None:
    figure = plot_positional_encoding(d_model=32, num_positions=60, layout=layout, position=20)
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
