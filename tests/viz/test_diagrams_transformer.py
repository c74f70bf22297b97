"""The diagrams of Chapter 5 wire their nodes as the equations say: attention's steps in order,
every head's projections into the attention, each Transformer sublayer into its Add & Norm with
a residual path, the encoder's output into the decoder's cross-attention, masks that block
exactly the keys their rule forbids, LayerNorm on the right side of the residual sum, a cached
generation step that appends the new key and value and attends from the new query alone, and a
classifier that max-pools the real positions only.
"""

from __future__ import annotations

import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from coursekit.viz.diagrams.catalog import FIGURES
from coursekit.viz.diagrams.drawing import PALETTE, SUM
from coursekit.viz.diagrams.inspection import DrawnNode, drawn_arrows, drawn_nodes
from coursekit.viz.diagrams.transformer import POOLED_STATES, REAL_POSITIONS


@pytest.fixture(scope="module")
def figures() -> dict[str, Figure]:
    names = ("scaled-dot-product-attention", "multi-head-attention", "transformer")
    names += ("attention-masks", "residual-connections", "decoder-only-lm")
    names += ("transformer-classifier",)
    return {name: FIGURES[name]() for name in names}


def successors(figure: Figure) -> dict[str, list[str]]:
    """For each node's text, the texts of the nodes its arrows reach."""
    following: dict[str, list[str]] = {}
    for arrow in drawn_arrows(figure):
        if arrow.source and arrow.target:
            following.setdefault(arrow.source.text, []).append(arrow.target.text)
    return following


def chain(following: dict[str, list[str]], first: str, length: int) -> list[str]:
    """The texts met by following the single arrow out of each node, from ``first``."""
    texts = [first]
    while len(texts) < length:
        (after,) = following[texts[-1]]
        texts.append(after)
    return texts


def test_attention_runs_scores_scale_mask_softmax_then_the_values(figures) -> None:
    following = successors(figures["scaled-dot-product-attention"])
    steps = chain(following, "$Q\\,K^{\\top}$\nMatMul", 5)
    assert [step.split("\n")[0] for step in steps] == [
        r"$Q\,K^{\top}$", r"$\times\ 1/\sqrt{d_k}$", "$+\\ M$", "softmax", r"$A\,V$",
    ]  # fmt: skip


def test_each_projection_feeds_the_heads_whose_concatenation_is_mixed_by_w_o(figures) -> None:
    following = successors(figures["multi-head-attention"])
    heads = [text for text in following if text.startswith("scaled dot-product")]
    for name in "QKV":
        assert following[f"${name}\\,W_i^{{{name}}}$\nlinear"] == heads
    (concat,) = following[heads[0]]
    assert concat.startswith("Concat(head") and following[concat] == ["$W^O$\nlinear"]


def test_every_sublayer_has_its_add_and_norm_and_the_memory_reaches_cross_attention(
    figures,
) -> None:
    figure = figures["transformer"]
    nodes = drawn_nodes(figure)
    norms = [node for node in nodes if node.text == "Add & Norm"]
    sublayers = [node for node in nodes if node.text.split("\n")[0] in
                 ("multi-head attention", "feed forward")]  # fmt: skip
    assert len(norms) == len(sublayers) == 5, "2 encoder and 3 decoder sublayers"
    arrows = drawn_arrows(figure)
    for norm in norms:
        into = [arrow for arrow in arrows if arrow.target == norm]
        assert len(into) == 2, "the sublayer's output and the residual path"
        assert sum(arrow.source in sublayers for arrow in into) == 1
    cross = next(node for node in nodes if node.text.endswith("encoder-decoder"))
    encoder_top = max((n for n in norms if n.center[0] < cross.center[0]), key=_height)
    assert any(a.source == encoder_top and a.target == cross for a in arrows)
    top = max(norms, key=_height)
    assert successors(figure)[top.text].count("linear") == 1


def _height(node: DrawnNode) -> float:
    return node.center[1]


def test_masks_block_padding_the_future_and_only_the_future_of_cached_queries(figures) -> None:
    cells = [node for node in drawn_nodes(figures["attention-masks"]) if node.text == ""]
    blocked = to_hex(PALETTE["mask_blocked"])
    grey = [to_hex(cell.patch.get_facecolor()) == blocked for cell in cells]
    assert len(cells) == 3 * 36 + 12
    per_grid = [sum(grey[k * 36 : (k + 1) * 36]) for k in range(3)] + [sum(grey[108:])]
    assert per_grid == [0, 12, 15, 1]


def test_layer_norm_follows_the_sum_in_post_norm_and_precedes_the_sublayer_in_pre_norm(
    figures,
) -> None:
    figure = figures["residual-connections"]
    columns: dict[bool, list[DrawnNode]] = {}
    for node in drawn_nodes(figure):
        columns.setdefault(node.center[0] > 3.5, []).append(node)
    post, pre = (sorted(columns[side], key=_height) for side in (False, True))
    assert [node.text for node in post] == ["sublayer S", "dropout", SUM, "LayerNorm"]
    assert [node.text for node in pre] == ["LayerNorm", "sublayer S", "dropout", SUM]


def test_the_cached_step_appends_its_key_and_value_and_attends_over_the_cache(figures) -> None:
    figure = figures["decoder-only-lm"]
    following = successors(figure)
    nodes = drawn_nodes(figure)
    (attend,) = [node.text for node in nodes if node.text.startswith(r"softmax$(q_t K")]
    assert following["$W^K$"] == ["$k_{t}$"] and following["$W^V$"] == ["$v_{t}$"]
    assert following["$W^Q$"] == [attend], "only the new token's query, no cached queries"
    assert sorted(following["$k_{1}$"] + following["$v_{1}$"]) == [attend, attend]
    cached = to_hex(PALETTE["linear"])
    keys = [node for node in nodes if node.text.startswith("$k_")]
    assert [to_hex(node.patch.get_facecolor()) == cached for node in keys] == [True] * 3 + [False]
    assert [node.text for node in sorted(keys, key=_height)][:2] == ["$k_{t}$", "$k_{t-1}$"]
    chain_texts = chain(following, "LayerNorm", 2)
    assert chain_texts[1].startswith(r"softmax$(h\,W_{out}")
    (causal,) = [node for node in nodes if node.text.startswith("causal self-attention")]
    assert following[causal.text][0].startswith("feed forward")


def test_the_classifier_max_pools_the_real_positions_only(figures) -> None:
    figure = figures["transformer-classifier"]
    following = successors(figure)
    (pool,) = [text for text in following if text.startswith("$v_k")]
    assert following[pool] == ["$W\\,v + b$\nlinear (after dropout)"]
    encoder = next(text for text in following if text.startswith("encoder layer"))
    assert following[encoder] == [pool]
    maxima = [max(row[:REAL_POSITIONS]) for row in POOLED_STATES]
    padding_wins = [
        max(row[REAL_POSITIONS:]) > best for row, best in zip(POOLED_STATES, maxima, strict=True)
    ]
    assert any(padding_wins), "the example shows padding that would win an unmasked max"
    marked = [
        float(node.text) for node in drawn_nodes(figure)
        if to_hex(node.patch.get_facecolor()) == to_hex(PALETTE["attention"]) and node.text
        and not node.text.startswith("encoder")
    ]  # fmt: skip
    pooled = [
        float(node.text) for node in drawn_nodes(figure)
        if to_hex(node.patch.get_facecolor()) == to_hex(PALETTE["state"])
    ]  # fmt: skip
    assert marked == maxima and pooled == maxima
