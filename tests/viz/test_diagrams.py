"""The book's architecture diagrams (coursekit.viz.diagrams: .catalog, .embed, .recurrent): each
renders at the text column's width with readable, non-colliding labels, shows what its chapter
promises, wires its nodes as the equations say, and the chapters hold exactly what the command
draws.
"""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.text import Text
from PIL import Image

from coursekit.page import TEXT_COLUMN_WIDTH
from coursekit.viz.diagrams.catalog import FIGURES
from coursekit.viz.diagrams.drawing import (
    GRADIENT_INK,
    INK,
    ONE_MINUS,
    PALETTE,
    PRODUCT,
    SMALLEST_FONT_SIZE,
    SUM,
    png_bytes,
    software_stamp,
)
from coursekit.viz.diagrams.embed import EMBEDDED_IMAGE, figure_cells, figure_data_uri, main
from coursekit.viz.diagrams.inspection import (
    DrawnArrow,
    DrawnNode,
    drawn_arrows,
    drawn_nodes,
    overlapping_labels,
)

REGENERATE = "make figures"
TANH = r"$\tanh$"
SIGMA = r"$\sigma$"

PROMISED_LABELS = {
    "rnn-unrolled": [
        "$x_{t}$", "$h_{t}$", "$o_{t}$", "$L_{t}$", "$h_0$",
        *[f"${name}_{{{t}}}$" for name in "xhoL" for t in range(1, 5)],
        "$W_{hx}$", "$W_{hh}$", "$W_{qh}$", r"$\partial L / \partial h_t$", "T = 4",
    ],
    "rnn-cell": [
        r"W_{hx}\,x_t", r"W_{hh}\,h_{t-1}", "b_h", TANH, "$h_{t-1}$", "$h_t$", "$x_t$",
        r"$o_t = W_{qh}\,h_t + b_q$",
    ],
    "lstm-cell": [
        "forget gate", "input gate", "candidate", "output gate", "$F_t$", "$I_t$",
        r"$\tilde{C}_t$", "$O_t$", "$C_{t-1}$", "$C_t$", "$H_{t-1}$", "$H_t$", "$x_t$", SIGMA,
        TANH, PRODUCT, SUM, "memory line",
    ],
    "deep-bidirectional-rnn": [
        "num_layers = 2", "layer 2 reads layer 1's states", "$H^{(1)}_{3}$", "$H^{(2)}_{3}$",
        r"$\overrightarrow{H}_{3}$", r"$\overleftarrow{H}_{1}$", "$x_{1}$", "bidirectional",
        r"$o_t = [\overrightarrow{H}_t; \overleftarrow{H}_t]$", "final states",
    ],
    "gru-cell": [
        "update gate", "reset gate", "$Z_t$", "$R_t$", "$N_t$", "$1 - Z_t$", r"W_{hn}\,H_{t-1}",
        "b_{hn}", r"W_{in}\,x_t", "b_{in}", "$H_{t-1}$", "$H_t$", "$x_t$", SIGMA, TANH, PRODUCT,
        SUM, ONE_MINUS, "reset after the product",
    ],
    "encoder-decoder": [
        "encoder", "decoder", "drei", "zwanzig", "twenty", "<sos>", "<eos>", "$h_3$", "$s_1$",
        "$s_0 = v = h_3$", "thought vector",
    ],
    "beam-search": [
        "<sos>", "A  0.5", "B  0.4", "<eos>  0.1", "A <eos>  0.20", "B <eos>  0.36", "keep 2 of 3",
        r"O(k\,|V|\,T')", "greedy",
    ],
    "bahdanau-attention": [
        r"v^\top \tanh(W_q\, s_{t-1} + W_k\, h_i)", r"\mathrm{softmax}_i", r"c_t = \sum_i",
        r"\mathrm{GRU}(s_{t-1}, [E\,y_{t-1}; c_t])", r"W_o\,[s_t; c_t; E\,y_{t-1}]", "$h_4$",
        "query", "values", "keys and values",
    ],
    "luong-attention": [
        r"\mathrm{score}(s_t, h_i)", "dot, general or concat", r"\tanh(W_c\,[c_t; s_t])",
        r"\mathrm{softmax}(W_y\,\tilde{s}_t)", r"[E\,y_{t-1}; \tilde{s}_{t-1}]", "values",
        "is fed to step",
    ],
    "key-value-lookup": [
        "soft lookup", "hard lookup (a dictionary)", "$q$", "$k_1$", "$k_4$", "$v_4$",
        r"$e_j = k_j^\top q$", r"\mathrm{softmax}(e)", r"\arg\max_j", r"\sum_j \alpha_j\, v_j",
        "$v_{j^*} = v_2$", "0.71", "1.00", "no gradient",
    ],
    "local-attention": [
        "soft:", "local-m: $p_t = t = 4$", r"|j - p_t| \leq D = 2",
        r"\sigma(v_p^\top \tanh(W_p\, s_t))", r"(j - p_t)^2 / 2\sigma^2", r"\sigma = D/2",
        "$p_t - D$", "$p_t + D$", r"c_t = h_{j^*}", "weights sum to 1.00", "position $j$", "12",
    ],
    "pointer-network": [
        "$e_1$", "$d_4$", "start", "7", "3", "9", "5", r"W_1 e_j + W_2 d_i", "points at an input",
    ],
    "scaled-dot-product-attention": [
        r"$Q\,K^{\top}$", r"\sqrt{d_k}", "$+\\ M$", "mask (optional)", "softmax", r"$A\,V$",
        "$Q$", "$K$", "$V$", "output",
    ],
    "multi-head-attention": [
        "W_i^{Q}", "W_i^{K}", "W_i^{V}", "scaled dot-product attention", "h heads in parallel",
        "Concat(head", "$W^O$", "MultiHead(Q, K, V)",
    ],
    "transformer": [
        "input embedding", "output embedding", "outputs (shifted right)", r"\sqrt{d_{model}}",
        "positional\nencoding", "self-attention", "masked (causal)", "encoder-decoder",
        "feed forward", "Add & Norm", "N ×", "× N", "memory: keys and values", "linear",
        "softmax", "output probabilities", SUM,
    ],
    "attention-masks": [
        "no mask", "padding", "causal", "with a cache", "query i", "key j <= i", "key j <= i + 4",
    ],
    "residual-connections": [
        "post-norm (the paper)", "pre-norm", "LayerNorm", "sublayer S", "dropout", "identity",
        SUM, "$x$",
    ],
    "transformer-classifier": [
        r"$\sqrt{d}\,E[x_t] + P(t)$", "encoder layer", "N ×", "no position attends to the padding",
        r"\max_{t \leq n} H[t, k]", "max-pooling over time", r"$W\,v + b$", "class logits", "<pad>",
        "pad", "the padding (grey) never wins",
    ],
    "decoder-only-lm": [
        r"E[x_i] + P(i)", "causal self-attention", "N ×", "LayerNorm", r"softmax$(h\,W_{out}",
        r"$P(x_{t+1} \mid x_1, \ldots, x_t)$", "$W^Q$", "$W^K$", "$W^V$", "$q_t$", "$k_{t-1}$",
        "$v_{t}$", "$K_{past}$", "not\nrecomputed", "append", r"softmax$(q_t K^{\top}",
        "one query over $t$ keys",
    ],
    "segment-recurrence": [
        "vanilla: each segment alone", "Transformer-XL: segment + memory", "memory (SG)",
        r"segment $\tau$", r"segment $\tau+1$", "$x$", "$h^1$", "$h^2$",
    ],
    "relative-attention": [
        r"$\mathrm{SG}(m^{n-1})$", "$h^{n-1}$", "$R_{i-j}$", r"$\tilde{h} = [\mathrm{SG}(m) \circ h]$",
        "$W_q$", "$W_{k,E}$", "$W_v$", "$W_{k,R}$", r"(q_i + u)^\top k_j", r"(q_i + v)^\top r_{i-j}",
        "relative shift", "softmax", "LayerNorm", "$h^{n}$",
    ],
    "relative-shift": [
        '"i,d"', "[Q, K], by distance", "[Q, K + 1]", "read as [K + 1, Q]", "dropped", "0,4", "2,0",
        "$(i, Q-1-i+j)$ of [Q, K]", "$d = i + M - j$", "future keys $j > i + M$", "$j = 4$", "$i = 2$",
    ],
    "two-stream": [
        "$h^{(m-1)}$", "$g^{(m-1)}$", "content mask", "query mask", "content stream",
        "query stream", "same weights, two streams", r"$x_3 \to x_2 \to x_4 \to x_1$",
    ],
    "bert-input": [
        "[CLS]", "[SEP]", "##ing", "token\nembeddings", "segment\nembeddings",
        "position\nembeddings", "$E_A$", "$E_B$", "$E_{0}$", "$E_{8}$", "LayerNorm",
    ],
    "bert-pretraining": [
        "[MASK]", "[CLS]", "$C$", "pooler", "NSP: IsNext / NotNext", "MLM: hairy", "(tied)",
        "multi-head self-attention", "feed-forward network, GELU", "add & LayerNorm",
    ],
    "bert-finetuning": [
        "sentence pair: entailment?", "single sentence: sentiment", "span question answering",
        "token classification: entities", "class: $W\\,C + b$", r"start $S\cdot T_i$", "B-PER",
        "pretrained BERT",
    ],
}  # fmt: skip


@pytest.fixture(scope="module")
def figures() -> dict[str, Figure]:
    """Every diagram, drawn once for this module."""
    return {name: draw() for name, draw in FIGURES.items()}


def texts_of(figure: Figure) -> list[str]:
    """Every non-empty text of ``figure``."""
    return [text.get_text() for text in figure.findobj(Text) if text.get_text()]


def edges(figure: Figure) -> set[tuple[str, str]]:
    """(source text, target text) of every arrow that joins two nodes, black and solid."""
    return {
        (arrow.source.text, arrow.target.text)
        for arrow in drawn_arrows(figure)
        if arrow.source and arrow.target and arrow.color == to_hex(INK) and not arrow.dashed
    }


def joins(arrow: DrawnArrow, source: str, target: str) -> bool:
    """True when ``arrow`` goes from the node showing ``source`` to the one showing ``target``."""
    ends = (
        arrow.source.text if arrow.source else None,
        arrow.target.text if arrow.target else None,
    )
    return ends == (source, target)


def test_every_figure_promises_labels():
    assert set(PROMISED_LABELS) == set(FIGURES)


@pytest.mark.parametrize("name", list(FIGURES))
def test_figure_renders_white_within_the_text_column_in_readable_type(figures, name):
    figure = figures[name]
    width, _ = figure.get_size_inches()
    assert width <= TEXT_COLUMN_WIDTH
    assert to_hex(figure.get_facecolor()) == "#ffffff"
    png = io.BytesIO()
    figure.savefig(png, format="png", dpi=60)
    assert png.getvalue().startswith(b"\x89PNG")
    sizes = {
        text.get_text(): text.get_fontsize() for text in figure.findobj(Text) if text.get_text()
    }
    assert min(sizes.values()) >= SMALLEST_FONT_SIZE, sizes


@pytest.mark.parametrize("name", list(FIGURES))
def test_figure_shows_every_label_it_promises(figures, name):
    texts = texts_of(figures[name])
    missing = [label for label in PROMISED_LABELS[name] if not any(label in t for t in texts)]
    assert missing == [], f"{name} lacks {missing}; it shows {texts}"


@pytest.mark.parametrize("name", list(FIGURES))
def test_figure_has_no_colliding_text(figures, name):
    assert overlapping_labels(figures[name]) == []


def test_the_same_operation_has_the_same_colour_in_every_figure(figures):
    colour_of = {SIGMA: "sigmoid", TANH: "tanh", PRODUCT: "pointwise", SUM: "pointwise"}
    colour_of[ONE_MINUS] = "pointwise"
    seen = set()
    for figure in figures.values():
        for node in drawn_nodes(figure):
            first_line = node.text.split("\n")[0]
            if first_line in colour_of:
                assert to_hex(node.patch.get_facecolor()) == PALETTE[colour_of[first_line]]
                seen.add(first_line)
    assert seen == set(colour_of)


def test_unrolled_rnn_passes_the_state_forward_and_the_gradient_back(figures):
    arrows = drawn_arrows(figures["rnn-unrolled"])
    states = ["$h_0$", *[f"$h_{{{t}}}$" for t in range(1, 5)]]
    for before, after in zip(states, states[1:], strict=False):
        forward = [a for a in arrows if joins(a, before, after)]
        backward = [a for a in arrows if joins(a, after, before)]
        assert [(a.color, a.dashed) for a in forward] == [(to_hex(INK), False)]
        assert [(a.color, a.dashed) for a in backward] == [(to_hex(GRADIENT_INK), True)]
    steps = {(f"$x_{{{t}}}$", f"$h_{{{t}}}$") for t in range(1, 5)}
    steps |= {(f"$h_{{{t}}}$", f"$o_{{{t}}}$") for t in range(1, 5)}
    steps |= {(f"$o_{{{t}}}$", f"$L_{{{t}}}$") for t in range(1, 5)}
    assert steps <= edges(figures["rnn-unrolled"])
    assert ("$h_{t}$", "$h_{t}$") in edges(figures["rnn-unrolled"]), "the folded cell's loop"


def test_rnn_cell_squashes_the_affine_map_with_tanh(figures):
    affine = r"$W_{hx}\,x_t + W_{hh}\,h_{t-1} + b_h$"
    assert (affine, TANH) in edges(figures["rnn-cell"])
    into_affine = [
        a for a in drawn_arrows(figures["rnn-cell"]) if a.target and a.target.text == affine
    ]
    assert len(into_affine) == 2, "x_t and h_{t-1} both enter the affine map"


class Wiring:
    """Which node feeds which in a drawn figure (arrows with a node at both ends)."""

    def __init__(self, figure: Figure) -> None:
        self.nodes = drawn_nodes(figure)
        self.arrows = [arrow for arrow in drawn_arrows(figure) if arrow.source and arrow.target]

    def node(self, text: str) -> DrawnNode:
        (found,) = [node for node in self.nodes if node.text == text]
        return found

    def after(self, node: DrawnNode) -> list[DrawnNode]:
        return [arrow.target for arrow in self.arrows if arrow.source == node]

    def before(self, node: DrawnNode) -> list[DrawnNode]:
        return [arrow.source for arrow in self.arrows if arrow.target == node]


def test_lstm_memory_line_runs_along_the_top_through_forget_and_write(figures):
    wiring = Wiring(figures["lstm-cell"])
    (keep,) = wiring.after(wiring.node(f"{SIGMA}\nforget gate"))
    (written,) = wiring.after(wiring.node(f"{SIGMA}\ninput gate"))
    assert wiring.after(wiring.node(f"{TANH}\ncandidate")) == [written]
    (shown,) = wiring.after(wiring.node(f"{SIGMA}\noutput gate"))
    assert [keep.text, written.text, shown.text] == [PRODUCT] * 3
    assert keep != written and written != shown and shown != keep
    (add,) = wiring.after(keep)
    assert add.text == SUM and wiring.after(written) == [add]
    assert [node.text for node in wiring.before(shown)] == [TANH, f"{SIGMA}\noutput gate"]
    rest = [node.center[1] for node in wiring.nodes if node not in (keep, add)]
    assert min(keep.center[1], add.center[1]) > max(rest), "the memory line runs on top"


def test_gru_resets_after_the_product_then_adds_the_input_part(figures):
    wiring = Wiring(figures["gru-cell"])
    hidden_part = wiring.node("$W_{hn}\\,H_{t-1}$\n$+\\ b_{hn}$")
    input_part = wiring.node("$W_{in}\\,x_t$\n$+\\ b_{in}$")
    assert wiring.before(hidden_part) == [], "resetting H_{t-1} before W_hn is the paper's form"
    (reset_product,) = wiring.after(hidden_part)
    assert reset_product.text == PRODUCT, "R_t multiplies W_hn H_{t-1} + b_hn (PyTorch's form)"
    assert {node.text for node in wiring.before(reset_product)} == {
        f"{SIGMA}\nreset gate",
        hidden_part.text,
    }
    (candidate_sum,) = wiring.after(reset_product)
    assert candidate_sum.text == SUM and wiring.after(input_part) == [candidate_sum]
    (squash,) = wiring.after(candidate_sum)
    (mix,) = wiring.after(squash)
    assert (squash.text, mix.text) == (TANH, PRODUCT)
    assert {node.text for node in wiring.before(mix)} == {TANH, ONE_MINUS}
    (new_state,) = wiring.after(mix)
    assert new_state.text == SUM
    assert sorted(node.text for node in wiring.before(new_state)) == [PRODUCT, PRODUCT]


def test_stacked_layers_read_the_layer_below_and_directions_run_opposite_ways(figures):
    wiring = edges(figures["deep-bidirectional-rnn"])
    steps = (1, 2, 3)
    stacked = {(f"$x_{{{t}}}$", f"$H^{{(1)}}_{{{t}}}$") for t in steps}
    stacked |= {(f"$H^{{(1)}}_{{{t}}}$", f"$H^{{(2)}}_{{{t}}}$") for t in steps}
    for layer in (1, 2):
        stacked |= {
            (f"$H^{{({layer})}}_{{{t}}}$", f"$H^{{({layer})}}_{{{t + 1}}}$") for t in (1, 2)
        }
    forward = [rf"$\overrightarrow{{H}}_{{{t}}}$" for t in steps]
    backward = [rf"$\overleftarrow{{H}}_{{{t}}}$" for t in steps]
    inputs = [f"$x_{{{t}}}$" for t in steps]
    both = {*zip(inputs, forward, strict=True), *zip(inputs, backward, strict=True)}
    both |= {*zip(forward[:-1], forward[1:], strict=True)}
    both |= {*zip(backward[1:], backward[:-1], strict=True)}
    assert stacked | both == wiring, "nothing else is drawn, and nothing runs against time"


def stored_figures(repo_root: Path) -> dict[str, tuple[Path, bytes]]:
    """Each diagram the chapters show: the notebook holding it and its PNG's bytes."""
    stored = {}
    for path in sorted((repo_root / "book").glob("*.ipynb")):
        for name, cell in figure_cells(json.loads(path.read_text(encoding="utf-8"))):
            image = EMBEDDED_IMAGE.search("".join(cell["source"]))
            assert image is not None and name not in stored, name
            encoded = image.group(1).removeprefix("data:image/png;base64,")
            stored[name] = (path, base64.b64decode(encoded, validate=True))
    return stored


def test_every_diagram_is_shown_by_a_chapter_once(repo_root: Path):
    assert sorted(stored_figures(repo_root)) == sorted(FIGURES)


def test_the_chapters_hold_exactly_what_the_command_draws(repo_root: Path):
    for name, (path, stored) in stored_figures(repo_root).items():
        with Image.open(io.BytesIO(stored)) as image:
            made_with = image.info.get("Software")
        if made_with != software_stamp():
            pytest.skip(
                f"{path.name} holds {name} drawn with {made_with} and this is "
                f"{software_stamp()}: bytes differ between versions; run `{REGENERATE}`"
            )
        assert stored == png_bytes(FIGURES[name]()), (
            f"{path.name} holds a {name} that is not what the code draws now: run `{REGENERATE}`"
        )


def test_the_command_redraws_a_stale_image_and_leaves_the_rest(tmp_path: Path, capsys):
    stale = "data:image/png;base64," + base64.b64encode(b"stale").decode()
    cells = [
        {
            "cell_type": "markdown",
            "metadata": {"figure": "rnn-cell"},
            "source": [f"![An RNN]({stale})"],
        },
        {"cell_type": "markdown", "metadata": {}, "source": ["Text."]},
    ]
    notebook = tmp_path / "chapter.ipynb"
    notebook.write_text(json.dumps({"cells": cells}), encoding="utf-8")
    assert main([str(notebook)]) == 0
    assert capsys.readouterr().out == f"{notebook}: rnn-cell redrawn\n"
    redrawn = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    assert "".join(redrawn[0]["source"]) == f"![An RNN]({figure_data_uri('rnn-cell')})"
    assert redrawn[1] == cells[1]
    assert main([str(notebook)]) == 0 and capsys.readouterr().out == "", "nothing left to redraw"


def test_a_figure_cell_must_name_a_diagram_and_hold_one_image(tmp_path: Path):
    unknown = {"cells": [{"cell_type": "markdown", "metadata": {"figure": "nope"}, "source": []}]}
    with pytest.raises(ValueError, match="'nope'"):
        list(figure_cells(unknown))
    empty = {"cells": [{"cell_type": "markdown", "metadata": {"figure": "rnn-cell"}, "source": []}]}
    with pytest.raises(ValueError, match="exactly one embedded PNG"):
        list(figure_cells(empty))
