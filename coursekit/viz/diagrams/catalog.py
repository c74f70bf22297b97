"""Every architecture diagram of the book, by the name under which a chapter's markdown cell shows
it (Chapters 2 to 7); a chapter adds its diagrams to :data:`FIGURES`.
"""

from __future__ import annotations

from collections.abc import Callable

from matplotlib.figure import Figure

from coursekit.viz.diagrams.bert import (
    bert_finetuning_figure,
    bert_input_figure,
    bert_pretraining_figure,
)
from coursekit.viz.diagrams.recurrent import (
    deep_and_bidirectional_figure,
    gru_cell_figure,
    lstm_cell_figure,
    rnn_cell_figure,
    unrolled_rnn_figure,
)
from coursekit.viz.diagrams.seq2seq import (
    bahdanau_figure,
    beam_search_figure,
    encoder_decoder_figure,
    key_value_lookup_figure,
    local_attention_figure,
    luong_figure,
    pointer_figure,
)
from coursekit.viz.diagrams.transformer import (
    attention_masks_figure,
    classifier_figure,
    decoder_only_figure,
    multi_head_figure,
    residual_connections_figure,
    scaled_dot_product_figure,
    transformer_figure,
)
from coursekit.viz.diagrams.transformer_xl import (
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
"""Each diagram of the book: its name and the function drawing it."""
