"""The book's architecture diagrams, by file name, and the command that writes them as SVG.

``python -m coursekit.viz.diagrams book/figures`` regenerates every file; the chapters embed
them with ``![alt text](figures/<name>.svg)``, and tests/viz/test_diagrams.py checks that the
stored files are what this command writes. A later chapter adds its figures to :data:`FIGURES`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

from matplotlib.figure import Figure

from coursekit.viz.bert import bert_finetuning_figure, bert_input_figure, bert_pretraining_figure
from coursekit.viz.drawing import save_svg
from coursekit.viz.recurrent import (
    deep_and_bidirectional_figure,
    gru_cell_figure,
    lstm_cell_figure,
    rnn_cell_figure,
    unrolled_rnn_figure,
)
from coursekit.viz.seq2seq import (
    bahdanau_figure,
    beam_search_figure,
    encoder_decoder_figure,
    key_value_lookup_figure,
    local_attention_figure,
    luong_figure,
    pointer_figure,
)
from coursekit.viz.transformer import (
    attention_masks_figure,
    classifier_figure,
    decoder_only_figure,
    multi_head_figure,
    residual_connections_figure,
    scaled_dot_product_figure,
    transformer_figure,
)
from coursekit.viz.transformer_xl import (
    relative_attention_figure,
    relative_shift_figure,
    segment_recurrence_figure,
    two_stream_figure,
)

FIGURES: dict[str, Callable[[], Figure]] = {
    "rnn-unrolled": unrolled_rnn_figure,
    "rnn-cell": rnn_cell_figure,
    "lstm-cell": lstm_cell_figure,
    "gru-cell": gru_cell_figure,
    "deep-bidirectional-rnn": deep_and_bidirectional_figure,
    "encoder-decoder": encoder_decoder_figure,
    "beam-search": beam_search_figure,
    "bahdanau-attention": bahdanau_figure,
    "luong-attention": luong_figure,
    "key-value-lookup": key_value_lookup_figure,
    "local-attention": local_attention_figure,
    "pointer-network": pointer_figure,
    "scaled-dot-product-attention": scaled_dot_product_figure,
    "multi-head-attention": multi_head_figure,
    "transformer": transformer_figure,
    "attention-masks": attention_masks_figure,
    "residual-connections": residual_connections_figure,
    "transformer-classifier": classifier_figure,
    "decoder-only-lm": decoder_only_figure,
    "segment-recurrence": segment_recurrence_figure,
    "relative-attention": relative_attention_figure,
    "relative-shift": relative_shift_figure,
    "two-stream": two_stream_figure,
    "bert-input": bert_input_figure,
    "bert-pretraining": bert_pretraining_figure,
    "bert-finetuning": bert_finetuning_figure,
}
"""Each diagram of the book: the SVG file's name (without ``.svg``) and the function drawing it."""


def write_figures(folder: str | Path) -> list[Path]:
    """Draw every diagram of :data:`FIGURES` into ``folder`` (created if missing) as SVG."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    return [save_svg(draw(), folder / f"{name}.svg") for name, draw in FIGURES.items()]


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``python -m coursekit.viz.diagrams FOLDER``."""
    parser = argparse.ArgumentParser(
        prog="python -m coursekit.viz.diagrams", description="Write the book's diagrams as SVG."
    )
    parser.add_argument("folder", type=Path, help="where to write them, e.g. book/figures")
    arguments = parser.parse_args(argv)
    for path in write_figures(arguments.folder):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
