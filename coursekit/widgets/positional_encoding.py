"""The positional-encoding explorer: change d_model, the layout and the position, and see the
sinusoidal encoding, a few of its features and how similar two positions' encodings are
(Chapter 5, Transformers).
"""

from __future__ import annotations

from typing import Any

from coursekit.models.transformer.positional_encoding import LAYOUTS, require_encoding_arguments
from coursekit.viz.plots.positional_encoding import plot_positional_encoding
from coursekit.widgets.base import use_widgets

LARGEST_D_MODEL = 512


def positional_encoding_explorer(
    d_model: int = 64,
    num_positions: int = 100,
    layout: str = "interleaved",
    position: int = 50,
    interactive: bool | None = None,
) -> Any:
    """Explore ``PE(pos, 2i) = sin(pos / 10000^{2i/d})``, ``PE(pos, 2i+1) = cos(...)``
    (Chapter 5): sliders for d_model (even, up to 512) and the position compared with all
    others, a menu for the layout (the paper's interleaved sines and cosines or tensor2tensor's
    two halves). In a live kernel it returns the widget box; elsewhere (or with
    ``interactive=False``) the static figure for the given values.
    """
    require_encoding_arguments(d_model, layout, 10000.0)
    if not 0 <= position < num_positions:
        raise ValueError(f"position must lie in 0 .. {num_positions - 1}, got {position}")
    if not use_widgets(interactive):
        return plot_positional_encoding(d_model, num_positions, layout, position)
    import ipywidgets as widgets
    from IPython.display import display

    d_slider = widgets.IntSlider(
        value=d_model, min=8, max=max(LARGEST_D_MODEL, d_model), step=8, description="d_model"
    )
    layout_menu = widgets.Dropdown(options=list(LAYOUTS), value=layout, description="layout")
    position_slider = widgets.IntSlider(
        value=position, min=0, max=num_positions - 1, description="position"
    )

    def show(d: int, chosen_layout: str, chosen_position: int) -> None:
        figure = plot_positional_encoding(d, num_positions, chosen_layout, chosen_position)
        display(figure)

    output = widgets.interactive_output(
        show, {"d": d_slider, "chosen_layout": layout_menu, "chosen_position": position_slider}
    )
    return widgets.VBox([widgets.HBox([d_slider, layout_menu, position_slider]), output])
