"""The book's page: the width of its text column, which every figure of the course fits, from the
architecture diagrams of :mod:`coursekit.viz` to the loss curves of :mod:`coursekit.train`.
"""

from __future__ import annotations

TEXT_COLUMN_WIDTH = 7.5
"""Width of the book's text column in inches: a wider figure is shrunk, and its labels with it."""
