"""The head explorer of Chapter 6 and the attention figures it draws (coursekit.viz.bert_attention):
a static grid of every head outside a live kernel, sliders that redraw the chosen head inside
one, and the neuron view's softmax equal to the attention it explains.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import ipywidgets
import pytest
import torch
from matplotlib.figure import Figure

from coursekit.viz.bert_attention import plot_head, plot_heads, plot_neuron_view
from coursekit.widgets import heads as explorer_module
from coursekit.widgets.base import live_kernel
from coursekit.widgets.heads import head_explorer

TOKENS = ["[CLS]", "a", "b", "[SEP]", "c", "[SEP]"]


def random_attentions(layers: int = 3, heads: int = 2) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(0)
    return [
        torch.softmax(torch.randn(heads, len(TOKENS), len(TOKENS), generator=generator), -1)
        for _ in range(layers)
    ]


def test_outside_a_kernel_the_explorer_is_the_grid_of_every_head() -> None:
    assert not live_kernel()
    figure = head_explorer(random_attentions(), TOKENS)
    assert isinstance(figure, Figure)
    maps = [ax for ax in figure.axes if ax.get_images()]
    assert [ax.get_title() for ax in maps][:3] == [
        "layer 1, head 1",
        "layer 1, head 2",
        "layer 2, head 1",
    ]
    assert len(maps) == 6


def test_the_widget_redraws_the_chosen_layer_and_head(monkeypatch) -> None:
    attentions = random_attentions()
    drawn = []

    def record(weights, tokens, ax=None, title=None, labels=True):
        drawn.append((weights, title))
        return Figure().subplots()

    monkeypatch.setattr(explorer_module, "plot_head", record)
    box = head_explorer(attentions, TOKENS, interactive=True)
    assert isinstance(box, ipywidgets.VBox)
    layer, head = box.children[0].children
    assert (layer.min, layer.max, head.min, head.max) == (1, 3, 1, 2)
    layer.value, head.value = 3, 2
    weights, title = drawn[-1]
    assert title == "layer 3, head 2" and torch.equal(weights, attentions[2][1])


def test_a_head_map_labels_queries_and_keys_with_the_tokens() -> None:
    ax = plot_head(random_attentions()[0][0], TOKENS, title="layer 1, head 1")
    ax.figure.canvas.draw()
    assert [label.get_text() for label in ax.get_xticklabels()] == TOKENS
    assert "key" in ax.get_xlabel() and "query" in ax.get_ylabel()


def test_attentions_of_the_wrong_shape_are_rejected_with_the_fix() -> None:
    with pytest.raises(ValueError, match=r"\[heads, T, T\] with T = len\(tokens\) = 6"):
        plot_heads([torch.rand(2, 5, 5)], TOKENS)
    with pytest.raises(ValueError, match="one \\[heads, T, T\\] tensor per layer"):
        head_explorer([], TOKENS)


def test_the_neuron_view_shows_the_softmax_of_the_scaled_dot_products() -> None:
    generator = torch.Generator().manual_seed(1)
    query, keys = (
        torch.randn(8, generator=generator),
        torch.randn(len(TOKENS), 8, generator=generator),
    )
    figure = plot_neuron_view(query, keys, TOKENS, query_token=2)
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
