"""The head explorer: pick a layer and a head of a BERT model and see where each token of an
input attends (Chapter 6, BERT).

In a live kernel with ipywidgets, two sliders choose the layer and the head and the heat map of
that head follows; anywhere else the explorer returns the static grid of every head.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from coursekit.viz.bert_attention import check_attentions, plot_head, plot_heads
from coursekit.widgets.base import use_widgets


def head_explorer(
    attentions: Sequence[torch.Tensor],
    tokens: Sequence[str],
    interactive: bool | None = None,
) -> Any:
    """Explore the heads of one input (Chapter 6): ``attentions`` are the L tensors ``[A, T, T]``
    of one example (``[a[0] for a in output.attentions]``), ``tokens`` its T tokens. Returns the
    widget box in a live kernel, otherwise (or with ``interactive=False``) the figure of every
    head (:func:`coursekit.viz.bert_attention.plot_heads`).
    """
    check_attentions(attentions, tokens)
    if not use_widgets(interactive):
        return plot_heads(attentions, tokens)
    import ipywidgets as widgets
    from IPython.display import display

    layers, heads = len(attentions), attentions[0].shape[0]
    layer = widgets.IntSlider(value=1, min=1, max=layers, description="layer")
    head = widgets.IntSlider(value=1, min=1, max=heads, description="head")

    def show(layer_number: int, head_number: int) -> None:
        weights = attentions[layer_number - 1][head_number - 1]
        title = f"layer {layer_number}, head {head_number}"
        display(plot_head(weights, tokens, title=title).figure)

    output = widgets.interactive_output(show, {"layer_number": layer, "head_number": head})
    return widgets.VBox([widgets.HBox([layer, head]), output])
