"""The attention explorer of Chapter 4: a static figure outside a live kernel, and with the
installed ipywidgets a box whose controls redraw the chosen sentence, model and step.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import ipywidgets
import pytest
import torch
from matplotlib.figure import Figure

from coursekit.viz.plots.heat_map import TRANSLATION
from coursekit.widgets import attention as explorer_module
from coursekit.widgets.attention import DecodedExample, attention_explorer
from coursekit.widgets.base import live_kernel, use_widgets


def decoded(source: list[str], output: list[str], seed: int) -> DecodedExample:
    generator = torch.Generator().manual_seed(seed)
    weights = torch.softmax(torch.randn(len(output), len(source), generator=generator), -1)
    return DecodedExample(source, output, weights)


EXAMPLES = {
    "bahdanau": [
        decoded(["a", "b", "c"], ["x", "y"], 0),
        decoded(["d", "e"], ["p", "q", "r", "s"], 1),
    ],
    "luong": [decoded(["a", "b", "c"], ["x"], 2), decoded(["d", "e"], ["p", "q", "r"], 3)],
}


def test_outside_a_kernel_the_explorer_is_a_static_figure_of_every_model() -> None:
    assert not live_kernel() and not use_widgets(None)
    figure = attention_explorer(EXAMPLES, sentence=1)
    assert isinstance(figure, Figure)
    maps = [ax for ax in figure.axes if ax.get_images()]
    assert [ax.get_title() for ax in maps] == ["bahdanau", "luong"]
    assert [label.get_text() for label in maps[0].get_xticklabels()] == ["d", "e"]


def test_the_widget_redraws_the_chosen_sentence_model_and_step(monkeypatch) -> None:
    drawn = []

    def record(weights, output, source, step, roles, title):
        assert roles == TRANSLATION  # Chapter 4's words: steps t over source tokens j
        drawn.append((list(source), list(output), step, title))
        return Figure()

    monkeypatch.setattr(explorer_module, "plot_attention_step", record)
    box = attention_explorer(EXAMPLES, interactive=True)
    assert isinstance(box, ipywidgets.VBox)
    (sentences, models), step = box.children[0].children, box.children[1]
    assert isinstance(step, ipywidgets.IntSlider) and isinstance(box.children[2], ipywidgets.Output)
    assert [label for label, _ in sentences.options] == ["a b c", "d e"]
    assert step.max == 1 and drawn[-1] == (["a", "b", "c"], ["x", "y"], 0, "bahdanau")
    sentences.value = 1
    assert step.max == 3
    step.value = 3
    assert drawn[-1] == (["d", "e"], ["p", "q", "r", "s"], 3, "bahdanau")
    models.value = "luong"  # three output tokens: the slider shrinks and the step follows
    assert step.max == 2 and step.value == 2
    assert drawn[-1] == (["d", "e"], ["p", "q", "r"], 2, "luong")


def test_inconsistent_examples_are_rejected() -> None:
    with pytest.raises(ValueError, match="same non-zero number of decoded sentences"):
        attention_explorer({"a": EXAMPLES["luong"], "b": EXAMPLES["luong"][:1]})
    with pytest.raises(ValueError, match="another source than the first model's"):
        attention_explorer({"a": EXAMPLES["luong"], "b": EXAMPLES["luong"][::-1]})
    with pytest.raises(ValueError, match=r"\[1, 3\]"):
        attention_explorer({"a": [DecodedExample(["a", "b", "c"], ["x"], torch.ones(3, 1))]})
    with pytest.raises(ValueError, match="sentence must lie in 0 .. 1"):
        attention_explorer(EXAMPLES, sentence=2)


def test_interactive_without_ipywidgets_says_how_to_install_it(monkeypatch) -> None:
    monkeypatch.setattr("coursekit.widgets.base.ipywidgets_available", lambda: False)
    with pytest.raises(ImportError, match="pip install 'ipywidgets>=7.6'"):
        attention_explorer(EXAMPLES, interactive=True)
