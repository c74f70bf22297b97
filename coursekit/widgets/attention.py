"""The attention explorer: pick a sentence and a model, step through the decoding and see
where each step looks in the source (Chapter 4, Seq2seq and attention).

Each model's decodings are given as :class:`DecodedExample`s, the same sentences in the same
order for every model (run the models first, e.g. greedy decoding, then
``Seq2Seq(src, lengths, tgt_in=<sos> + output).attention`` for the weights of that decoding).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from coursekit.viz.plots.attention_models import plot_attention_models
from coursekit.viz.plots.attention_step import plot_attention_step
from coursekit.viz.plots.heat_map import TRANSLATION, as_matrix
from coursekit.widgets.base import use_widgets

if TYPE_CHECKING:
    from matplotlib.figure import Figure

LABEL_CHARACTERS = 60  # a sentence's label in the menu is cut after this many characters


@dataclass(frozen=True)
class DecodedExample:
    """One decoded sentence: ``source_tokens`` (S), the ``output_tokens`` the model produced
    (T) and its attention ``weights`` ``[T, S]``.
    """

    source_tokens: Sequence[str]
    output_tokens: Sequence[str]
    weights: torch.Tensor | np.ndarray


def require_examples(examples: Mapping[str, Sequence[DecodedExample]]) -> int:
    """The number of sentences, after checking that every model decoded the same sentences and
    that every weight matrix is ``[T, S]``.
    """
    if not examples:
        raise ValueError("give at least one model: {model name: [DecodedExample, ...]}")
    counts = {name: len(decoded) for name, decoded in examples.items()}
    if len(set(counts.values())) != 1 or 0 in counts.values():
        raise ValueError(
            f"every model needs the same non-zero number of decoded sentences, got {counts}"
        )
    first = next(iter(examples.values()))
    for name, decoded in examples.items():
        for index, example in enumerate(decoded):
            if list(example.source_tokens) != list(first[index].source_tokens):
                raise ValueError(
                    f"sentence {index} of model {name!r} has another source than the first "
                    "model's: give the sentences in the same order for every model"
                )
            as_matrix(example.weights, len(example.output_tokens), len(example.source_tokens))
    return next(iter(counts.values()))


def static_attention_figure(
    examples: Mapping[str, Sequence[DecodedExample]], sentence: int
) -> Figure:
    """The fallback: every model's heat map of one sentence, side by side."""
    chosen = {name: decoded[sentence] for name, decoded in examples.items()}
    return plot_attention_models(
        {name: example.weights for name, example in chosen.items()},
        next(iter(chosen.values())).source_tokens,
        {name: example.output_tokens for name, example in chosen.items()},
    )


def attention_explorer(
    examples: Mapping[str, Sequence[DecodedExample]],
    interactive: bool | None = None,
    sentence: int = 0,
) -> Any:
    """Explore attention (Chapter 4): dropdowns for the sentence and the model, a slider for
    the decoding step t, and the figure of step t (the heat map with row t framed and the
    weights alpha_{t,j} over the source). In a live kernel it returns the widget box; elsewhere
    (or with ``interactive=False``) a static figure of every model's heat map for ``sentence``.
    """
    count = require_examples(examples)
    if not 0 <= sentence < count:
        raise ValueError(f"sentence must lie in 0 .. {count - 1}, got {sentence}")
    if not use_widgets(interactive):
        return static_attention_figure(examples, sentence)
    import ipywidgets as widgets
    from IPython.display import display

    first = next(iter(examples.values()))
    sentences = widgets.Dropdown(
        options=[(" ".join(e.source_tokens)[:LABEL_CHARACTERS], i) for i, e in enumerate(first)],
        value=sentence,
        description="sentence",
    )
    models = widgets.Dropdown(options=list(examples), description="model")
    step = widgets.IntSlider(value=0, min=0, max=1, description="step t")

    def chosen() -> DecodedExample:
        return examples[models.value][sentences.value]

    def fit_slider(_: object = None) -> None:
        step.max = max(len(chosen().output_tokens) - 1, 0)
        step.value = min(step.value, step.max)

    def show(sentence_index: int, model_name: str, step_index: int) -> None:
        example = examples[model_name][sentence_index]
        if step_index < len(example.output_tokens):
            display(
                plot_attention_step(
                    example.weights,
                    example.output_tokens,
                    example.source_tokens,
                    step_index,
                    roles=TRANSLATION,
                    title=model_name,
                )
            )

    fit_slider()
    sentences.observe(fit_slider, names="value")
    models.observe(fit_slider, names="value")
    output = widgets.interactive_output(
        show, {"sentence_index": sentences, "model_name": models, "step_index": step}
    )
    return widgets.VBox([widgets.HBox([sentences, models]), step, output])
