"""Diagrams of sequence-to-sequence models and attention (Chapter 4, Seq2seq and attention): the
encoder-decoder without attention, one decoder step of Bahdanau's and of Luong's attention, the
pointer network, beam search, attention as a key-value lookup, and hard, soft and local attention.

Blue boxes are tokens read, green ones tokens produced, pale yellow ones states, yellow ones the
attention (scores and softmax), grey ones affine maps and sums, purple ones recurrent updates;
yellow bars are attention weights, WEIGHT_HEIGHT inches for a weight of 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from coursekit.models.seq2seq.attention import masked_softmax
from coursekit.viz.diagrams.drawing import CAPTION_FONT_SIZE, FRAME_INK, INK, PALETTE, Box, Diagram
from coursekit.viz.diagrams.shapes import Point

TOKEN_SIZE = (0.92, 0.38)
STATE_SIZE = (0.56, 0.38)
ENCODER_STATES = 4
SOURCE_WORDS = ("drei", "und", "zwanzig")
TARGET_WORDS = ("twenty", "three", "<eos>")
POINTER_INPUTS = ("7", "3", "9", "5")


def token(
    diagram: Diagram, center: Point, text: str, kind: str = "input", width: float = TOKEN_SIZE[0]
) -> Box:
    """A token read (``"input"``) or produced (``"output"``), in a box of one height."""
    return diagram.box(center, text, kind, width=width, height=TOKEN_SIZE[1])


def state(diagram: Diagram, center: Point, text: str) -> Box:
    """A recurrent state h_i, s_t or d_i, in a box of one size."""
    return diagram.box(center, text, "state", width=STATE_SIZE[0], height=STATE_SIZE[1])


def recurrent_row(
    diagram: Diagram, xs: Sequence[float], y: float, names: Sequence[str], first: Box | None
) -> list[Box]:
    """States at ``xs`` on row ``y``, each passing itself to the next (from ``first`` if given)."""
    boxes = [state(diagram, (x, y), name) for x, name in zip(xs, names, strict=True)]
    for before, after in zip([first, *boxes[:-1]], boxes, strict=True):
        if before is not None:
            diagram.arrow(before, after)
    return boxes


def encoder_decoder_figure() -> Figure:
    """The encoder-decoder without attention (Sutskever et al. 2014; Cho et al. 2014): the
    encoder reads x_1..x_S into h_1..h_S, the decoder starts from the thought vector
    s_0 = v = h_S and models P(y_t | y_<t, x) one token at a time, reading <sos> and then the
    previous target token (the true one with teacher forcing, its own when it generates)."""
    diagram = Diagram(7.4, 3.7)
    token_y, state_y, output_y = 0.62, 1.62, 2.62
    diagram.frame((0.1, 0.22), (3.05, 2.2), "encoder")
    diagram.frame((3.95, 0.22), (7.3, 3.2), "decoder")
    encoder_xs = (0.6, 1.575, 2.55)
    decoder_xs = (4.55, 5.65, 6.75)
    sources = [
        token(diagram, (x, token_y), word) for x, word in zip(encoder_xs, SOURCE_WORDS, strict=True)
    ]
    encoder = recurrent_row(diagram, encoder_xs, state_y, ["$h_1$", "$h_2$", "$h_3$"], None)
    for source, encoded in zip(sources, encoder, strict=True):
        diagram.arrow(source, encoded)
    inputs = ("<sos>", *TARGET_WORDS[:-1])
    read = [token(diagram, (x, token_y), word) for x, word in zip(decoder_xs, inputs, strict=True)]
    decoder = recurrent_row(diagram, decoder_xs, state_y, ["$s_1$", "$s_2$", "$s_3$"], None)
    diagram.arrow(encoder[-1], decoder[0], label="$s_0 = v = h_3$", label_side="top")
    for word, decoded, x in zip(TARGET_WORDS, decoder, decoder_xs, strict=True):
        produced = token(diagram, (x, output_y), word, "output")
        diagram.arrow(decoded, produced)
    for word_read, decoded in zip(read, decoder, strict=True):
        diagram.arrow(word_read, decoded)
    diagram.label(
        (1.9, 2.75),
        "the thought vector $v$: the whole\nsource in one fixed-size vector",
        fontsize=CAPTION_FONT_SIZE,
    )
    diagram.label(
        (5.65, 3.45), "reads <sos>, then the previous target word", fontsize=CAPTION_FONT_SIZE
    )
    return diagram.figure


def attention_column(diagram: Diagram, x: float, score: str, caption: str) -> tuple[Box, Box]:
    """The encoder states h_1..h_4 (keys and values) under a column that scores them against a
    query, normalises the scores and sums the values: returns the score and context boxes."""
    spacing = 0.78
    first = x - spacing * (ENCODER_STATES - 1) / 2
    keys = [
        state(diagram, (first + spacing * i, 0.62), f"$h_{i + 1}$") for i in range(ENCODER_STATES)
    ]
    diagram.label(
        (x, 0.17), "encoder states: keys and values", fontsize=CAPTION_FONT_SIZE, color=FRAME_INK
    )
    scores = diagram.box((x, 1.55), score, "attention", caption=caption, width=3.3)
    for key in keys:
        diagram.arrow(key, (key.center[0], scores.port("bottom")[1]))
    weights = diagram.box(
        (x, 2.5), r"$\alpha_{t,i} = \mathrm{softmax}_i\,(e_{t,i})$", "attention", width=3.3
    )
    context = diagram.box((x, 3.4), r"$c_t = \sum_i \alpha_{t,i}\, h_i$", "linear", width=3.3)
    diagram.arrow(scores, weights)
    diagram.arrow(weights, context)
    values_x = x + 1.95
    diagram.arrow(
        keys[-1],
        context,
        via=[(values_x, keys[-1].center[1]), (values_x, context.center[1])],
        label="values",
        label_at=0.5,
    )
    return scores, context


def bahdanau_figure() -> Figure:
    """One step of Bahdanau's decoder (Bahdanau et al. 2015): the previous state s_{t-1} scores
    every encoder state, e_{t,i} = v^T tanh(W_q s_{t-1} + W_k h_i); alpha_t = softmax(e_t);
    c_t = sum_i alpha_{t,i} h_i enters the recurrent update s_t = GRU(s_{t-1}, [E y_{t-1}; c_t])
    and the output P(y_t) = softmax(W_o [s_t; c_t; E y_{t-1}])."""
    diagram = Diagram(7.4, 4.95)
    scores, context = attention_column(
        diagram,
        4.85,
        r"$e_{t,i} = v^\top \tanh(W_q\, s_{t-1} + W_k\, h_i)$",
        "additive score, for every i",
    )
    previous = state(diagram, (1.55, 1.55), "$s_{t-1}$")
    diagram.arrow(previous, scores, label="query", label_side="top")
    update = diagram.box(
        (1.55, 3.4), r"$s_t = \mathrm{GRU}(s_{t-1}, [E\,y_{t-1}; c_t])$", "tanh", width=2.8
    )
    diagram.arrow(previous, update)
    diagram.arrow(context, update, label="$c_t$", label_side="top")
    output = diagram.box(
        (1.55, 4.3), r"$\mathrm{softmax}(W_o\,[s_t; c_t; E\,y_{t-1}])$", "output", width=2.8
    )
    diagram.arrow(update, output, label="$s_t$", label_side="left")
    diagram.label((0.5, 2.3), "$E\\,y_{t-1}$")
    diagram.arrow((0.5, 2.48), (0.5, update.port("bottom")[1]))
    diagram.label(
        (4.85, 4.3), "scores from $s_{t-1}$:\nlook, then update", fontsize=CAPTION_FONT_SIZE
    )
    return diagram.figure


def luong_figure() -> Figure:
    """One step of Luong's decoder (Luong et al. 2015): s_t = RNN(s_{t-1}, [E y_{t-1};
    s~_{t-1}]) first; then e_{t,i} = score(s_t, h_i), alpha_t = softmax(e_t),
    c_t = sum_i alpha_{t,i} h_i, the attentional state s~_t = tanh(W_c [c_t; s_t]) and
    P(y_t) = softmax(W_y s~_t); s~_t is fed to the next step (input feeding)."""
    diagram = Diagram(7.4, 4.95)
    scores, context = attention_column(
        diagram, 4.85, r"$e_{t,i} = \mathrm{score}(s_t, h_i)$", "dot, general or concat"
    )
    update = diagram.box(
        (1.55, 1.55), r"$s_t = \mathrm{RNN}(s_{t-1}, [E\,y_{t-1}; \tilde{s}_{t-1}])$", "tanh",
        width=2.9,
    )  # fmt: skip
    diagram.arrow(update, scores, label="$s_t$", label_side="top", label_at=0.55)
    for x, name in ((0.55, "$s_{t-1}$"), (1.55, "$E\\,y_{t-1}$"), (2.55, r"$\tilde{s}_{t-1}$")):
        diagram.label((x, 0.62), name)
        diagram.arrow((x, 0.8), (x, update.port("bottom")[1]))
    attentional = diagram.box(
        (1.55, 3.4), r"$\tilde{s}_t = \tanh(W_c\,[c_t; s_t])$", "tanh", width=2.9
    )
    diagram.arrow(context, attentional, label="$c_t$", label_side="top")
    diagram.arrow(update, attentional, label="$s_t$", label_side="left")
    output = diagram.box((1.55, 4.3), r"$\mathrm{softmax}(W_y\,\tilde{s}_t)$", "output", width=2.9)
    diagram.arrow(attentional, output)
    diagram.label(
        (4.85, 4.3),
        "scores from $s_t$: update, then look;\n" r"$\tilde{s}_t$ is fed to step $t+1$",
        fontsize=CAPTION_FONT_SIZE,
    )
    return diagram.figure


def pointer_figure() -> Figure:
    """A pointer network sorting 7 3 9 5 (Vinyals et al. 2015): the encoder reads the inputs
    into e_1..e_n; at output step i the decoder state d_i scores every input position,
    u^i_j = v^T tanh(W_1 e_j + W_2 d_i), and softmax_j(u^i) is the output distribution: the
    output is a position of the input, and the decoder reads the input it pointed at."""
    diagram = Diagram(7.4, 3.55)
    token_y, state_y = 0.75, 1.6
    encoder_xs = (0.55, 1.35, 2.15, 2.95)
    decoder_xs = (4.2, 5.0, 5.8, 6.6)
    diagram.frame((0.1, 0.4), (3.4, 2.0))
    diagram.frame((3.75, 0.4), (7.3, 2.0))
    names = [f"$e_{j + 1}$" for j in range(len(encoder_xs))]
    encoder = recurrent_row(diagram, encoder_xs, state_y, names, None)
    for x, value, encoded in zip(encoder_xs, POINTER_INPUTS, encoder, strict=True):
        diagram.arrow(token(diagram, (x, token_y), value, width=0.66), encoded)
    order = sorted(range(len(POINTER_INPUTS)), key=lambda j: int(POINTER_INPUTS[j]))
    reads = ["start", *(POINTER_INPUTS[j] for j in order[:-1])]
    names = [f"$d_{i + 1}$" for i in range(len(decoder_xs))]
    decoder = recurrent_row(diagram, decoder_xs, state_y, names, encoder[-1])
    for x, value, decoded in zip(decoder_xs, reads, decoder, strict=True):
        diagram.arrow(token(diagram, (x, token_y), value, width=0.66), decoded)
    for i, (decoded, chosen) in enumerate(zip(decoder, order, strict=True)):
        target = encoder[chosen]
        diagram.arrow(
            decoded.port("top", 0.5), target.port("top", 0.5), bend=0.3 - 0.03 * i, dashed=True
        )
    diagram.label(
        (3.7, 3.3),
        r"$P(C_i = j) = \mathrm{softmax}_j\,(v^\top \tanh(W_1 e_j + W_2 d_i))$: each step "
        "points at an input",
        fontsize=CAPTION_FONT_SIZE,
    )
    diagram.label((1.75, 0.2), "encoder", fontsize=CAPTION_FONT_SIZE, color=FRAME_INK)
    diagram.label(
        (5.5, 0.2),
        "decoder: reads the input it pointed at last",
        fontsize=CAPTION_FONT_SIZE,
        color=FRAME_INK,
    )
    return diagram.figure


BEAM_FIRST = {"A": 0.5, "B": 0.4, "<eos>": 0.1}
"""The toy decoder of Chapter 4 (section 4.4): P(first word), and below P(next | previous)."""
BEAM_NEXT = {"A": {"<eos>": 0.4, "A": 0.3, "B": 0.3}, "B": {"<eos>": 0.9, "A": 0.05, "B": 0.05}}
BEAM_SIZE = 2


def beam_search_figure() -> Figure:
    """Beam search with k = 2 on the toy decoder of section 4.4: each step extends the k kept
    hypotheses by every word of V and keeps the k most probable of the k |V| candidates (yellow;
    grey ones are pruned), so decoding T' words scores O(k |V| T') candidates. The beam finds
    "B <eos>" (P = 0.36); greedy decoding, k = 1, stops at "A <eos>" (P = 0.20)."""
    diagram = Diagram(7.4, 3.9)
    root = token(diagram, (0.55, 1.75), "<sos>", width=0.8)
    first_kept = sorted(BEAM_FIRST, key=BEAM_FIRST.__getitem__, reverse=True)[:BEAM_SIZE]
    first = {}
    for row, (word, probability) in enumerate(BEAM_FIRST.items()):
        kind = "state" if word in first_kept else "mask_blocked"
        first[word] = diagram.box((2.1, 2.75 - row * 1.0), f"{word}  {probability:.1f}", kind)
        diagram.arrow(root, first[word])
    candidates = {
        (before, word): BEAM_FIRST[before] * probability
        for before in first_kept
        for word, probability in BEAM_NEXT[before].items()
    }
    second_kept = sorted(candidates, key=candidates.__getitem__, reverse=True)[:BEAM_SIZE]
    for row, ((before, word), probability) in enumerate(candidates.items()):
        kind = "state" if (before, word) in second_kept else "mask_blocked"
        text = f"{before} {word}  {probability:.2f}"
        box = diagram.box((4.55, 3.3 - row * 0.55), text, kind, width=1.55)
        diagram.arrow(first[before], box)
    best = second_kept[0]
    diagram.label(
        (6.55, 1.95),
        f"best:\n{' '.join(best)}\nP = {candidates[best]:.2f}\n\ngreedy:\nA <eos>\nP = 0.20",
        fontsize=CAPTION_FONT_SIZE,
    )
    diagram.label((2.1, 0.25), "step 1: keep 2 of 3", fontsize=CAPTION_FONT_SIZE, color=FRAME_INK)
    diagram.label(
        (4.55, 0.25), "step 2: keep 2 of 2 x 3", fontsize=CAPTION_FONT_SIZE, color=FRAME_INK
    )
    diagram.label(
        (3.7, 3.72),
        r"each step scores $k\,|V|$ candidates and keeps $k$: $O(k\,|V|\,T')$ for $T'$ words",
        fontsize=CAPTION_FONT_SIZE,
    )
    return diagram.figure


LOOKUP_SCORES = (1.0, 3.0, 1.5, 0.0)
"""The scores e_j = k_j^T q of the key-value lookup's four keys (section 4.7): the query matches
the second key best."""
WEIGHT_HEIGHT = 0.6
"""Height in inches of a bar of weight 1."""


def softmax_weights(scores: Sequence[float], inside: Sequence[bool] | None = None) -> list[float]:
    """alpha_j = softmax(e)_j over the positions ``inside`` (all when None), 0 outside: the
    chapter's masked_softmax on a list."""
    blocked = None if inside is None else ~torch.tensor(inside)
    return masked_softmax(torch.tensor(scores), blocked).tolist()


def weight_bars(
    diagram: Diagram,
    xs: Sequence[float],
    base: float,
    weights: Sequence[float],
    width: float,
    kind: str = "attention",
) -> None:
    """Bars of the attention weights standing on ``base``, WEIGHT_HEIGHT inches for a weight of 1,
    filled with the colour of ``kind`` (a zero weight draws no bar)."""
    for x, weight in zip(xs, weights, strict=True):
        if weight > 0:
            diagram.axes.add_patch(
                Rectangle(
                    (x - width / 2, base),
                    width,
                    weight * WEIGHT_HEIGHT,
                    facecolor=PALETTE[kind],
                    edgecolor=INK,
                    linewidth=1.0,
                    zorder=3,
                )
            )


def lookup_panel(
    diagram: Diagram, x: float, weights: Sequence[float], rule: str, result: tuple[str, str]
) -> None:
    """One lookup of the key-value figure, its four columns centred on ``x``: keys k_1..k_4
    scored against the query q (e_j = k_j^T q), ``rule`` turning the scores into the weights
    drawn as bars under the values v_1..v_4, and the ``result`` (text, caption) read from the
    values whose weight is not 0."""
    spacing = 0.62
    xs = [x + spacing * (j - 1.5) for j in range(len(weights))]
    wide = spacing * len(weights)
    names_x = x - wide / 2 - 0.55
    keys = [state(diagram, (column, 0.45), f"$k_{j + 1}$") for j, column in enumerate(xs)]
    scores = diagram.box((x, 1.2), r"$e_j = k_j^\top q$", "attention", width=wide)
    for key in keys:
        diagram.arrow(key, (key.center[0], scores.port("bottom")[1]))
    diagram.arrow(state(diagram, (names_x, 1.2), "$q$"), scores)
    weighing = diagram.box((x, 1.85), rule, "attention", width=wide)
    diagram.arrow(scores, weighing)
    base = weighing.port("top")[1] + 0.08
    weight_bars(diagram, xs, base, weights, width=0.3)
    for column, weight in zip(xs, weights, strict=True):
        diagram.label(
            (column, base + weight * WEIGHT_HEIGHT + 0.03),
            f"{weight:.2f}",
            fontsize=CAPTION_FONT_SIZE,
            va="bottom",
        )
    output = diagram.box((x, 3.9), result[0], "linear", caption=result[1], width=wide)
    for j, (column, weight) in enumerate(zip(xs, weights, strict=True)):
        kind = "state" if weight > 0 else "mask_allowed"
        value = diagram.box(
            (column, 3.2), f"$v_{j + 1}$", kind, width=STATE_SIZE[0], height=STATE_SIZE[1]
        )
        if weight > 0:
            diagram.arrow(value, (column, output.port("bottom")[1]))
    for y, name in ((0.45, "keys"), (base + 0.3, "weights\n$\\alpha_j$"), (3.2, "values")):
        diagram.label((names_x, y), name, fontsize=CAPTION_FONT_SIZE, color=FRAME_INK)


def key_value_lookup_figure() -> Figure:
    """Attention as a soft key-value lookup (section 4.7): the query q scores the keys,
    e_j = k_j^T q, alpha = softmax(e) weighs every value and the output is sum_j alpha_j v_j;
    beside it the hard lookup, like a dictionary, returns exactly one value, v_{j*} with
    j* = argmax_j k_j^T q, and gives the scores no gradient."""
    diagram = Diagram(7.4, 4.75)
    soft = softmax_weights(LOOKUP_SCORES)
    chosen = max(range(len(LOOKUP_SCORES)), key=LOOKUP_SCORES.__getitem__)
    hard = [float(j == chosen) for j in range(len(LOOKUP_SCORES))]
    diagram.frame((0.1, 0.1), (3.65, 4.65), "soft lookup (attention)")
    diagram.frame((3.75, 0.1), (7.3, 4.65), "hard lookup (a dictionary)")
    lookup_panel(
        diagram,
        2.3,
        soft,
        r"$\alpha = \mathrm{softmax}(e)$",
        (r"$\sum_j \alpha_j\, v_j$", f"mostly $v_{chosen + 1}$, some of each"),
    )
    lookup_panel(
        diagram,
        5.95,
        hard,
        r"$j^* = \arg\max_j\, e_j$",
        (f"$v_{{j^*}} = v_{chosen + 1}$", "one value, no gradient"),
    )
    return diagram.figure


LOCAL_SCORES = (0.2, 0.6, 0.3, 1.0, 1.4, 2.6, 1.1, 0.4, 0.1, 0.5, 0.3, 0.0)
"""Content scores e_{t,j} = score(s_t, h_j) of one target step over a source of S = 12 words
(section 4.11): the word to translate is at j = 6."""
LOCAL_STEP = 4
"""The target step t: local-m centres its window on p_t = t."""
LOCAL_PREDICTED = 5.6
"""The centre p_t = S sigmoid(v_p^T tanh(W_p s_t)) that local-p predicts at this step."""
LOCAL_HALF_WIDTH = 2
"""The window's half-width D."""
POSITION_SPACING = 0.5


def local_weights(centre: float | None, gaussian: bool = False) -> list[float]:
    """alpha_{t,j} at the positions j = 1..S: the softmax of LOCAL_SCORES over the window
    |j - p_t| <= D around ``centre`` (over every position when None), times
    exp(-(j - p_t)^2 / (2 sigma^2)), sigma = D/2, when ``gaussian`` (local-p)."""
    positions = range(1, len(LOCAL_SCORES) + 1)
    if centre is None:
        return softmax_weights(LOCAL_SCORES)
    inside = [abs(j - centre) <= LOCAL_HALF_WIDTH for j in positions]
    weights = softmax_weights(LOCAL_SCORES, inside)
    if not gaussian:
        return weights
    return [
        weight * gaussian_factor(j, centre) for j, weight in zip(positions, weights, strict=True)
    ]


def gaussian_factor(position: float, centre: float) -> float:
    """exp(-(j - p_t)^2 / (2 sigma^2)) with sigma = D/2: local-p's preference for its centre."""
    sigma = LOCAL_HALF_WIDTH / 2
    return math.exp(-((position - centre) ** 2) / (2 * sigma**2))


def position_x(position: float) -> float:
    """Where source position j (counted from 1) sits on the page."""
    return 1.35 + POSITION_SPACING * (position - 1)


def window_bracket(diagram: Diagram, centre: float, base: float) -> None:
    """The window [p_t - D, p_t + D] as a bracket under the row at ``base``, its ends and its
    centre p_t marked and named."""
    y = base - 0.1
    ends = (centre - LOCAL_HALF_WIDTH, centre, centre + LOCAL_HALF_WIDTH)
    names = ("$p_t - D$", "$p_t$", "$p_t + D$")
    diagram.arrow((position_x(ends[0]), y), (position_x(ends[-1]), y), head=False)
    for end, name in zip(ends, names, strict=True):
        diagram.arrow((position_x(end), y + 0.07), (position_x(end), y - 0.07), head=False)
        diagram.label((position_x(end), y - 0.1), name, fontsize=CAPTION_FONT_SIZE, va="top")


def local_row(
    diagram: Diagram, base: float, header: str, weights: Sequence[float], centre: float | None
) -> None:
    """One variant of the local-attention figure: its ``header`` (name and equation), a baseline
    over the positions 1..S with the weights as bars, the window's bracket around ``centre``
    (if any) and the weights' sum at the right."""
    xs = [position_x(j) for j in range(1, len(weights) + 1)]
    diagram.arrow(
        (xs[0] - 0.25, base), (xs[-1] + 0.25, base), head=False, color=FRAME_INK, linewidth=0.8
    )
    weight_bars(diagram, xs, base, weights, width=0.3)
    if centre is not None:
        window_bracket(diagram, centre, base)
    diagram.label((0.15, base + 0.72), header, ha="left")
    diagram.label(
        (7.3, base + 0.45),
        f"weights sum to {sum(weights):.2f}",
        fontsize=CAPTION_FONT_SIZE,
        ha="right",
    )


def local_attention_figure() -> Figure:
    """Hard, soft and local attention over one source of S = 12 positions at step t = 4
    (section 4.11; Luong et al. 2015): soft attention weighs every h_j; local-m takes the
    softmax over the window |j - p_t| <= D around p_t = t; local-p predicts
    p_t = S sigmoid(v_p^T tanh(W_p s_t)) and multiplies the window's softmax by the Gaussian
    exp(-(j - p_t)^2 / (2 sigma^2)), sigma = D/2, so its weights sum to less than 1; hard
    attention reads the one position j* = argmax_j alpha_{t,j}."""
    diagram = Diagram(7.4, 5.0)
    soft = local_weights(None)
    chosen = max(range(len(soft)), key=soft.__getitem__)
    hard = [float(j == chosen) for j in range(len(soft))]
    d, local_p = LOCAL_HALF_WIDTH, 1.92
    local_row(
        diagram, 4.1, r"soft: $\alpha_{t,j} = \mathrm{softmax}(e_t)_j$ at every $j$", soft, None
    )
    local_row(
        diagram,
        3.2,
        rf"local-m: $p_t = t = {LOCAL_STEP}$, the softmax inside $|j - p_t| \leq D = {d}$",
        local_weights(LOCAL_STEP),
        LOCAL_STEP,
    )
    window = local_weights(LOCAL_PREDICTED)
    xs = [position_x(j) for j in range(1, len(window) + 1)]
    weight_bars(diagram, xs, local_p, window, width=0.3, kind="mask_allowed")
    local_row(
        diagram,
        local_p,
        rf"local-p: $p_t = S\,\sigma(v_p^\top \tanh(W_p\, s_t)) = {LOCAL_PREDICTED}$, "
        "the softmax (white) times a Gaussian (dashed)",
        local_weights(LOCAL_PREDICTED, gaussian=True),
        LOCAL_PREDICTED,
    )
    curve = [LOCAL_PREDICTED - d + k * d / 20 for k in range(41)]
    diagram.axes.plot(
        [position_x(j) for j in curve],
        [local_p + WEIGHT_HEIGHT * gaussian_factor(j, LOCAL_PREDICTED) for j in curve],
        color=INK,
        linewidth=1.0,
        linestyle=(0, (4, 2.5)),
        zorder=4,
    )
    diagram.label(
        (0.15, local_p + 0.33),
        r"$\exp(-(j - p_t)^2 / 2\sigma^2)$, $\sigma = D/2$",
        fontsize=CAPTION_FONT_SIZE,
        ha="left",
    )
    local_row(
        diagram,
        0.65,
        rf"hard: $c_t = h_{{j^*}}$, $j^* = \arg\max_j\, \alpha_{{t,j}} = {chosen + 1}$: "
        "no gradient",
        hard,
        None,
    )
    for j in range(1, len(soft) + 1):
        diagram.label((position_x(j), 0.35), str(j), fontsize=CAPTION_FONT_SIZE)
    diagram.label((0.15, 0.35), "position $j$", fontsize=CAPTION_FONT_SIZE, ha="left")
    return diagram.figure
