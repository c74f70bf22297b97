"""The attention-head explorer: pick a sentence, a layer and a head of a Transformer and see where
each query looks (Chapter 5's language models and translators, Chapter 6's BERT).

Each sentence is a :class:`HeadMaps`: its query and key tokens and the weights of every head of
every layer, ``[layers, heads, T_q, T_k]``, as :mod:`coursekit.models.transformer.attention_maps`
returns them for one example (``maps[:, b]``), or from the per-layer list of a BERT model's
``output.attentions`` with :meth:`HeadMaps.self_attention`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from coursekit.viz.plots.attention_heads import as_head_maps, plot_attention_heads
from coursekit.viz.plots.attention_step import plot_attention_step
from coursekit.widgets.base import use_widgets

LABEL_CHARACTERS = 60  # a sentence's label in the menu is cut after this many characters


def require_attentions(attentions: Sequence[torch.Tensor], tokens: Sequence[str]) -> None:
    """``attentions`` are L tensors ``[A, T, T]`` (one input, batch removed), T = len(tokens)."""
    if not attentions:
        raise ValueError("attentions must hold one [heads, T, T] tensor per layer, got none")
    length = len(tokens)
    for layer, weights in enumerate(attentions):
        if weights.dim() != 3 or tuple(weights.shape[1:]) != (length, length):
            raise ValueError(
                f"attentions[{layer}] must be [heads, T, T] with T = len(tokens) = {length}, got "
                f"{tuple(weights.shape)}; pass one example: [a[0] for a in output.attentions]"
            )


@dataclass(frozen=True)
class HeadMaps:
    """One sentence read by a Transformer: ``query_tokens`` (T_q), ``key_tokens`` (T_k) and
    the attention ``weights`` ``[layers, heads, T_q, T_k]`` (Chapters 5 and 6).
    """

    query_tokens: Sequence[str]
    key_tokens: Sequence[str]
    weights: torch.Tensor | np.ndarray

    @classmethod
    def self_attention(cls, attentions: Sequence[torch.Tensor], tokens: Sequence[str]) -> HeadMaps:
        """The self-attention of one input (Chapter 6): ``attentions`` are the L tensors
        ``[A, T, T]`` of one example (``[a[0] for a in output.attentions]``), ``tokens`` its T
        tokens, both the queries and the keys."""
        require_attentions(attentions, tokens)
        return cls(tokens, tokens, torch.stack([weights.detach().cpu() for weights in attentions]))

    @property
    def shape(self) -> tuple[int, int]:
        """(layers, heads)."""
        layers, heads = np.shape(self.weights)[:2]
        return int(layers), int(heads)

    def maps(self) -> np.ndarray:
        """The maps ``[layers, heads, T_q, T_k]`` as floats, checked against the tokens."""
        return as_head_maps(self.weights, self.query_tokens, self.key_tokens)


def require_sentences(sentences: Sequence[HeadMaps]) -> tuple[int, int]:
    """(layers, heads), after checking that every sentence has maps of one model's shape
    (Chapters 5 and 6)."""
    if not sentences:
        raise ValueError("give at least one sentence: [HeadMaps(query, key, weights), ...]")
    shapes = set()
    for index, sentence in enumerate(sentences):
        if np.ndim(sentence.weights) != 4:
            raise ValueError(
                f"sentence {index}: weights must be [layers, heads, T_q, T_k], got shape "
                f"{tuple(np.shape(sentence.weights))}"
            )
        sentence.maps()
        shapes.add(sentence.shape)
    if len(shapes) != 1:
        raise ValueError(
            f"every sentence must come from one model (the same layers and heads), got {shapes}"
        )
    return shapes.pop()


def sentence_label(sentence: HeadMaps) -> str:
    """The menu label of a sentence: its key tokens, cut to LABEL_CHARACTERS."""
    text = " ".join(sentence.key_tokens)
    return text if len(text) <= LABEL_CHARACTERS else text[: LABEL_CHARACTERS - 3] + "..."


def attention_head_explorer(
    sentences: Sequence[HeadMaps],
    interactive: bool | None = None,
    sentence: int = 0,
    layer: int | None = 0,
    title: str | None = None,
) -> Any:
    """Explore the heads of a Transformer (Chapters 5 and 6): a menu for the sentence, sliders
    for the layer, the head and the query, and the figure of that head (its heat map with the
    query's row framed, and the query's weights over the keys). In a live kernel it returns the
    widget box; elsewhere (or with ``interactive=False``) a static figure for ``sentence``: every
    head of ``layer``, or of every layer, one row each, with ``layer=None``.
    """
    layers, heads = require_sentences(sentences)
    if not 0 <= sentence < len(sentences):
        raise ValueError(f"sentence must lie in 0 .. {len(sentences) - 1}, got {sentence}")
    if layer is not None and not 0 <= layer < layers:
        raise ValueError(f"layer must lie in 0 .. {layers - 1}, got {layer}")
    if not use_widgets(interactive):
        chosen = sentences[sentence]
        first, last = (0, layers) if layer is None else (layer, layer + 1)
        maps = chosen.maps()[first:last]
        return plot_attention_heads(maps, chosen.query_tokens, chosen.key_tokens, first + 1, title)
    import ipywidgets as widgets
    from IPython.display import display

    menu = widgets.Dropdown(
        options=[(sentence_label(s), i) for i, s in enumerate(sentences)],
        value=sentence,
        description="sentence",
    )
    layer_slider = widgets.IntSlider(value=(layer or 0) + 1, min=1, max=layers, description="layer")
    head_slider = widgets.IntSlider(value=1, min=1, max=heads, description="head")
    query_slider = widgets.IntSlider(value=0, min=0, max=1, description="query")

    def fit_query(_: object = None) -> None:
        query_slider.max = max(len(sentences[menu.value].query_tokens) - 1, 0)
        query_slider.value = min(query_slider.value, query_slider.max)

    def show(sentence_index: int, layer_number: int, head_number: int, query: int) -> None:
        chosen = sentences[sentence_index]
        figure = plot_attention_step(
            chosen.maps()[layer_number - 1, head_number - 1], chosen.query_tokens,
            chosen.key_tokens, min(query, len(chosen.query_tokens) - 1),
            title=f"layer {layer_number}, head {head_number}",
        )  # fmt: skip
        display(figure)

    fit_query()
    menu.observe(fit_query, names="value")
    output = widgets.interactive_output(
        show,
        {
            "sentence_index": menu,
            "layer_number": layer_slider,
            "head_number": head_slider,
            "query": query_slider,
        },
    )
    controls = widgets.HBox([layer_slider, head_slider, query_slider])
    return widgets.VBox([menu, controls, output])
