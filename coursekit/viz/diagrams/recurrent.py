"""Diagrams of the recurrent networks: the unrolled RNN and the Elman cell (Chapter 2, RNNs and
backpropagation through time), the LSTM and GRU cells and the stacked and bidirectional networks
(Chapter 3, LSTM and GRU).

Boxes hold weights (grey: an affine map; orange: an affine map and σ, a gate; purple: an affine
map and tanh), circles are pointwise operations without weights (pink: ⊙, +, 1 -; purple: tanh).
"""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from coursekit.page import TEXT_COLUMN_WIDTH
from coursekit.viz.diagrams.drawing import (
    CAPTION_FONT_SIZE,
    FRAME_INK,
    GRADIENT_INK,
    LABEL_GAP,
    ONE_MINUS,
    PRODUCT,
    SUM,
    Box,
    Diagram,
)
from coursekit.viz.diagrams.shapes import Point

STATE_SIZE = (0.5, 0.38)
GATE_WIDTH = 1.05
MEMORY_LINE_WIDTH = 2.6
STEPS = 4


def gate(diagram: Diagram, center: Point, function: str, name: str) -> Box:
    """A gate or layer box: its nonlinearity (``"sigmoid"`` or ``"tanh"``) over its name."""
    symbol = r"$\sigma$" if function == "sigmoid" else r"$\tanh$"
    return diagram.box(center, symbol, function, caption=name, width=GATE_WIDTH)


def input_bus(
    diagram: Diagram, state_entry: Point, x_join: float, bus_y: float, boxes: Sequence[Box]
) -> None:
    """The line that feeds [x_t, H_{t-1}] to every gate: H_{t-1} comes from ``state_entry``
    (down to the bus if it lies above) and runs along ``bus_y`` into the last box, x_t joins it
    from below at ``x_join``, and a branch rises into each other box."""
    last = boxes[-1]
    corners = [(state_entry[0], bus_y)] if state_entry[1] != bus_y else []
    diagram.arrow(state_entry, last, via=[*corners, (last.center[0], bus_y)])
    diagram.junction((x_join, bus_y))
    diagram.label((x_join, 0.1), "$x_t$")
    diagram.arrow((x_join, 0.25), (x_join, bus_y), head=False)
    for box in boxes[:-1]:
        diagram.arrow(diagram.junction((box.center[0], bus_y)), box)


def unrolled_rnn_figure() -> Figure:
    """The RNN folded (one cell and its loop) and unrolled over STEPS steps (Chapter 2):
    h_t = tanh(W_hx x_t + W_hh h_{t-1} + b_h), o_t = W_qh h_t + b_q, a loss L_t per step, the
    same weights in every column, and dL/dh_t flowing back in time (red, dashed)."""
    diagram = Diagram(TEXT_COLUMN_WIDTH, 4.05)
    rows = {"x": 0.62, "h": 1.62, "o": 2.5, "L": 3.3}
    kinds = {"x": "input", "h": "state", "o": "output", "L": "loss"}
    width, height = STATE_SIZE

    def column(x: float, t: str) -> dict[str, Box]:
        return {
            name: diagram.box((x, y), f"${name}_{{{t}}}$", kinds[name], width=width, height=height)
            for name, y in rows.items()
        }

    folded = column(0.55, "t")
    diagram.arrow(folded["x"], folded["h"], label="$W_{hx}$", label_side="left")
    diagram.arrow(folded["h"], folded["o"], label="$W_{qh}$", label_side="left")
    diagram.arrow(folded["o"], folded["L"])
    loop_right = folded["h"].port("right")[0] + 0.3
    loop_out, loop_in = folded["h"].port("top", 0.75), folded["h"].port("right", 0.3)
    diagram.arrow(
        loop_out,
        loop_in,
        via=[
            (loop_out[0], loop_out[1] + 0.15),
            (loop_right, loop_out[1] + 0.15),
            (loop_right, loop_in[1]),
        ],
        label="$W_{hh}$",
    )
    diagram.label(
        (0.72, 3.92), "folded: one cell\nand a loop", fontsize=CAPTION_FONT_SIZE, va="top"
    )
    diagram.arrow((1.5, 0.2), (1.5, 3.85), head=False, color=FRAME_INK, linewidth=0.8)

    first = 2.15
    spacing = (7.0 - first) / STEPS
    previous = diagram.box((first, rows["h"]), "$h_0$", "state", width=width, height=height)
    for t in range(1, STEPS + 1):
        x = first + t * spacing
        nodes = column(x, str(t))
        last = t == STEPS
        diagram.arrow(nodes["x"], nodes["h"], label="$W_{hx}$" if last else "")
        diagram.arrow(nodes["h"], nodes["o"], label="$W_{qh}$" if last else "")
        diagram.arrow(nodes["o"], nodes["L"])
        diagram.arrow(previous, nodes["h"], label="$W_{hh}$", label_side="top")
        diagram.arrow(
            nodes["h"].port("bottom", 0.25),
            previous.port("bottom", 0.75),
            bend=-0.35,
            color=GRADIENT_INK,
            dashed=True,
        )
        previous = nodes["h"]
    diagram.label(
        (first, rows["x"]),
        "$\\partial L / \\partial h_t$\nflows back\nin time",
        fontsize=CAPTION_FONT_SIZE,
        color=GRADIENT_INK,
    )
    diagram.label(
        ((first + 7.0) / 2, 3.92),
        f"unrolled over T = {STEPS} steps: the same weights in every column",
        fontsize=CAPTION_FONT_SIZE,
        va="top",
    )
    return diagram.figure


def rnn_cell_figure() -> Figure:
    """The Elman RNN cell (Chapter 2): h_t = tanh(W_hx x_t + W_hh h_{t-1} + b_h), sent to the
    next step and to the output o_t = W_qh h_t + b_q."""
    diagram = Diagram(6.9, 3.0)
    y = 1.3
    diagram.frame((1.25, 0.55), (5.45, 2.0), "RNN cell")
    affine = diagram.box((2.75, y), "$W_{hx}\\,x_t + W_{hh}\\,h_{t-1} + b_h$", "linear")
    for x, state, step in ((0.7, "$h_{t-1}$", "from step $t-1$"), (6.1, "$h_t$", "to step $t+1$")):
        diagram.label((x, y + LABEL_GAP), state, va="bottom")
        diagram.label((x, y - LABEL_GAP), step, fontsize=CAPTION_FONT_SIZE, va="top")
    diagram.arrow((0.15, y), affine)
    diagram.label((affine.center[0], 0.15), "$x_t$")
    diagram.arrow((affine.center[0], 0.3), affine)
    activation = diagram.operation((4.5, y), r"$\tanh$", "tanh")
    diagram.arrow(affine, activation)
    split = diagram.junction((5.1, y))
    diagram.arrow(activation, split, head=False)
    diagram.arrow(split, (6.75, y))
    output = diagram.box((split[0], 2.5), "$o_t = W_{qh}\\,h_t + b_q$", "output")
    diagram.arrow(split, output, label="$h_t$", label_side="left")
    return diagram.figure


def lstm_cell_figure() -> Figure:
    """The LSTM cell (Chapter 3): gates F_t, I_t, O_t = σ(W x_t + W H_{t-1} + b), candidate
    C~_t = tanh(W x_t + W H_{t-1} + b); memory C_t = F_t ⊙ C_{t-1} + I_t ⊙ C~_t along the top,
    H_t = O_t ⊙ tanh(C_t)."""
    diagram = Diagram(7.4, 4.6)
    memory_y, product_y, gate_y, bus_y = 3.95, 2.8, 1.55, 0.62
    diagram.frame((0.72, 0.32), (6.62, 4.48), "LSTM cell")
    forget = gate(diagram, (1.55, gate_y), "sigmoid", "forget gate")
    write = gate(diagram, (2.8, gate_y), "sigmoid", "input gate")
    candidate = gate(diagram, (4.1, gate_y), "tanh", "candidate")
    show = gate(diagram, (5.35, gate_y), "sigmoid", "output gate")

    keep = diagram.operation((forget.center[0], memory_y), PRODUCT)
    add = diagram.operation((3.45, memory_y), SUM)
    written = diagram.operation((3.45, product_y), PRODUCT)
    memory_out = diagram.junction((6.2, memory_y))
    squash = diagram.operation((6.2, 3.1), r"$\tanh$", "tanh")
    shown = diagram.operation((6.2, 2.2), PRODUCT)

    diagram.label((0.38, memory_y), "$C_{t-1}$")
    diagram.arrow((0.7, memory_y), keep, linewidth=MEMORY_LINE_WIDTH)
    diagram.arrow(keep, add, linewidth=MEMORY_LINE_WIDTH)
    diagram.arrow(add, (6.95, memory_y), linewidth=MEMORY_LINE_WIDTH)
    diagram.label((7.0, memory_y), "$C_t$", ha="left")
    diagram.label((4.75, memory_y + 0.08), "memory line", fontsize=CAPTION_FONT_SIZE, va="bottom")

    diagram.arrow(forget, keep, label="$F_t$", label_at=0.45)
    diagram.arrow(write, written, via=[(write.center[0], product_y)], label="$I_t$", label_at=0.3)
    diagram.arrow(
        candidate,
        written,
        via=[(candidate.center[0], product_y)],
        label=r"$\tilde{C}_t$",
        label_at=0.3,
    )
    diagram.arrow(written, add)
    diagram.arrow(memory_out, squash)
    diagram.arrow(squash, shown)
    diagram.arrow(
        show,
        shown,
        via=[(show.center[0], shown.center[1])],
        label="$O_t$",
        label_side="top",
        label_at=0.7,
    )
    diagram.arrow(shown, (6.95, bus_y), via=[(shown.center[0], bus_y)])
    diagram.label((7.0, bus_y), "$H_t$", ha="left")

    diagram.label((0.38, bus_y), "$H_{t-1}$")
    input_bus(diagram, (0.7, bus_y), 1.05, bus_y, [forget, write, candidate, show])
    return diagram.figure


def gru_cell_figure() -> Figure:
    """The GRU cell in PyTorch's form (Chapter 3): R_t, Z_t = σ(W x_t + W H_{t-1} + b),
    N_t = tanh(W_in x_t + b_in + R_t ⊙ (W_hn H_{t-1} + b_hn)) (reset after the product),
    H_t = Z_t ⊙ H_{t-1} + (1 - Z_t) ⊙ N_t."""
    diagram = Diagram(7.4, 4.6)
    state_y, mix_y, candidate_y, gate_y, bus_y = 4.0, 3.3, 2.35, 1.45, 0.6
    diagram.frame((0.72, 0.3), (6.78, 4.48), "GRU cell (PyTorch's form)")
    update = gate(diagram, (1.75, gate_y), "sigmoid", "update gate")
    reset = gate(diagram, (2.95, gate_y), "sigmoid", "reset gate")
    hidden_part = diagram.box((4.15, gate_y), "$W_{hn}\\,H_{t-1}$\n$+\\ b_{hn}$", "linear")
    input_part = diagram.box((5.35, gate_y), "$W_{in}\\,x_t$\n$+\\ b_{in}$", "linear")

    keep = diagram.operation((update.center[0], state_y), PRODUCT)
    add = diagram.operation((6.35, state_y), SUM)
    complement = diagram.operation((5.35, mix_y), ONE_MINUS)
    write = diagram.operation((add.center[0], mix_y), PRODUCT)
    reset_product = diagram.operation((hidden_part.center[0], candidate_y), PRODUCT)
    candidate_sum = diagram.operation((input_part.center[0], candidate_y), SUM)
    squash = diagram.operation((add.center[0], candidate_y), r"$\tanh$", "tanh")

    diagram.label((0.38, state_y), "$H_{t-1}$")
    split = diagram.junction((1.0, state_y))
    diagram.arrow((0.7, state_y), keep)
    diagram.arrow(keep, add)
    diagram.arrow(add, (7.0, state_y))
    diagram.label((7.05, state_y), "$H_t$", ha="left")

    update_split = diagram.junction((update.center[0], mix_y))
    diagram.arrow(update, update_split, head=False, label="$Z_t$", label_side="left")
    diagram.arrow(update_split, keep)
    diagram.arrow(update_split, complement)
    diagram.arrow(complement, write, label="$1 - Z_t$", label_side="top")
    diagram.arrow(write, add)

    diagram.arrow(
        reset,
        reset_product,
        via=[(reset.center[0], candidate_y)],
        label="$R_t$",
        label_at=0.3,
        label_side="left",
    )
    diagram.arrow(hidden_part, reset_product)
    diagram.label(
        (reset_product.center[0], reset_product.port("top")[1] + LABEL_GAP),
        "reset after the product",
        fontsize=CAPTION_FONT_SIZE,
        va="bottom",
    )
    diagram.arrow(reset_product, candidate_sum)
    diagram.arrow(input_part, candidate_sum)
    diagram.arrow(candidate_sum, squash)
    diagram.arrow(squash, write, label="$N_t$")

    input_bus(diagram, split, 1.3, bus_y, [update, reset, hidden_part, input_part])
    return diagram.figure


def recurrent_columns(
    diagram: Diagram,
    xs: Sequence[float],
    nodes: dict[str, tuple[float, str, str]],
    feeds: Sequence[tuple[str, str]],
    carried: dict[str, int],
) -> None:
    """One column of nodes per step t = 1, 2, ... at ``xs``: ``nodes`` maps a name to its row,
    its label (a format string of ``t``) and its kind; within a column, ``feeds`` draws an
    arrow from each source to each target; ``carried`` passes a name's state to the next step
    (+1, left to right) or to the previous one (-1, right to left)."""
    columns = []
    for t, x in enumerate(xs, start=1):
        column = {
            name: diagram.box((x, y), label.format(t=t), kind, width=0.62, height=0.46)
            for name, (y, label, kind) in nodes.items()
        }
        for source, target in feeds:
            diagram.arrow(column[source], column[target])
        columns.append(column)
    for earlier, later in zip(columns, columns[1:], strict=False):
        for name, direction in carried.items():
            start, end = (earlier, later) if direction > 0 else (later, earlier)
            diagram.arrow(start[name], end[name])


def deep_and_bidirectional_figure() -> Figure:
    """Two ways to grow a recurrent network, drawn over three steps (Chapter 3, §3.10).
    Stacked (``num_layers=2``): H^(1)_t = cell^(1)(x_t, H^(1)_{t-1}) and H^(2)_t =
    cell^(2)(H^(1)_t, H^(2)_{t-1}), the top layer's states the outputs. Bidirectional: a forward
    network reads x_1..x_T (above the inputs), a backward one x_T..x_1 (below them), and
    o_t = [H→_t; H←_t]; each direction's final state lies at its own end, H→_T and H←_1."""
    diagram = Diagram(TEXT_COLUMN_WIDTH, 3.9)
    low, middle, high = 0.7, 1.75, 2.8
    stacked_xs = [0.75, 1.8, 2.85]
    recurrent_columns(
        diagram,
        stacked_xs,
        {
            "input": (low, "$x_{{{t}}}$", "input"),
            "layer 1": (middle, "$H^{{(1)}}_{{{t}}}$", "state"),
            "layer 2": (high, "$H^{{(2)}}_{{{t}}}$", "state"),
        },
        feeds=[("input", "layer 1"), ("layer 1", "layer 2")],
        carried={"layer 1": 1, "layer 2": 1},
    )
    centre = stacked_xs[1]
    diagram.label((centre, 3.6), "stacked: num_layers = 2", fontsize=CAPTION_FONT_SIZE)
    diagram.label((centre, 3.3), "layer 2 reads layer 1's states", fontsize=CAPTION_FONT_SIZE)
    diagram.label(
        (centre, 0.15), r"final states: $H^{(1)}_3$ and $H^{(2)}_3$", fontsize=CAPTION_FONT_SIZE
    )
    diagram.arrow((3.55, 0.2), (3.55, 3.8), head=False, color=FRAME_INK, linewidth=0.8)

    bidirectional_xs = [4.4, 5.5, 6.6]
    recurrent_columns(
        diagram,
        bidirectional_xs,
        {
            "input": (middle, "$x_{{{t}}}$", "input"),
            "forward": (high, r"$\overrightarrow{{H}}_{{{t}}}$", "state"),
            "backward": (low, r"$\overleftarrow{{H}}_{{{t}}}$", "state"),
        },
        feeds=[("input", "forward"), ("input", "backward")],
        carried={"forward": 1, "backward": -1},
    )
    centre = bidirectional_xs[1]
    diagram.label(
        (centre, 3.6),
        r"bidirectional: $o_t = [\overrightarrow{H}_t; \overleftarrow{H}_t]$",
        fontsize=CAPTION_FONT_SIZE,
    )
    diagram.label(
        (centre, 0.15),
        r"final states: $\overrightarrow{H}_3$ and $\overleftarrow{H}_1$",
        fontsize=CAPTION_FONT_SIZE,
    )
    return diagram.figure
