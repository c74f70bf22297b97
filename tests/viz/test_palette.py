"""model_colour: a fixed colour per model, shared by variants of it, stable for unknown names."""

from __future__ import annotations

import re

from coursekit.viz.plots.palette import MODEL_COLOURS, model_colour


def test_known_models_and_their_variants_share_a_colour() -> None:
    assert model_colour("LSTM") == model_colour("lstm") == model_colour("LSTM, 2 layers")
    assert len(set(MODEL_COLOURS.values())) == len(MODEL_COLOURS)


def test_unknown_names_get_a_stable_hex_colour() -> None:
    colour = model_colour("a model nobody named")
    assert re.fullmatch(r"#[0-9a-f]{6}", colour)
    assert colour == model_colour("a model nobody named")
