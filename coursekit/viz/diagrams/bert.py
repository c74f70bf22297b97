"""Diagrams of BERT (Chapter 6, BERT): the input representation, the model with its two
pretraining heads, and the four ways of fine-tuning it.

Boxes hold weights or values (teal: embeddings; yellow: attention; blue: the feed-forward
network; pale yellow: LayerNorm; yellow-white: hidden states; green: outputs), as in the other
chapters' diagrams.
"""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from coursekit.page import TEXT_COLUMN_WIDTH
from coursekit.viz.diagrams.drawing import CAPTION_FONT_SIZE, FRAME_INK, LABEL_GAP, Box, Diagram
from coursekit.viz.diagrams.shapes import Point

INPUT_TOKENS = ("[CLS]", "my", "dog", "[SEP]", "he", "likes", "play", "##ing", "[SEP]")
"""After the BERT paper's Figure 2: two segments, the second ending in a WordPiece."""
PRETRAINING_TOKENS = ("[CLS]", "my", "dog", "is", "[MASK]", "[SEP]", "he", "barks", "[SEP]")
SMALL_FONT = 10.0


def token_row(
    diagram: Diagram, xs: Sequence[float], y: float, texts: Sequence[str], kind: str, width: float
) -> list[Box]:
    """One box per token, centred on ``xs`` at height ``y``, all ``width`` wide."""
    return [
        diagram.box((x, y), text, kind, width=width, fontsize=SMALL_FONT)
        for x, text in zip(xs, texts, strict=True)
    ]


def embedding_name(token: str) -> str:
    """``E`` with the token as a subscript, in mathtext: ``$E_{\\mathrm{dog}}$``; the ``#`` of a
    continuation each in its own ``\\mathrm`` (mathtext reads ``\\#ing`` as a command)."""
    hashes = len(token) - len(token.lstrip("#"))
    pieces = [r"\mathrm{\#}"] * hashes + [rf"\mathrm{{{token[hashes:]}}}"]
    return f"$E_{{{''.join(pieces)}}}$"


def segment_of(tokens: Sequence[str]) -> list[str]:
    """``A`` up to and including the first ``[SEP]``, ``B`` after it."""
    first_sep = list(tokens).index("[SEP]")
    return ["A" if index <= first_sep else "B" for index in range(len(tokens))]


def bert_input_figure() -> Figure:
    """BERT's input representation (Chapter 6): every token of ``[CLS] A [SEP] B [SEP]`` is the
    sum of a token embedding, a segment embedding (A or B) and a position embedding; the sum,
    normalised, is h_0 = LayerNorm(E_token + E_segment + E_position)."""
    diagram = Diagram(TEXT_COLUMN_WIDTH, 3.55)
    left, column = 1.55, 0.65
    xs = [left + column * (index + 0.5) for index in range(len(INPUT_TOKENS))]
    rows = {"input": 3.1, "token": 2.35, "segment": 1.55, "position": 0.75}
    width = column - 0.01
    for x, token in zip(xs, INPUT_TOKENS, strict=True):
        diagram.label((x, rows["input"]), token, fontsize=SMALL_FONT)
    token_names = [embedding_name(token) for token in INPUT_TOKENS]
    token_row(diagram, xs, rows["token"], token_names, "embedding", width)
    segments = [f"$E_{segment}$" for segment in segment_of(INPUT_TOKENS)]
    token_row(diagram, xs, rows["segment"], segments, "embedding", width)
    positions = [f"$E_{{{index}}}$" for index in range(len(INPUT_TOKENS))]
    token_row(diagram, xs, rows["position"], positions, "embedding", width)
    captions = {
        "input": "input",
        "token": "token\nembeddings",
        "segment": "segment\nembeddings",
        "position": "position\nembeddings",
    }
    for name, y in rows.items():
        diagram.label((0.05, y), captions[name], fontsize=CAPTION_FONT_SIZE, ha="left")
    for upper, lower in (("token", "segment"), ("segment", "position")):
        y = (rows[upper] + rows[lower]) / 2
        for x in xs:
            diagram.label((x, y), "+", fontsize=12.0)
    first_sep = INPUT_TOKENS.index("[SEP]")
    boundary = (xs[first_sep] + xs[first_sep + 1]) / 2
    diagram.arrow(
        (boundary, rows["position"] - 0.3),
        (boundary, rows["input"] + 0.3),
        head=False,
        color=FRAME_INK,
        dashed=True,
        linewidth=0.8,
    )
    diagram.label(
        ((left + xs[-1] + column / 2) / 2, 0.12),
        r"$h_0 = \mathrm{LayerNorm}(E_{token} + E_{segment} + E_{position})$, then dropout",
        fontsize=CAPTION_FONT_SIZE,
    )
    return diagram.figure


def encoder_stack(diagram: Diagram, x: float, width: float, bottom: float) -> tuple[Box, Box]:
    """One post-norm encoder layer, framed and marked ``x L`` on its left: attention, add &
    norm, feed-forward, add & norm, with the two residual connections on the left. Returns the
    first and the last box."""
    gap = 0.58
    names = (
        ("multi-head self-attention (every token sees every token)", "attention"),
        ("add & LayerNorm", "normalization"),
        ("feed-forward network, GELU", "feed_forward"),
        ("add & LayerNorm", "normalization"),
    )
    boxes = [
        diagram.box((x, bottom + index * gap), text, kind, width=width, fontsize=SMALL_FONT)
        for index, (text, kind) in enumerate(names)
    ]
    for lower, upper in zip(boxes, boxes[1:], strict=False):
        diagram.arrow(lower, upper)
    rail = x - width / 2 - 0.22
    for start, end in ((0, 1), (2, 3)):
        below = bottom + start * gap - gap / 2 + 0.05
        source = diagram.junction((x, below))
        target = boxes[end].port("left")
        diagram.arrow(source, target, via=[(rail, below), (rail, target[1])])
    frame_left = rail - 0.15
    diagram.frame((frame_left, bottom - gap / 2 - 0.08), (x + width / 2 + 0.15, bottom + 3.5 * gap))
    diagram.label(
        (frame_left - LABEL_GAP, bottom + 1.5 * gap),
        "× L\nlayers",
        fontsize=CAPTION_FONT_SIZE,
        color=FRAME_INK,
        ha="right",
    )
    return boxes[0], boxes[-1]


def bert_pretraining_figure() -> Figure:
    """BERT with its pretraining heads (Chapter 6): embeddings, L post-norm encoder layers,
    the final states C (of [CLS]) and T_i; next sentence prediction reads the pooled C,
    tanh(W C + b); the masked language model reads T at the masked position through
    LayerNorm(GELU(W_T T + b_T)) E^T + b, with E the token embeddings (tied)."""
    diagram = Diagram(TEXT_COLUMN_WIDTH, 6.3)
    left, column = 1.15, 0.7
    xs = [left + column * (index + 0.5) for index in range(len(PRETRAINING_TOKENS))]
    middle, span = (xs[0] + xs[-1]) / 2, xs[-1] - xs[0] + column - 0.06
    width = column - 0.01
    inputs = token_row(diagram, xs, 0.3, PRETRAINING_TOKENS, "input", width)
    embeddings = diagram.box(
        (middle, 0.98),
        "token + segment + position embeddings, LayerNorm",
        "embedding",
        width=span,
        fontsize=SMALL_FONT,
    )
    for token in inputs:
        diagram.arrow(token, (token.center[0], embeddings.port("bottom")[1]))
    first, last = encoder_stack(diagram, middle, span - 0.3, 1.9)
    diagram.arrow(embeddings, first)
    names = ["$C$", *[f"$T_{{{index}}}$" for index in range(1, len(PRETRAINING_TOKENS))]]
    states = token_row(diagram, xs, 4.2, names, "state", width)
    top = last.port("top")[1]
    for state in states:
        diagram.arrow((state.center[0], top), state)
    pooler = diagram.box(
        (xs[0] + 0.25, 4.95), r"pooler: $\tanh(W\,C + b)$", "linear", fontsize=SMALL_FONT
    )
    diagram.arrow(states[0], pooler.port("bottom", 0.2))
    nsp = diagram.box((pooler.center[0], 5.75), "NSP: IsNext / NotNext", "output", fontsize=11.0)
    diagram.arrow(pooler, nsp)
    masked = states[PRETRAINING_TOKENS.index("[MASK]")]
    mlm_head = diagram.box(
        (masked.center[0] + 1.05, 4.95),
        r"$\mathrm{LayerNorm}(\mathrm{GELU}(W_T\,T + b_T))\,E^\top + b$",
        "linear",
        fontsize=SMALL_FONT,
    )
    diagram.arrow(masked, mlm_head.port("bottom", 0.15))
    mlm = diagram.box((mlm_head.center[0], 5.75), "MLM: hairy", "output", fontsize=11.0)
    diagram.arrow(mlm_head, mlm, label="E: the token\nembeddings (tied)", label_side="left")
    diagram.label((0.08, 4.2), "final states\n$h_L$", fontsize=CAPTION_FONT_SIZE, ha="left")
    diagram.label((0.08, 0.3), "input", fontsize=CAPTION_FONT_SIZE, ha="left")
    return diagram.figure


FINE_TUNING_PANELS = (
    ("sentence pair: entailment?", ("[CLS]", "A", "[SEP]", "B", "[SEP]"), "class"),
    ("single sentence: sentiment", ("[CLS]", "w", "w", "w", "[SEP]"), "class"),
    ("span question answering", ("[CLS]", "Q", "[SEP]", "P", "P", "[SEP]"), "span"),
    ("token classification: entities", ("[CLS]", "Ada", "met", "Alan", "[SEP]"), "tags"),
)
"""Each panel: its title, the input (A, B: sentences; w: words; Q: question; P: passage) and
what the output layer reads."""
TAGS = {"Ada": "B-PER", "met": "O", "Alan": "B-PER"}


def fine_tuning_panel(
    diagram: Diagram, origin: Point, title: str, tokens: Sequence[str], output: str
) -> None:
    """One panel of :func:`bert_finetuning_figure`, its lower left corner at ``origin``."""
    x0, y0 = origin
    panel_width, column = 3.55, 0.57
    diagram.frame((x0, y0), (x0 + panel_width, y0 + 2.85), title)
    start = x0 + (panel_width - column * len(tokens)) / 2
    xs = [start + column * (index + 0.5) for index in range(len(tokens))]
    width = column - 0.01
    inputs = token_row(diagram, xs, y0 + 0.3, tokens, "input", width)
    bert = diagram.box(
        ((xs[0] + xs[-1]) / 2, y0 + 0.95), "pretrained BERT", "embedding",
        width=xs[-1] - xs[0] + width, fontsize=SMALL_FONT,
    )  # fmt: skip
    for token_box in inputs:
        diagram.arrow(token_box, (token_box.center[0], bert.port("bottom")[1]))
    names = ["$C$", *[f"$T_{{{index}}}$" for index in range(1, len(tokens))]]
    states = token_row(diagram, xs, y0 + 1.6, names, "state", width)
    for state in states:
        diagram.arrow((state.center[0], bert.port("top")[1]), state)
    if output == "class":
        label = diagram.box(
            (xs[0] + 0.45, y0 + 2.2), r"class: $W\,C + b$", "output", fontsize=SMALL_FONT
        )
        diagram.arrow(states[0], label.port("bottom", 0.15))
    elif output == "span":
        passage = [state for state, token in zip(states, tokens, strict=True) if token == "P"]
        middle = (passage[0].center[0] + passage[-1].center[0]) / 2
        label = diagram.box(
            (middle - 0.2, y0 + 2.2), r"start $S\cdot T_i$, end $E\cdot T_j$", "output",
            fontsize=SMALL_FONT,
        )  # fmt: skip
        for state in passage:
            diagram.arrow(state, (state.center[0], label.port("bottom")[1]))
    else:
        for state, token in zip(states, tokens, strict=True):
            if token in TAGS:
                tag = diagram.box(
                    (state.center[0], y0 + 2.15), TAGS[token], "output", fontsize=SMALL_FONT
                )
                diagram.arrow(state, tag)


def bert_finetuning_figure() -> Figure:
    """The four kinds of fine-tuning (Chapter 6), after the BERT paper's Figure 4: a class from
    C for a sentence pair or a single sentence, start and end scores S . T_i and E . T_j over
    the passage for span question answering, a tag from every T_i for token classification."""
    diagram = Diagram(TEXT_COLUMN_WIDTH, 6.0)
    for index, (title, tokens, output) in enumerate(FINE_TUNING_PANELS):
        row, col = divmod(index, 2)
        fine_tuning_panel(diagram, (0.1 + col * 3.7, 3.05 - row * 3.0), title, tokens, output)
    return diagram.figure
