"""One colour per model across every figure of the book, so that the LSTM is the same red in
each panel and each chapter."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from matplotlib import colormaps
from matplotlib.colors import ListedColormap

RGB = tuple[float, float, float]

MODEL_COLOURS: dict[str, str] = {
    "uniform": "#9e9e9e",
    "bag of words": "#7f7f7f",
    "unigram": "#bcbd22",
    "bigram": "#8c564b",
    "trigram": "#e377c2",
    "RNN": "#1f77b4",
    "LSTM": "#d62728",
    "GRU": "#2ca02c",
    "transformer": "#9467bd",
}


def model_colour(name: str) -> str:
    """The colour of ``name`` (case-insensitive, and ``"LSTM, 2 layers"`` takes the LSTM's);
    models without a colour of their own get a stable one from matplotlib's tab20 by name."""
    for known, colour in MODEL_COLOURS.items():
        if name.lower() == known.lower() or name.lower().startswith(known.lower() + ","):
            return colour
    palette = cast(Sequence[RGB], cast(ListedColormap, colormaps["tab20"]).colors)
    index = sum(ord(character) for character in name) % len(palette)
    red, green, blue = (round(255 * channel) for channel in palette[index])
    return f"#{red:02x}{green:02x}{blue:02x}"
