"""BLEU by source length, one line per model (Chapter 4, Seq2seq and attention): how a
translation's quality falls with the length of the sentence, with and without attention.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.axes import Axes
from matplotlib.figure import Figure


def plot_bleu_by_length(
    bucket_labels: Sequence[str],
    scores_by_model: Mapping[str, Sequence[float]],
    ax: Axes | None = None,
    colors: Mapping[str, str] | None = None,
    title: str | None = None,
) -> Axes:
    """BLEU of each model on the test sentences bucketed by source length (Chapter 4): one line
    per model (colour ``colors[model]``, by default C0, C1, ... in order, so a model keeps its
    colour across figures), the buckets on the x axis, a legend.
    """
    for name, scores in scores_by_model.items():
        if len(scores) != len(bucket_labels):
            raise ValueError(
                f"model {name!r} has {len(scores)} scores for {len(bucket_labels)} buckets: give "
                "one BLEU score per bucket (float('nan') for an empty bucket)"
            )
    ax = ax if ax is not None else Figure(figsize=(6, 4), layout="constrained").subplots()
    for index, (name, scores) in enumerate(scores_by_model.items()):
        color = colors[name] if colors is not None else f"C{index}"
        ax.plot(range(len(bucket_labels)), scores, marker="o", color=color, label=name)
    ax.set_xticks(range(len(bucket_labels)), labels=list(bucket_labels))
    ax.set_xlabel("source length (tokens)")
    ax.set_ylabel("BLEU")
    ax.set_ylim(bottom=0)
    ax.legend(title="model")
    if title:
        ax.set_title(title)
    return ax
