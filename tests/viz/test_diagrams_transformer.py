"""The diagrams of Chapter 5 wire their nodes as the equations say: attention's steps in order,
every head's projections into the attention, each Transformer sublayer into its Add & Norm with
a residual path, the encoder's output into the decoder's cross-attention, masks that block
exactly the keys their rule forbids, and LayerNorm on the right side of the residual sum.
"""

from __future__ import annotations

import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from coursekit.viz.diagrams import FIGURES
from coursekit.viz.drawing import PALETTE, SUM
from coursekit.viz.inspection import DrawnNode, drawn_arrows, drawn_nodes


@pytest.fixture(scope="module")
def figures() -> dict[str, Figure]:
    names = ("scaled-dot-product-attention", "multi-head-attention", "transformer")
    names += ("attention-masks", "residual-connections")
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
