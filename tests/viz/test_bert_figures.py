"""The diagrams of Chapter 6 (coursekit.viz.diagrams.bert) draw what BERT computes: every input
token is the sum of its token, segment and position embeddings; the encoder layer is post-norm with two
residual connections; next sentence prediction reads C through the pooler and the masked
language model reads the state of [MASK]; each fine-tuning head reads the states its task uses.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text

from coursekit.page import TEXT_COLUMN_WIDTH
from coursekit.viz.diagrams.bert import (
    FINE_TUNING_PANELS,
    INPUT_TOKENS,
    PRETRAINING_TOKENS,
    bert_finetuning_figure,
    bert_input_figure,
    bert_pretraining_figure,
    embedding_name,
    segment_of,
)
from coursekit.viz.diagrams.drawing import SMALLEST_FONT_SIZE
from coursekit.viz.diagrams.inspection import (
    DrawnNode,
    drawn_arrows,
    drawn_nodes,
    overlapping_labels,
)

FIGURES = {
    "bert-input": bert_input_figure,
    "bert-pretraining": bert_pretraining_figure,
    "bert-finetuning": bert_finetuning_figure,
}


@pytest.fixture(scope="module")
def figures() -> dict[str, Figure]:
    return {name: draw() for name, draw in FIGURES.items()}


def feeds(figure: Figure) -> set[tuple[str, str]]:
    """(source text, target text) of every arrow joining two nodes."""
    return {
        (arrow.source.text, arrow.target.text)
        for arrow in drawn_arrows(figure)
        if arrow.source and arrow.target
    }


def node(figure: Figure, text: str) -> DrawnNode:
    (found,) = [drawn for drawn in drawn_nodes(figure) if drawn.text == text]
    return found


@pytest.mark.parametrize("name", list(FIGURES))
def test_figure_fits_the_column_in_readable_type_without_collisions(figures, name) -> None:
    figure = figures[name]
    assert figure.get_size_inches()[0] <= TEXT_COLUMN_WIDTH
    sizes = [text.get_fontsize() for text in figure.findobj(Text) if text.get_text()]
    assert min(sizes) >= SMALLEST_FONT_SIZE
    assert overlapping_labels(figure) == []


def test_every_input_token_sums_its_token_segment_and_position_embeddings(figures) -> None:
    texts = [node.text for node in drawn_nodes(figures["bert-input"])]
    tokens = [embedding_name(token) for token in INPUT_TOKENS]
    segments = [f"$E_{segment}$" for segment in segment_of(INPUT_TOKENS)]
    positions = [f"$E_{{{index}}}$" for index in range(len(INPUT_TOKENS))]
    assert sorted(texts) == sorted(tokens + segments + positions)
    assert segments.count("$E_A$") == INPUT_TOKENS.index("[SEP]") + 1, "[CLS] A [SEP] is segment A"
    labels = [text.get_text() for text in figures["bert-input"].findobj(Text)]
    assert labels.count("+") == 2 * len(INPUT_TOKENS)
    assert any("LayerNorm" in label for label in labels)


def test_embedding_names_escape_the_hashes_of_a_continuation() -> None:
    assert embedding_name("dog") == r"$E_{\mathrm{dog}}$"
    assert embedding_name("##ing") == r"$E_{\mathrm{\#}\mathrm{\#}\mathrm{ing}}$"


def test_the_encoder_layer_is_post_norm_with_two_residual_connections(figures) -> None:
    figure = figures["bert-pretraining"]
    chain = [
        "multi-head self-attention (every token sees every token)",
        "add & LayerNorm",
        "feed-forward network, GELU",
        "add & LayerNorm",
    ]
    edges = feeds(figure)
    for source, target in zip(chain, chain[1:], strict=False):
        assert (source, target) in edges
    norms = [drawn for drawn in drawn_nodes(figure) if drawn.text == "add & LayerNorm"]
    for norm in norms:
        into = [arrow for arrow in drawn_arrows(figure) if arrow.target == norm]
        assert len(into) == 2, "the sublayer's output and the residual connection"


def test_nsp_reads_the_pooled_cls_state_and_mlm_the_masked_token(figures) -> None:
    figure = figures["bert-pretraining"]
    edges = feeds(figure)
    pooler = r"pooler: $\tanh(W\,C + b)$"
    head = r"$\mathrm{LayerNorm}(\mathrm{GELU}(W_T\,T + b_T))\,E^\top + b$"
    assert ("$C$", pooler) in edges and (pooler, "NSP: IsNext / NotNext") in edges
    masked_state = f"$T_{{{PRETRAINING_TOKENS.index('[MASK]')}}}$"
    assert {source for source, target in edges if target == head} == {masked_state}
    assert (head, "MLM: hairy") in edges


def test_each_fine_tuning_head_reads_the_states_of_its_task(figures) -> None:
    figure = figures["bert-finetuning"]
    arrows = [arrow for arrow in drawn_arrows(figure) if arrow.source and arrow.target]
    into = {}
    for arrow in arrows:
        into.setdefault(arrow.target.text, []).append(arrow.source.text)
    classes = [sources for target, sources in into.items() if target.startswith("class")]
    assert classes == [["$C$", "$C$"]], "each classification panel: a class box fed by C alone"
    span = next(sources for target, sources in into.items() if target.startswith("start"))
    passage = [index for index, token in enumerate(FINE_TUNING_PANELS[2][1]) if token == "P"]
    assert sorted(span) == sorted(f"$T_{{{index}}}$" for index in passage)
    tags = {target: sources for target, sources in into.items() if target in ("B-PER", "O")}
    assert set(tags) == {"B-PER", "O"} and all("$C$" not in sources for sources in tags.values())
