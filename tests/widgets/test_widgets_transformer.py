"""The explorers of Chapters 5 and 6: outside a live kernel the attention-head explorer is a
figure of every head of one layer (or of every layer) and the positional-encoding explorer a
figure of the encoding; with the installed ipywidgets each is a box whose controls redraw what
they name. The head explorer reads Chapter 5's maps ``[layers, heads, T_q, T_k]`` and the list
of a BERT model's attentions (Chapter 6) alike.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import ipywidgets
import pytest
import torch
from matplotlib.figure import Figure

from coursekit.widgets import attention_heads as heads_module
from coursekit.widgets import positional_encoding as encoding_module
from coursekit.widgets.attention_heads import HeadMaps, attention_head_explorer
from coursekit.widgets.base import live_kernel
from coursekit.widgets.positional_encoding import positional_encoding_explorer


def head_maps(tokens: list[str], layers: int = 2, heads: int = 3, seed: int = 0) -> HeadMaps:
    generator = torch.Generator().manual_seed(seed)
    scores = torch.randn(layers, heads, len(tokens), len(tokens), generator=generator)
    return HeadMaps(tokens, tokens, torch.softmax(scores, dim=-1))


SENTENCES = [head_maps(["a", "b", "c"]), head_maps(["d", "e", "f", "g", "h"], seed=1)]


def heat_maps(figure: Figure) -> list:
    return [ax for ax in figure.axes if ax.get_images() and ax.get_title()]


def test_outside_a_kernel_the_head_explorer_shows_every_head_of_the_layer() -> None:
    assert not live_kernel()
    figure = attention_head_explorer(SENTENCES, sentence=1, layer=1, title="toy")
    assert isinstance(figure, Figure)
    maps = heat_maps(figure)
    assert [ax.get_title() for ax in maps] == ["head 1", "head 2", "head 3"]
    assert [label.get_text() for label in maps[0].get_xticklabels()] == list("defgh")
    shown = maps[2].get_images()[0].get_array()
    torch.testing.assert_close(torch.tensor(shown.data), SENTENCES[1].weights[1, 2].double())
    assert figure._suptitle.get_text() == "toy, layer 2"


def test_the_head_widget_redraws_the_chosen_sentence_layer_head_and_query(monkeypatch) -> None:
    drawn = []

    def record(weights, query_tokens, key_tokens, query, title=None):
        drawn.append((weights, list(key_tokens), query, title))
        return Figure()

    monkeypatch.setattr(heads_module, "plot_attention_step", record)
    box = attention_head_explorer(SENTENCES, interactive=True)
    assert isinstance(box, ipywidgets.VBox)
    menu, (layer, head, query) = box.children[0], box.children[1].children
    assert [label for label, _ in menu.options] == ["a b c", "d e f g h"]
    assert query.max == 2 and drawn[-1][1:] == (["a", "b", "c"], 0, "layer 1, head 1")
    menu.value = 1
    assert query.max == 4
    layer.value, head.value, query.value = 2, 3, 4
    weights, keys, chosen, title = drawn[-1]
    assert (keys, chosen, title) == (list("defgh"), 4, "layer 2, head 3")
    torch.testing.assert_close(torch.tensor(weights), SENTENCES[1].weights[1, 2].double())
    menu.value = 0  # three tokens: the query slider shrinks and the query follows
    assert query.max == 2 and query.value == 2 and drawn[-1][2] == 2


def test_inconsistent_head_maps_are_rejected() -> None:
    with pytest.raises(ValueError, match="at least one sentence"):
        attention_head_explorer([])
    with pytest.raises(ValueError, match="one model"):
        attention_head_explorer([SENTENCES[0], head_maps(["x", "y"], heads=2)])
    with pytest.raises(ValueError, match=r"\[layers, heads, T_q, T_k\]"):
        attention_head_explorer([HeadMaps(["a"], ["a"], torch.ones(1, 1))])
    with pytest.raises(ValueError, match=r"\[layers, heads, 2, 3\]"):
        attention_head_explorer([HeadMaps(["a", "b"], ["a", "b", "c"], torch.ones(1, 2, 3, 2))])
    with pytest.raises(ValueError, match="layer must lie in 0 .. 1"):
        attention_head_explorer(SENTENCES, layer=2)


BERT_TOKENS = ["[CLS]", "a", "b", "[SEP]", "c", "[SEP]"]


def bert_attentions(layers: int = 3, heads: int = 2) -> list[torch.Tensor]:
    """What a BERT model's ``output.attentions`` holds for one example: L tensors [A, T, T]."""
    generator = torch.Generator().manual_seed(0)
    size = len(BERT_TOKENS)
    return [
        torch.softmax(torch.randn(heads, size, size, generator=generator), -1)
        for _ in range(layers)
    ]


def test_outside_a_kernel_a_bert_models_attentions_show_every_head_of_every_layer() -> None:
    attentions = bert_attentions()
    maps = HeadMaps.self_attention(attentions, BERT_TOKENS)
    figure = attention_head_explorer([maps], layer=None)
    assert isinstance(figure, Figure)
    shown = heat_maps(figure)
    assert [ax.get_title() for ax in shown] == [
        f"layer {layer}, head {head}" for layer in (1, 2, 3) for head in (1, 2)
    ]
    torch.testing.assert_close(
        torch.tensor(shown[5].get_images()[0].get_array().data), attentions[2][1].double()
    )
    assert [label.get_text() for label in shown[4].get_xticklabels()] == BERT_TOKENS


def test_the_widget_redraws_the_chosen_head_of_a_bert_model(monkeypatch) -> None:
    attentions = bert_attentions()
    drawn = []

    def record(weights, query_tokens, key_tokens, query, title=None):
        drawn.append((weights, list(query_tokens), query, title))
        return Figure()

    monkeypatch.setattr(heads_module, "plot_attention_step", record)
    box = attention_head_explorer(
        [HeadMaps.self_attention(attentions, BERT_TOKENS)], interactive=True
    )
    layer, head, query = box.children[1].children
    assert (layer.max, head.max, query.max) == (3, 2, len(BERT_TOKENS) - 1)
    layer.value, head.value, query.value = 3, 2, 4
    weights, tokens, chosen, title = drawn[-1]
    assert (tokens, chosen, title) == (BERT_TOKENS, 4, "layer 3, head 2")
    torch.testing.assert_close(torch.tensor(weights), attentions[2][1].double())


def test_bert_attentions_of_the_wrong_shape_are_rejected_with_the_fix() -> None:
    with pytest.raises(ValueError, match=r"\[heads, T, T\] with T = len\(tokens\) = 6"):
        HeadMaps.self_attention([torch.rand(2, 5, 5)], BERT_TOKENS)
    with pytest.raises(ValueError, match="one \\[heads, T, T\\] tensor per layer"):
        HeadMaps.self_attention([], BERT_TOKENS)


def test_outside_a_kernel_the_encoding_explorer_is_the_figure_of_the_encoding() -> None:
    figure = positional_encoding_explorer(d_model=16, num_positions=40, position=10)
    assert isinstance(figure, Figure)
    (matrix,) = [ax for ax in figure.axes if ax.get_images()]
    assert matrix.get_images()[0].get_array().shape == (16, 40)  # features x positions
    similarity = [ax for ax in figure.axes if "PE(10)" in ax.get_title()]
    assert len(similarity) == 1
    curve = similarity[0].get_lines()[0].get_ydata()
    assert curve.argmax() == 10 and abs(curve[10] - 1) < 1e-12


def test_the_encoding_widget_redraws_for_the_chosen_size_layout_and_position(monkeypatch) -> None:
    drawn = []
    monkeypatch.setattr(
        encoding_module,
        "plot_positional_encoding",
        lambda *arguments: drawn.append(arguments) or Figure(),
    )
    box = positional_encoding_explorer(interactive=True)
    d_model, layout, position = box.children[0].children
    assert drawn[-1] == (64, 100, "interleaved", 50)
    d_model.value, layout.value, position.value = 128, "concatenated", 7
    assert drawn[-1] == (128, 100, "concatenated", 7)


def test_wrong_encoding_arguments_are_rejected() -> None:
    with pytest.raises(ValueError, match="must be even"):
        positional_encoding_explorer(d_model=15)
    with pytest.raises(ValueError, match="layout must be one of"):
        positional_encoding_explorer(layout="halves")
    with pytest.raises(ValueError, match="position must lie in 0 .. 99"):
        positional_encoding_explorer(position=100)
