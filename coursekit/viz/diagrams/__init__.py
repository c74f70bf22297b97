"""The book's architecture diagrams (Chapters 2 to 7) and the kit they are drawn with.

- the kit: :mod:`~coursekit.viz.diagrams.shapes` (the geometry of boxes, circles and routes),
  :mod:`~coursekit.viz.diagrams.drawing` (the :class:`~coursekit.viz.diagrams.drawing.Diagram`
  canvas, its palette and byte-stable PNGs) and :mod:`~coursekit.viz.diagrams.inspection`
  (reading a drawn diagram back, for the tests);
- one module per family of models: :mod:`~coursekit.viz.diagrams.recurrent` (Chapters 2-3),
  :mod:`~coursekit.viz.diagrams.seq2seq` (4), :mod:`~coursekit.viz.diagrams.transformer` (5),
  :mod:`~coursekit.viz.diagrams.bert` (6), :mod:`~coursekit.viz.diagrams.transformer_xl` (7);
- :mod:`~coursekit.viz.diagrams.catalog`, every diagram by name, and
  :mod:`~coursekit.viz.diagrams.embed`, the command that writes them into the chapters:
  ``python -m coursekit.viz.diagrams book/*.ipynb`` (``make figures``).
"""
