"""Figures of the course, drawn with matplotlib: architecture diagrams and the plots the chapters
share. Each module holds one kind of figure; the chapters import what they draw.
``drawing`` draws the architecture diagrams; ``python -m coursekit.viz.diagrams book/*.ipynb``
writes them into the chapters as embedded PNG images.
"""
