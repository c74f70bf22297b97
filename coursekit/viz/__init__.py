"""Figures of the course, drawn with matplotlib, in two subpackages: :mod:`coursekit.viz.diagrams`,
the architecture diagrams of Chapters 2 to 7 and the kit they are drawn with (``python -m
coursekit.viz.diagrams book/*.ipynb`` writes them into the chapters as embedded PNG images), and
:mod:`coursekit.viz.plots`, the plots of what the chapters compute (attention maps, BLEU, the
positional encoding, one colour per model). Each module holds one figure or one tool.
"""
