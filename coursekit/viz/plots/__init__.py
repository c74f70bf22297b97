"""The book's plots, drawn from numbers a chapter computes (Chapters 1 to 7), one figure per module:

- attention maps, all drawn by :func:`~coursekit.viz.plots.heat_map.draw_heat_map` with one tick
  rule: several models' maps side by side (:mod:`~coursekit.viz.plots.attention_models`,
  Chapter 4), one row in detail (:mod:`~coursekit.viz.plots.attention_step`, the explorers of
  Chapters 4 to 6), every head of a Transformer (:mod:`~coursekit.viz.plots.attention_heads`,
  Chapters 5 and 6) and one query term by term (:mod:`~coursekit.viz.plots.neuron_view`,
  Chapter 6);
- BLEU by source length (:mod:`~coursekit.viz.plots.bleu`, Chapter 4) and the sinusoidal
  positional encoding (:mod:`~coursekit.viz.plots.positional_encoding`, Chapter 5);
- one colour per model in every chapter (:mod:`~coursekit.viz.plots.palette`).

Figures are built with ``matplotlib.figure.Figure`` rather than pyplot, so none is left open in
a global registry; a notebook displays the returned figure, ``fig.savefig(...)`` writes it.
"""
