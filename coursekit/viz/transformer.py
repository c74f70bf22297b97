"""Diagrams of the Transformer (Chapter 5, Transformers): scaled dot-product attention,
multi-head attention, the encoder-decoder architecture, the masks of its attentions, and the
post-norm and pre-norm residual connections.

Yellow boxes attend, blue ones are the position-wise feed-forward network, pale yellow ones
normalise, grey ones are affine maps without a nonlinearity, green-blue ones embed tokens; a
circle is a pointwise operation. In the mask grids a white cell is a key that the query may
attend and a grey one a key it may not.
"""

from __future__ import annotations

from matplotlib.figure import Figure

from coursekit.viz.drawing import CAPTION_FONT_SIZE, FRAME_INK, LABEL_GAP, SUM, Box, Diagram
from coursekit.viz.shapes import Point

SUBLAYER_WIDTH = 2.0
MASK_CELL = 0.24


def scaled_dot_product_figure() -> Figure:
    """``Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k) + M) V`` as a flow from the inputs at
    the bottom to the output at the top (Chapter 5; Vaswani et al. 2017, Figure 2, left)."""
    diagram = Diagram(3.9, 5.0)
    left, right = 1.35, 2.3
    scores = diagram.box((left, 1.05), r"$Q\,K^{\top}$", "linear", caption="MatMul", width=1.5)
    scale = diagram.box(
        (left, 1.9), r"$\times\ 1/\sqrt{d_k}$", "linear", caption="scale", width=1.5
    )
    mask = diagram.box((left, 2.75), "$+\\ M$", "mask_allowed", caption="mask (optional)")
    softmax = diagram.box((left, 3.6), "softmax", "attention", caption="over the keys")
    output = diagram.box((right, 4.4), r"$A\,V$", "linear", caption="MatMul", width=1.2)
    for x, name, target in ((0.85, "$Q$", 0.2), (1.85, "$K$", 0.8)):
        diagram.label((x, 0.18), name)
        diagram.arrow((x, 0.32), scores.port("bottom", target))
    diagram.arrow(scores, scale)
    diagram.arrow(scale, mask)
    diagram.arrow(mask, softmax)
    diagram.arrow(
        softmax, output, via=[(left, output.center[1])], label="$A$", label_side="left",
        label_at=0.3,
    )  # fmt: skip
    diagram.label((3.35, 0.18), "$V$")
    diagram.arrow((3.35, 0.32), output, via=[(3.35, output.center[1])])
    diagram.arrow(output, (right, 4.95))
    diagram.label((right + LABEL_GAP + 0.05, 4.85), "output", fontsize=CAPTION_FONT_SIZE, ha="left")
    return diagram.figure


def multi_head_figure() -> Figure:
    """``MultiHead(Q, K, V) = Concat(head_1..head_h) W^O`` with
    ``head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V)`` (Chapter 5; Vaswani et al. 2017,
    Figure 2, right)."""
    diagram = Diagram(5.2, 5.0)
    columns = (1.1, 2.6, 4.1)
    names = ("Q", "K", "V")
    projections = [
        diagram.box((x, 1.05), f"${name}\\,W_i^{{{name}}}$", "linear", caption="linear", width=1.2)
        for x, name in zip(columns, names, strict=True)
    ]
    heads = diagram.box(
        (2.6, 2.25), "scaled dot-product attention", "attention",
        caption="h heads in parallel, each on d_k = d_model / h features", width=4.6,
    )  # fmt: skip
    concat = diagram.box(
        (2.6, 3.4), r"Concat(head$_1$, ..., head$_h$)", "linear", caption="[B, T, h d_v]"
    )
    mix = diagram.box((2.6, 4.3), "$W^O$", "linear", caption="linear", width=1.2)
    for x, name, projection in zip(columns, names, projections, strict=True):
        diagram.label((x, 0.18), f"${name}$")
        diagram.arrow((x, 0.32), projection)
        diagram.arrow(projection, (x, heads.port("bottom")[1]))
    diagram.arrow(heads, concat, label="head$_i$")
    diagram.arrow(concat, mix)
    diagram.arrow(mix, (2.6, 4.95))
    diagram.label((2.75, 4.85), "MultiHead(Q, K, V)", fontsize=CAPTION_FONT_SIZE, ha="left")
    return diagram.figure


def sublayer_stack(
    diagram: Diagram, x: float, bottom: float, sublayers: list[tuple[str, str, str]], side: float
) -> list[Box]:
    """Sublayers stacked upward from ``bottom``, each followed by an Add & Norm box and wrapped
    in a residual connection that runs at ``x + side``; returns every box, bottom to top
    (Chapter 5)."""
    boxes: list[Box] = []
    y = bottom
    entry: Point = (x, y - 0.6)
    for text, kind, caption in sublayers:
        sublayer = diagram.box((x, y), text, kind, caption=caption, width=SUBLAYER_WIDTH)
        norm = diagram.box((x, y + 0.72), "Add & Norm", "normalization", width=SUBLAYER_WIDTH)
        split = diagram.junction((x, entry[1] + 0.12))
        diagram.arrow(entry, split, head=False)
        diagram.arrow(split, sublayer)
        diagram.arrow(sublayer, norm)
        detour = x + side
        diagram.arrow(split, norm, via=[(detour, split[1]), (detour, norm.center[1])])
        boxes += [sublayer, norm]
        entry = norm.port("top")
        y += 1.55
    return boxes


def transformer_figure() -> Figure:
    """The encoder-decoder Transformer (Chapter 5; Vaswani et al. 2017, Figure 1): embeddings
    x sqrt(d_model) plus positional encodings; N encoder layers (self-attention, feed-forward);
    N decoder layers (masked self-attention, encoder-decoder attention whose keys and values are
    the encoder's output, feed-forward), each sublayer in a residual connection with LayerNorm
    (post-norm, as in the paper); a linear layer and a softmax."""
    diagram = Diagram(7.2, 8.45)
    encoder_x, decoder_x = 2.25, 5.0
    for x, name, text in (
        (encoder_x, "inputs", "input embedding"),
        (decoder_x, "outputs (shifted right)", "output embedding"),
    ):
        diagram.label((x, 0.18), name)
        embedding = diagram.box(
            (x, 0.85), text, "embedding", caption=r"$\times\sqrt{d_{model}}$", width=1.9
        )
        diagram.arrow((x, 0.32), embedding)
        add = diagram.operation((x, 1.65), SUM)
        diagram.arrow(embedding, add)
        side = -1 if x == encoder_x else 1
        encoding_x = x + side * 1.05
        diagram.label((encoding_x, 1.65), "positional\nencoding", fontsize=CAPTION_FONT_SIZE)
        diagram.arrow((encoding_x - side * 0.5, 1.65), add)
        diagram.arrow(add, (x, 2.05), head=False)

    encoder = sublayer_stack(
        diagram, encoder_x, 2.65,
        [("multi-head attention", "attention", "self-attention"),
         ("feed forward", "feed_forward", "position-wise")],
        side=-1.2,
    )  # fmt: skip
    diagram.frame((0.85, 2.05), (3.4, 5.25), "")
    diagram.label((0.62, 3.65), "N ×")

    decoder = sublayer_stack(
        diagram, decoder_x, 2.65,
        [("multi-head attention", "attention", "masked (causal)"),
         ("multi-head attention", "attention", "encoder-decoder"),
         ("feed forward", "feed_forward", "position-wise")],
        side=1.2,
    )  # fmt: skip
    diagram.frame((3.85, 2.05), (6.45, 6.8), "")
    diagram.label((6.7, 4.45), "× N")

    cross = decoder[2]
    memory_y = encoder[-1].port("top")[1] + 0.62
    diagram.arrow(
        encoder[-1], cross.port("left"),
        via=[(encoder_x, memory_y), (3.6, memory_y), (3.6, cross.center[1])],
    )  # fmt: skip
    diagram.label(
        (encoder_x + 0.35, memory_y + 0.06), "memory: keys and values", va="bottom",
        fontsize=CAPTION_FONT_SIZE,
    )  # fmt: skip
    linear = diagram.box((decoder_x, 7.2), "linear", "linear", width=1.4)
    softmax = diagram.box((decoder_x, 7.8), "softmax", "output", width=1.4)
    diagram.arrow(decoder[-1], linear)
    diagram.arrow(linear, softmax)
    diagram.arrow(softmax, (decoder_x, 8.35))
    diagram.label((decoder_x + 0.12, 8.28), "output probabilities", fontsize=CAPTION_FONT_SIZE,
                  ha="left")  # fmt: skip
    diagram.label((0.9, 5.29), "encoder", color=FRAME_INK, ha="left", va="bottom")
    diagram.label((6.45, 6.84), "decoder", color=FRAME_INK, ha="right", va="bottom")
    return diagram.figure


def mask_grid(
    diagram: Diagram, upper_left: Point, allowed: list[list[bool]], title: str, keys: str
) -> None:
    """A grid of cells, one row per query and one column per key, white where attention is
    allowed and grey where it is masked, with a title above and the keys named below
    (Chapter 5)."""
    rows, columns = len(allowed), len(allowed[0])
    x0, top = upper_left
    y0 = top - rows * MASK_CELL
    for i, row in enumerate(allowed):
        for j, ok in enumerate(row):
            center = (x0 + (j + 0.5) * MASK_CELL, y0 + (rows - i - 0.5) * MASK_CELL)
            kind = "mask_allowed" if ok else "mask_blocked"
            diagram.box(center, "", kind, width=MASK_CELL, height=MASK_CELL)
    diagram.label((x0 + columns * MASK_CELL / 2, top + 0.12), title, va="bottom")
    diagram.label(
        (x0 + columns * MASK_CELL / 2, y0 - 0.08), keys, fontsize=CAPTION_FONT_SIZE, va="top"
    )


def attention_masks_figure() -> Figure:
    """Which keys each query may attend (Chapter 5): all of them (encoder self-attention), the
    real tokens only (a padding mask; the last two keys are padding), the earlier ones only (the
    causal mask of a decoder, j <= i), and the causal mask of 2 new tokens after 4 cached ones
    (incremental decoding with a key-value cache, j <= i + 4)."""
    diagram = Diagram(7.4, 2.3)
    size = 6
    everything = [[True] * size for _ in range(size)]
    padding = [[j < size - 2 for j in range(size)] for _ in range(size)]
    causal = [[j <= i for j in range(size)] for i in range(size)]
    cached = [[j <= i + 4 for j in range(size)] for i in range(2)]
    top = 1.95
    mask_grid(diagram, (0.75, top), everything, "no mask", "key j")
    mask_grid(diagram, (2.45, top), padding, "padding", "key j (last 2: padding)")
    mask_grid(diagram, (4.15, top), causal, "causal", "key j <= i")
    mask_grid(diagram, (5.85, top), cached, "with a cache", "key j <= i + 4")
    diagram.label((0.68, top - 3 * MASK_CELL), "query i", fontsize=CAPTION_FONT_SIZE, ha="right")
    diagram.label(
        (5.85 + 3 * MASK_CELL, top - 2 * MASK_CELL - 0.45),
        "2 new queries\nafter 4 cached\ntokens",
        fontsize=CAPTION_FONT_SIZE,
        va="top",
    )
    return diagram.figure


def residual_column(diagram: Diagram, x: float, title: str, norm_first: bool) -> None:
    """One residual connection, input at the bottom: post-norm LayerNorm(x + Dropout(S(x))) or
    pre-norm x + Dropout(S(LayerNorm(x))) (Chapter 5)."""
    diagram.label((x, 4.3), title, va="bottom")
    diagram.label((x, 0.15), "$x$")
    split = diagram.junction((x, 0.65))
    diagram.arrow((x, 0.3), split, head=False)
    steps = [("sublayer S", "attention"), ("dropout", "linear")]
    if norm_first:
        steps.insert(0, ("LayerNorm", "normalization"))
    boxes = [
        diagram.box((x, 1.15 + 0.7 * k), text, kind, width=1.45)
        for k, (text, kind) in enumerate(steps)
    ]
    add = diagram.operation((x, 1.15 + 0.7 * len(steps)), SUM)
    diagram.arrow(split, boxes[0])
    for before, after in zip(boxes, boxes[1:], strict=False):
        diagram.arrow(before, after)
    diagram.arrow(boxes[-1], add)
    diagram.arrow(split, add, via=[(x - 1.0, split[1]), (x - 1.0, add.center[1])],
                  label="identity", label_side="left", label_at=0.5)  # fmt: skip
    if norm_first:
        diagram.arrow(add, (x, 4.15))
        return
    norm = diagram.box((x, add.center[1] + 0.65), "LayerNorm", "normalization", width=1.45)
    diagram.arrow(add, norm)
    diagram.arrow(norm, (x, 4.15))


def residual_connections_figure() -> Figure:
    """Post-norm (the paper): x <- LayerNorm(x + Dropout(Sublayer(x))); pre-norm:
    x <- x + Dropout(Sublayer(LayerNorm(x))), whose identity path runs from the input to the
    output of the whole stack untouched (Chapter 5)."""
    diagram = Diagram(6.2, 4.75)
    residual_column(diagram, 2.0, "post-norm (the paper)", norm_first=False)
    residual_column(diagram, 5.0, "pre-norm", norm_first=True)
    return diagram.figure
