"""The diagrams of Chapter 4 (coursekit.viz.diagrams.seq2seq) draw what the models compute: the
thought vector is the only path from the encoder to the decoder, Bahdanau's step scores with s_{t-1}
before the update and Luong's with s_t after it, the pointer network points at the inputs
in sorted order, the soft lookup reads every value and the hard one exactly one, and the local
weights drawn are what LocalAttention computes. (tests/viz/test_diagrams.py checks their size,
type and labels.)
"""

from __future__ import annotations

import pytest
import torch
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.text import Text

from coursekit.generate import beam_search
from coursekit.models.seq2seq.attention import Attention
from coursekit.models.seq2seq.local_attention import LocalAttention
from coursekit.viz.diagrams.catalog import FIGURES
from coursekit.viz.diagrams.drawing import INK, PALETTE
from coursekit.viz.diagrams.inspection import DrawnArrow, drawn_arrows, drawn_nodes
from coursekit.viz.diagrams.seq2seq import (
    BEAM_FIRST,
    BEAM_NEXT,
    BEAM_SIZE,
    LOCAL_HALF_WIDTH,
    LOCAL_PREDICTED,
    LOCAL_SCORES,
    LOCAL_STEP,
    LOOKUP_SCORES,
    POINTER_INPUTS,
    bahdanau_figure,
    beam_search_figure,
    encoder_decoder_figure,
    key_value_lookup_figure,
    local_attention_figure,
    local_weights,
    luong_figure,
    pointer_figure,
)

CHAPTER_FIGURES = {
    "encoder-decoder": encoder_decoder_figure,
    "bahdanau-attention": bahdanau_figure,
    "luong-attention": luong_figure,
    "pointer-network": pointer_figure,
    "beam-search": beam_search_figure,
    "key-value-lookup": key_value_lookup_figure,
    "local-attention": local_attention_figure,
}


@pytest.fixture(scope="module")
def figures() -> dict[str, Figure]:
    return {name: draw() for name, draw in CHAPTER_FIGURES.items()}


def node_feeds(figure: Figure) -> set[tuple[str, str]]:
    """(first line of the source node, first line of the target node) of every solid arrow."""
    return {
        (arrow.source.text.split("\n")[0], arrow.target.text.split("\n")[0])
        for arrow in drawn_arrows(figure)
        if arrow.source and arrow.target and not arrow.dashed
    }


def first_line_containing(figure: Figure, fragment: str) -> str:
    (found,) = {
        node.text.split("\n")[0]
        for node in drawn_nodes(figure)
        if fragment in node.text.split("\n")[0]
    }
    return found


def nodes_named(figure: Figure, **fragments: str) -> dict[str, str]:
    """The first line of the one node containing each fragment, by the role it plays."""
    return {role: first_line_containing(figure, fragment) for role, fragment in fragments.items()}


def test_the_chapter_registers_its_figures() -> None:
    assert {name: FIGURES[name] for name in CHAPTER_FIGURES} == CHAPTER_FIGURES


def test_the_thought_vector_is_the_only_path_from_encoder_to_decoder(figures) -> None:
    feeds = node_feeds(figures["encoder-decoder"])
    encoder = {"$h_1$", "$h_2$", "$h_3$"}
    decoder = {"$s_1$", "$s_2$", "$s_3$"}
    crossing = {(a, b) for a, b in feeds if a in encoder and b in decoder}
    assert crossing == {("$h_3$", "$s_1$")}
    assert {("<sos>", "$s_1$"), ("$s_1$", "twenty"), ("twenty", "$s_2$")} <= feeds
    assert ("$s_3$", "<eos>") in feeds


STEP_ROLES = {
    "bahdanau-attention": dict(
        score="W_q", weights=r"\mathrm{softmax}_i", context=r"c_t = \sum_i", update="GRU",
        output="W_o",
    ),
    "luong-attention": dict(
        update="RNN", score=r"\mathrm{score}", weights=r"\mathrm{softmax}_i",
        context=r"c_t = \sum_i", attentional="W_c", output="W_y",
    ),
}  # fmt: skip
STEP_EDGES = {  # Bahdanau: look with s_{t-1}, then update; Luong: update, then look with s_t
    "bahdanau-attention": [
        ("$s_{t-1}$", "score"), ("$s_{t-1}$", "update"), ("score", "weights"),
        ("weights", "context"), ("context", "update"), ("update", "output"), ("$h_4$", "context"),
        *[(f"$h_{i}$", "score") for i in range(1, 5)],
    ],
    "luong-attention": [
        ("update", "score"), ("score", "weights"), ("weights", "context"),
        ("update", "attentional"), ("context", "attentional"), ("attentional", "output"),
    ],
}  # fmt: skip


@pytest.mark.parametrize("name", list(STEP_ROLES))
def test_each_decoder_step_is_wired_as_its_equations(figures, name) -> None:
    roles = nodes_named(figures[name], **STEP_ROLES[name])
    wanted = {(roles.get(a, a), roles.get(b, b)) for a, b in STEP_EDGES[name]}
    assert wanted - node_feeds(figures[name]) == set()


def test_luongs_update_reads_only_the_inputs_below_it(figures) -> None:
    update = first_line_containing(figures["luong-attention"], "RNN")
    assert not [a for a, b in node_feeds(figures["luong-attention"]) if b == update]


def test_the_pointer_network_points_at_the_inputs_in_sorted_order(figures) -> None:
    figure = figures["pointer-network"]
    pointers: list[DrawnArrow] = [arrow for arrow in drawn_arrows(figure) if arrow.dashed]
    chosen = {
        arrow.source.text: arrow.target.text
        for arrow in pointers
        if arrow.source is not None and arrow.target is not None
    }
    order = sorted(range(len(POINTER_INPUTS)), key=lambda j: int(POINTER_INPUTS[j]))
    assert chosen == {f"$d_{i + 1}$": f"$e_{j + 1}$" for i, j in enumerate(order)}
    assert all(arrow.color == to_hex(INK) for arrow in pointers)
    state_fill = {
        to_hex(node.patch.get_facecolor())
        for node in drawn_nodes(figure)
        if node.text.startswith(("$e_", "$d_"))
    }
    assert state_fill == {PALETTE["state"]}


def test_the_beam_tree_keeps_what_beam_search_keeps_and_ends_where_it_ends(figures) -> None:
    nodes = drawn_nodes(figures["beam-search"])
    kept = {node.text for node in nodes if to_hex(node.patch.get_facecolor()) == PALETTE["state"]}
    assert kept == {"A  0.5", "B  0.4", "A <eos>  0.20", "B <eos>  0.36"}
    pruned = {
        node.text for node in nodes if to_hex(node.patch.get_facecolor()) == PALETTE["mask_blocked"]
    }
    assert pruned == {"<eos>  0.1", "A A  0.15", "A B  0.15", "B A  0.02", "B B  0.02"}
    words = ["<eos>", "A", "B"]  # token ids 0, 1, 2; 3 is <sos>
    table = torch.zeros(4, 3)
    for before, following in BEAM_NEXT.items():
        table[words.index(before)] = torch.tensor([following[word] for word in words])
    table[3] = torch.tensor([BEAM_FIRST[word] for word in words])
    table[0, 0] = 1.0

    def step(tokens: torch.Tensor, state: None) -> tuple[torch.Tensor, None]:
        return table[tokens].log(), state

    (best,) = beam_search(step, None, torch.tensor([3]), 0, beam_size=BEAM_SIZE, max_len=5)[0]
    shown = " ".join(words[token] for token in best.tokens)
    texts = [text.get_text() for text in figures["beam-search"].findobj(Text)]
    assert any(
        text.startswith(f"best:\n{shown}\nP = {torch.tensor(best.score).exp():.2f}")
        for text in texts
    )


def texts_of(figure: Figure) -> list[str]:
    return [text.get_text() for text in figure.findobj(Text) if text.get_text()]


def test_the_lookups_weigh_every_value_or_return_exactly_one(figures: dict[str, Figure]) -> None:
    figure = figures["key-value-lookup"]
    soft = torch.softmax(torch.tensor(LOOKUP_SCORES), dim=0)
    shown = [f"{weight:.2f}" for weight in soft.tolist()]
    best = int(torch.tensor(LOOKUP_SCORES).argmax())
    hard = ["1.00" if j == best else "0.00" for j in range(len(LOOKUP_SCORES))]
    assert texts_of(figure).count("0.00") == hard.count("0.00")
    assert set(shown) | {"1.00", "0.00"} <= set(texts_of(figure))
    feeds = node_feeds(figure)
    into_soft = {a for a, b in feeds if "sum_j" in b}
    into_hard = {a for a, b in feeds if "v_{j^*}" in b}
    assert into_soft == {f"$v_{j}$" for j in range(1, 5)}
    assert into_hard == {f"$v_{best + 1}$"}


class FixedScores(Attention):
    """A content score that returns LOCAL_SCORES for every query: the figure's e_{t,j}."""

    def score(self, queries: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        return torch.tensor(LOCAL_SCORES).expand(queries.shape[0], queries.shape[1], -1)


class FixedCentre(LocalAttention):
    """Local-p with the figure's predicted centre (0-based) in place of the learned one."""

    def window_centres(
        self, queries: torch.Tensor, lengths: torch.Tensor, steps: torch.Tensor | None
    ) -> torch.Tensor:
        return torch.full(queries.shape[:2], LOCAL_PREDICTED - 1.0)


def production_weights(module: LocalAttention, step: int | None = None) -> list[float]:
    source = len(LOCAL_SCORES)
    keys = torch.zeros(1, source, 1)
    _, weights = module(torch.zeros(1, 1), keys, keys, step=step)
    return weights.reshape(-1).tolist()


def test_the_local_weights_are_what_local_attention_computes() -> None:
    monotonic = LocalAttention(FixedScores(), LOCAL_HALF_WIDTH)
    assert local_weights(LOCAL_STEP) == pytest.approx(
        production_weights(monotonic, step=LOCAL_STEP - 1)  # positions count from 0 there
    )
    predictive = FixedCentre(FixedScores(), LOCAL_HALF_WIDTH, "predictive", 1, 1)
    assert local_weights(LOCAL_PREDICTED, gaussian=True) == pytest.approx(
        production_weights(predictive)
    )
    assert sum(local_weights(LOCAL_PREDICTED, gaussian=True)) < 1 - 0.1


def test_the_local_figure_prints_each_variants_sum(figures: dict[str, Figure]) -> None:
    sums = [
        f"weights sum to {sum(weights):.2f}"
        for weights in (local_weights(None), local_weights(LOCAL_STEP))
    ]
    local_p = f"weights sum to {sum(local_weights(LOCAL_PREDICTED, gaussian=True)):.2f}"
    texts = texts_of(figures["local-attention"])
    assert sums == ["weights sum to 1.00"] * 2 and local_p in texts
    assert texts.count("weights sum to 1.00") == 3, "soft, local-m and hard"
