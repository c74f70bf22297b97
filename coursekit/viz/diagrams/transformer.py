"""Diagrams of the Transformer (Chapter 5, Transformers): scaled dot-product attention,
multi-head attention, the encoder-decoder architecture, the masks of its attentions, the
post-norm and pre-norm residual connections, the classifier's max-pooling, and the decoder-only
language model with its key-value cache.

Yellow boxes attend, blue ones are the position-wise feed-forward network, pale yellow ones
normalise, grey ones are affine maps without a nonlinearity, green-blue ones embed tokens; a
circle is a pointwise operation. In the mask grids a white cell is a key that the query may
attend and a grey one a key it may not.
"""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from coursekit.page import TEXT_COLUMN_WIDTH
from coursekit.viz.diagrams.drawing import (
    CAPTION_FONT_SIZE,
    FRAME_INK,
    LABEL_FONT_SIZE,
    LABEL_GAP,
    SUM,
    Box,
    Diagram,
)
from coursekit.viz.diagrams.shapes import Point

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


def cell_grid(
    diagram: Diagram,
    upper_left: Point,
    texts: Sequence[Sequence[str]],
    kinds: Sequence[Sequence[str]],
    cell: tuple[float, float],
) -> list[list[Box]]:
    """A table of touching cells from ``upper_left``, row 0 on top: cell (r, c) shows
    ``texts[r][c]`` on the palette colour ``kinds[r][c]``; ``cell`` is (width, height) in
    inches (Chapters 5 and 7)."""
    width, height = cell
    x0, top = upper_left
    return [
        [
            diagram.box(
                (x0 + (c + 0.5) * width, top - (r + 0.5) * height),
                text,
                kind,
                width=width,
                height=height,
                fontsize=CAPTION_FONT_SIZE,
            )
            for c, (text, kind) in enumerate(zip(row_texts, row_kinds, strict=True))
        ]
        for r, (row_texts, row_kinds) in enumerate(zip(texts, kinds, strict=True))
    ]


CACHE_CELL = (0.62, 0.36)
"""Width and height (inches) of one cached key or value in the key-value cache figure."""


def embedded_tokens(
    diagram: Diagram,
    x: float,
    tokens: Sequence[str],
    formula: str,
    caption: str,
    width: float,
    token_size: float = LABEL_FONT_SIZE,
) -> Box:
    """Four tokens in a row at the bottom of a stack, each but the ellipsis with an arrow into
    the embedding box above them (Chapter 5's decoder-only and classifier figures)."""
    embedding = diagram.box((x, 0.95), formula, "embedding", caption=caption, width=width)
    for k, token in enumerate(tokens):
        token_x = x - 0.96 + 0.64 * k
        diagram.label((token_x, 0.17), token, fontsize=token_size)
        if token != r"$\cdots$":
            diagram.arrow((token_x, 0.32), (token_x, embedding.port("bottom")[1]))
    return embedding


def decoder_stack_column(diagram: Diagram, x: float) -> None:
    """The decoder-only language model read bottom to top (Chapter 5): x_1..x_t embedded with
    positions, N pre-norm blocks of causal self-attention and feed-forward, a final LayerNorm and
    softmax(h W_out + b_out), the distribution of x_{t+1}."""
    tokens = ("$x_1$", "$x_2$", r"$\cdots$", "$x_t$")
    embedding = embedded_tokens(
        diagram, x, tokens, r"$\sqrt{d}\,E[x_i] + P(i)$", "embedding + positions", width=2.7
    )
    attention = diagram.box(
        (x, 1.95), "causal self-attention", "attention", caption="position $i$ sees $1..i$",
        width=2.5,
    )  # fmt: skip
    feed_forward = diagram.box(
        (x, 2.85), "feed forward", "feed_forward", caption="position-wise", width=2.5
    )
    diagram.frame((x - 1.45, 1.48), (x + 1.45, 3.38))
    diagram.label((x - 1.5, 2.4), "N ×", ha="right")
    diagram.label(
        (x, 3.42), "pre-norm blocks, each sublayer in a residual", fontsize=CAPTION_FONT_SIZE,
        color=FRAME_INK, va="bottom",
    )  # fmt: skip
    norm = diagram.box((x, 4.1), "LayerNorm", "normalization", width=2.5)
    output = diagram.box((x, 4.75), r"softmax$(h\,W_{out} + b_{out})$", "output", width=2.5)
    diagram.arrow(embedding, attention)
    diagram.arrow(attention, feed_forward)
    diagram.arrow(feed_forward, norm)
    diagram.arrow(norm, output)
    diagram.arrow(output, (x, 5.35))
    diagram.label((x + 0.1, 5.3), r"$P(x_{t+1} \mid x_1, \ldots, x_t)$", ha="left")


def cached_step_column(diagram: Diagram, left: float) -> None:
    """One layer of one generation step with the key-value cache (Chapter 5): the new token x_t
    computes q_t = x_t W^Q, and its key and value are appended to the cache,
    K = [K_past; x_t W^K], V = [V_past; x_t W^V]; q_t attends over all t keys, and the earlier
    positions' keys and values are read from the cache, not recomputed."""
    query_x, key_x = left + 0.4, left + 1.2
    value_x = key_x + CACHE_CELL[0]
    projections = [
        diagram.box((x, 1.0), f"$W^{name}$", "linear", width=0.58)
        for x, name in ((query_x, "Q"), (key_x, "K"), (value_x, "V"))
    ]
    diagram.label((left + 0.05, 0.17), "$x_t$ (new)", ha="left")
    bus = diagram.junction((query_x, 0.5))
    diagram.arrow((query_x, 0.32), bus, head=False)
    diagram.arrow(bus, projections[0])
    for projection in projections[1:]:
        diagram.arrow(bus, projection, via=[(projection.center[0], bus[1])])
    names = ("1", "2", r"\vdots", "t-1", "t")
    texts = [
        [(f"${letter}_{{{name}}}$" if name != r"\vdots" else f"${name}$") for letter in "kv"]
        for name in names
    ]
    kinds = [["linear", "linear"]] * (len(names) - 1) + [["state", "state"]]
    top = 3.85
    cells = cell_grid(diagram, (key_x - CACHE_CELL[0] / 2, top), texts, kinds, CACHE_CELL)
    new_keys, new_values = cells[-1]
    diagram.arrow(projections[1], new_keys, label="append", label_side="left", label_at=0.45)
    diagram.arrow(projections[2], new_values)
    cache_bottom = top - 4 * CACHE_CELL[1]
    diagram.frame((key_x - 0.38, cache_bottom - 0.04), (value_x + 0.38, top + 0.04))
    diagram.label(
        (value_x + 0.45, top - 0.2), "cache:\n$K_{past}$, $V_{past}$\nof $x_1..x_{t-1}$,\n"
        "kept, not\nrecomputed", fontsize=CAPTION_FONT_SIZE, ha="left", va="top",
    )  # fmt: skip
    diagram.label(
        (value_x + 0.45, new_keys.center[1]), "+ own key\nand value", fontsize=CAPTION_FONT_SIZE,
        ha="left",
    )  # fmt: skip
    attend = diagram.box(
        ((query_x + value_x) / 2 + 0.1, 4.6), r"softmax$(q_t K^{\top} / \sqrt{d_k})\, V$",
        "attention", caption="one query over $t$ keys", width=2.6,
    )  # fmt: skip
    diagram.arrow(projections[0], (query_x, attend.port("bottom")[1]), label="$q_t$",
                  label_side="left", label_at=0.5)  # fmt: skip
    for x in (key_x, value_x):
        diagram.arrow((x, top), (x, attend.port("bottom")[1]))
    diagram.arrow(attend, (attend.center[0], 5.35))
    diagram.label(
        (attend.center[0] + 0.1, 5.3), "feed forward, next layer", fontsize=CAPTION_FONT_SIZE,
        ha="left",
    )  # fmt: skip


def decoder_only_figure() -> Figure:
    """A decoder-only language model (Chapter 5, §5.10): on the left the stack that reads
    x_1..x_t under a causal mask and predicts x_{t+1}; on the right one layer of a cached
    generation step, where x_t's query attends over the cached K_past, V_past of x_1..x_{t-1}
    plus its own key and value, which are appended to the cache (K = [K_past; x_t W^K])."""
    diagram = Diagram(TEXT_COLUMN_WIDTH, 5.95)
    diagram.label((1.95, 5.85), r"reading $x_1, \ldots, x_t$", va="top")
    decoder_stack_column(diagram, 1.95)
    diagram.arrow((3.85, 0.1), (3.85, 5.85), head=False, color=FRAME_INK, linewidth=0.8)
    diagram.label((5.6, 5.85), "one cached step, one layer", va="top")
    cached_step_column(diagram, 4.05)
    return diagram.figure


POOLED_STATES = (
    (0.2, 0.9, -0.3, 1.5, 1.3),
    (-0.6, 0.7, 0.3, 0.9, 1.0),
    (1.1, -0.2, 0.5, 0.2, 0.1),
)
"""An example of the encoder's output H for max-pooling: one row per feature k, one column per
position t, the last two columns padding (their numbers are never taken)."""
REAL_POSITIONS = 3


def classifier_stack_column(diagram: Diagram, x: float) -> None:
    """The transformer classifier read bottom to top (Chapter 5, §5.9): the tokens embedded as
    sqrt(d) E[x_t] + P(t), N encoder layers under a padding mask, max-pooling over the real
    positions, dropout and a linear layer to the class logits."""
    tokens = ("$x_1$", r"$\cdots$", "$x_n$", "<pad>")
    embedding = embedded_tokens(
        diagram, x, tokens, r"$\sqrt{d}\,E[x_t] + P(t)$", "learned positions (or sinusoidal)",
        width=2.9, token_size=CAPTION_FONT_SIZE,
    )  # fmt: skip
    encoder = diagram.box(
        (x, 2.05), "encoder layer", "attention", caption="self-attention + feed forward",
        width=2.6,
    )  # fmt: skip
    diagram.frame((x - 1.5, 1.6), (x + 1.5, 2.55))
    diagram.label((x - 1.55, 2.05), "N ×", ha="right")
    diagram.label(
        (x, 2.59), "no position attends to the padding", fontsize=CAPTION_FONT_SIZE,
        color=FRAME_INK, va="bottom",
    )  # fmt: skip
    pool = diagram.box(
        (x, 3.5), r"$v_k = \max_{t \leq n} H[t, k]$", "pointwise",
        caption="max-pooling over time", width=2.6,
    )  # fmt: skip
    output = diagram.box(
        (x, 4.4), r"$W\,v + b$", "linear", caption="linear (after dropout)", width=2.6
    )
    diagram.arrow(embedding, encoder)
    diagram.arrow(encoder, pool, label="$H$", label_side="left", label_at=0.8)
    diagram.arrow(pool, output, label="$v$", label_side="left")
    diagram.arrow(output, (x, 5.0))
    diagram.label((x + 0.1, 4.95), "class logits", fontsize=CAPTION_FONT_SIZE, ha="left")


def max_pool_example(diagram: Diagram, left: float, top: float) -> None:
    """POOLED_STATES as a table, rows the features k and columns the positions t, the padding
    grey and each row's largest real value marked, beside the pooled vector v (Chapter 5)."""
    cell = (0.45, 0.36)
    maxima = [max(row[:REAL_POSITIONS]) for row in POOLED_STATES]
    texts = [[f"{value:.1f}" for value in row] for row in POOLED_STATES]
    kinds = [
        [
            "mask_blocked" if t >= REAL_POSITIONS else
            "attention" if value == best else "mask_allowed"
            for t, value in enumerate(row)
        ]
        for row, best in zip(POOLED_STATES, maxima, strict=True)
    ]  # fmt: skip
    columns = len(POOLED_STATES[0])
    cell_grid(diagram, (left, top), texts, kinds, cell)
    for t in range(columns):
        name = f"${t + 1}$" if t < REAL_POSITIONS else "pad"
        diagram.label((left + (t + 0.5) * cell[0], top + 0.05), name, fontsize=CAPTION_FONT_SIZE,
                      va="bottom")  # fmt: skip
    for k in range(len(POOLED_STATES)):
        diagram.label((left - 0.05, top - (k + 0.5) * cell[1]), f"$k = {k + 1}$", ha="right",
                      fontsize=CAPTION_FONT_SIZE)  # fmt: skip
    diagram.label((left + columns * cell[0] / 2, top + 0.35), "$H$: feature $k$ (rows), position $t$",
                  fontsize=CAPTION_FONT_SIZE, va="bottom")  # fmt: skip
    pooled_left = left + columns * cell[0] + 0.35
    rows = len(POOLED_STATES)
    cell_grid(diagram, (pooled_left, top), [[f"{m:.1f}"] for m in maxima],
              [["state"]] * rows, cell)  # fmt: skip
    middle = top - rows * cell[1] / 2
    diagram.arrow((pooled_left - 0.3, middle), (pooled_left - 0.05, middle))
    diagram.label((pooled_left + cell[0] / 2, top + 0.05), "$v$", va="bottom")
    diagram.label(
        (left + columns * cell[0] / 2, top - rows * cell[1] - 0.1),
        "$v$ keeps each row's largest real value;\nthe padding (grey) never wins",
        fontsize=CAPTION_FONT_SIZE, va="top",
    )  # fmt: skip


def classifier_figure() -> Figure:
    """``TransformerClassifier`` (Chapter 5, §5.9): H = Encoder(Dropout(sqrt(d) E[x] + P)),
    v_k = max_{t <= n} H[t, k] over the real positions, logits = W v + b; beside it, the
    max-pooling on a small example where padding holds the largest number and is skipped."""
    diagram = Diagram(TEXT_COLUMN_WIDTH, 5.15)
    classifier_stack_column(diagram, 1.95)
    diagram.arrow((3.85, 0.1), (3.85, 5.05), head=False, color=FRAME_INK, linewidth=0.8)
    max_pool_example(diagram, 4.4, 3.3)
    return diagram.figure
