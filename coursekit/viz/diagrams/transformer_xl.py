"""Diagrams of Chapter 7, Transformer-XL and XLNet: segment-level recurrence against the vanilla
model's independent segments, the relative attention layer of Transformer-XL and its relative
shift, and XLNet's two attention streams with the masks of one factorization order.

Circles are states (blue: tokens, yellow: hidden states, grey: cached states that get no
gradient); boxes are learned maps (grey), attention (yellow) and the feed-forward sublayer
(blue); in a mask, a white cell is a key the query may see and a grey one a key it may not.
"""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from coursekit.page import TEXT_COLUMN_WIDTH
from coursekit.viz.diagrams.drawing import CAPTION_FONT_SIZE, FRAME_INK, Diagram
from coursekit.viz.diagrams.shapes import Box, Operation
from coursekit.viz.diagrams.transformer import cell_grid

NODE_RADIUS = 0.085
THIN_LINE = 0.6
MEMORY_INK = "#2e7d32"
"""Lines from the new segment into the cached one (green)."""
TWO_STREAM_ORDER = (3, 2, 4, 1)
"""The factorization order the XLNet paper draws (Figure 1): x_3, then x_2, x_4, x_1."""


def layer_grid(
    diagram: Diagram, left: float, columns: int, kinds: Sequence[str], spacing: float
) -> list[list[Operation]]:
    """``rows x columns`` state circles from ``left``, row 0 (the tokens) at the bottom;
    ``kinds[r]`` is the palette kind of row r."""
    rows_y = [0.75 + 0.78 * row for row in range(len(kinds))]
    return [
        [
            diagram.operation((left + spacing * column, y), "", kind, radius=NODE_RADIUS)
            for column in range(columns)
        ]
        for kind, y in zip(kinds, rows_y, strict=True)
    ]


def causal_links(
    diagram: Diagram,
    below: Sequence[Operation],
    above: Sequence[Operation],
    color: str = FRAME_INK,
    every_key: bool = False,
) -> None:
    """A thin line from each state of ``below`` to each state of ``above`` that attends to it:
    the keys up to the query's own position (all of them when ``every_key``)."""
    for i, query in enumerate(above):
        for j, key in enumerate(below):
            if every_key or j <= i:
                diagram.arrow(key, query, head=False, color=color, linewidth=THIN_LINE)


def segment_panel(diagram: Diagram, left: float, title: str, with_memory: bool) -> None:
    """Two segments of 3 tokens under two layers. With memory, the first segment was computed
    in the previous step (grey): the inputs of each layer, x and h^1, are cached without
    gradient, and each layer of the second segment attends to them too (green lines)."""
    length, spacing, gap = 3, 0.42, 0.62
    diagram.label((left + 1.6, 3.05), title, va="bottom")
    first_kinds = ("linear",) * 3 if with_memory else ("input", "state", "state")
    first = layer_grid(diagram, left + 0.55, length, first_kinds, spacing)
    second_left = left + 0.55 + (length - 1) * spacing + gap
    second = layer_grid(diagram, second_left, length, ("input", "state", "state"), spacing)
    for row in (1, 2):
        causal_links(diagram, first[row - 1], first[row])
        causal_links(diagram, second[row - 1], second[row], color="#1a1a1a")
        if with_memory:
            causal_links(diagram, first[row - 1], second[row], MEMORY_INK, every_key=True)
    for row, name in enumerate(("$x$", "$h^1$", "$h^2$")):
        diagram.label((left + 0.22, first[row][0].center[1]), name)
    for grid, caption in ((first, r"segment $\tau$"), (second, r"segment $\tau+1$")):
        middle = grid[0][1].center[0]
        diagram.label((middle, 0.42), caption, fontsize=CAPTION_FONT_SIZE, va="top")
    if with_memory:
        lower, upper = first[0][0].center[0] - 0.2, first[0][-1].center[0] + 0.2
        diagram.frame((lower, 0.55), (upper, 1.75))
        memory_caption = diagram.label(
            ((lower + upper) / 2, 1.9), "memory (SG)", fontsize=CAPTION_FONT_SIZE, va="bottom"
        )
        memory_caption.set_bbox({"facecolor": "white", "edgecolor": "none", "pad": 1.0})


def segment_recurrence_figure() -> Figure:
    """The vanilla Transformer language model, which reads each segment alone, beside
    Transformer-XL, whose new segment also attends to the cached states of the previous one,
    h~^{n-1} = [SG(h_tau^{n-1}) o h_{tau+1}^{n-1}] (Chapter 7)."""
    diagram = Diagram(TEXT_COLUMN_WIDTH, 3.45)
    segment_panel(diagram, 0.05, "vanilla: each segment alone", with_memory=False)
    diagram.arrow((3.72, 0.2), (3.72, 3.35), head=False, color=FRAME_INK, linewidth=0.8)
    segment_panel(diagram, 3.85, "Transformer-XL: segment + memory", with_memory=True)
    return diagram.figure


def relative_attention_figure() -> Figure:
    """One Transformer-XL layer (Chapter 7): queries from the new segment, keys and values from
    [SG(m) o h], distances through W_{k,R} R_{i-j}, the score (q + u)^T k + (q + v)^T r, then
    the attention, residual and LayerNorm, and the feed-forward sublayer."""
    diagram = Diagram(7.3, 5.5)
    memory = diagram.box((0.75, 0.4), r"$\mathrm{SG}(m^{n-1})$", "linear", caption="memory")
    hidden = diagram.box((2.65, 0.4), r"$h^{n-1}$", "state", caption="new segment")
    distances = diagram.box((6.3, 0.4), r"$R_{i-j}$", "input", caption="sinusoids")
    context = diagram.box((1.3, 1.35), r"$\tilde{h} = [\mathrm{SG}(m) \circ h]$", "state")
    diagram.arrow(memory, context)
    diagram.arrow(hidden, context)
    value = diagram.box((0.55, 2.3), "$W_v$", "linear")
    key = diagram.box((2.0, 2.3), "$W_{k,E}$", "linear")
    query = diagram.box((4.25, 2.3), "$W_q$", "linear")
    position_key = diagram.box((6.3, 2.3), "$W_{k,R}$", "linear")
    diagram.arrow(context, value)
    diagram.arrow(context, key)
    diagram.arrow(hidden, query, via=[(4.25, 0.4)])
    diagram.arrow(distances, position_key)
    score = diagram.box(
        (4.25, 3.25),
        r"$A_{ij} = (q_i + u)^\top k_j + (q_i + v)^\top r_{i-j}$",
        "attention",
        caption="(a) + (c) and (b) + (d), relative shift",
    )
    diagram.arrow(key, score, via=[(2.0, 3.25)], label="$k$", label_side="left", label_at=0.25)
    diagram.arrow(query, score, label="$q$", label_side="left")
    diagram.arrow(position_key, score, via=[(6.3, 3.25)], label="$r$", label_at=0.2)
    attend = diagram.box(
        (4.25, 4.2), r"softmax$(A / \sqrt{d} + \mathrm{mask})\, v$", "attention", caption="per head"
    )
    diagram.arrow(value, attend, via=[(0.55, 4.2)], label="$v$", label_side="left", label_at=0.3)
    diagram.arrow(score, attend)
    block = diagram.box(
        (4.25, 5.1), r"$W_o$, + $h$, LayerNorm, FFN", "feed_forward", caption="as in Chapter 5"
    )
    diagram.arrow(attend, block)
    diagram.arrow(block, (6.95, 5.1))
    diagram.label((7.0, 5.1), r"$h^{n}$", ha="left")
    return diagram.figure


def mask_grid(
    diagram: Diagram, left: float, top: float, visible: Sequence[Sequence[bool]], title: str
) -> list[list[Box]]:
    """A square mask: row i is query x_i, column j key x_j, white where i may see j."""
    cell = 0.27
    size = len(visible)
    diagram.label((left + cell * size / 2, top + 0.38), title, fontsize=CAPTION_FONT_SIZE)
    grid = []
    for i, row in enumerate(visible):
        y = top - cell * (i + 0.5)
        diagram.label((left - 0.05, y), f"$x_{i + 1}$", fontsize=CAPTION_FONT_SIZE, ha="right")
        grid.append(
            [
                diagram.box(
                    (left + cell * (j + 0.5), y),
                    "",
                    "mask_allowed" if allowed else "mask_blocked",
                    width=cell,
                    height=cell,
                )
                for j, allowed in enumerate(row)
            ]
        )
    for j in range(size):
        label = f"$x_{j + 1}$"
        diagram.label((left + cell * (j + 0.5), top + 0.05), label, fontsize=10.0, va="bottom")
    return grid


def two_stream_masks(order: Sequence[int]) -> tuple[list[list[bool]], list[list[bool]]]:
    """For the factorization order ``order`` (1-based token numbers), who sees whom: the content
    stream of x_i sees x_j when j comes before i in the order or j = i; the query stream only
    when j comes before i."""
    rank = {token: t for t, token in enumerate(order)}
    tokens = sorted(order)
    content = [[rank[j] <= rank[i] for j in tokens] for i in tokens]
    query = [[rank[j] < rank[i] for j in tokens] for i in tokens]
    return content, query


def two_stream_figure() -> Figure:
    """XLNet's two streams in one layer (Chapter 7): the content stream h_i attends to
    [memory, h_j : z_j <= z_i] and sees its own token; the query stream g_i attends with the same
    weights to [memory, h_j : z_j < z_i] and knows its position, not its token. On the right the
    masks of the order x_3 -> x_2 -> x_4 -> x_1."""
    diagram = Diagram(TEXT_COLUMN_WIDTH, 3.7)
    content_in = diagram.box((1.0, 0.5), r"$h^{(m-1)}$", "state", caption="content")
    query_in = diagram.box((2.85, 0.5), r"$g^{(m-1)}$", "output", caption="query")
    content_attention = diagram.box(
        (1.0, 1.75), "attention", "attention", caption="content mask", width=1.25
    )
    query_attention = diagram.box(
        (2.85, 1.75), "attention", "attention", caption="query mask", width=1.25
    )
    diagram.arrow(content_in, content_attention, label="Q, K, V", label_side="left")
    diagram.arrow(query_in, query_attention, label="Q", label_side="right")
    diagram.arrow(content_in, query_attention, label="K, V", label_side="right", label_at=0.3)
    content_out = diagram.box((1.0, 2.95), r"$h^{(m)}$", "state", caption="sees $x_i$")
    query_out = diagram.box((2.85, 2.95), r"$g^{(m)}$", "output", caption="position $i$, not $x_i$")
    diagram.arrow(content_attention, content_out)
    diagram.arrow(query_attention, query_out)
    diagram.label((1.93, 3.55), "same weights, two streams", fontsize=CAPTION_FONT_SIZE)
    diagram.arrow((4.0, 0.2), (4.0, 3.5), head=False, color=FRAME_INK, linewidth=0.8)
    content, query = two_stream_masks(TWO_STREAM_ORDER)
    diagram.label((5.7, 3.55), r"order $x_3 \to x_2 \to x_4 \to x_1$", fontsize=CAPTION_FONT_SIZE)
    mask_grid(diagram, 4.5, 2.6, content, "content stream")
    mask_grid(diagram, 6.1, 2.6, query, "query stream")
    diagram.label(
        (5.7, 1.0),
        "row: the query $x_i$; column: the key $x_j$\nwhite: $x_i$ may attend to $x_j$",
        fontsize=CAPTION_FONT_SIZE,
    )
    return diagram.figure


SHIFT_QUERIES, SHIFT_MEMORY = 3, 2
"""The small case Chapter 7 prints for the relative shift: Q = 3 queries after M = 2 memories."""
SHIFT_CELL = (0.44, 0.34)
QUERY_KINDS = ("input", "state", "output")
"""One fill per query row, so that the reshapes show where each row's numbers go."""
PAD = "0"


def shift_tables(queries: int, memory: int) -> list[list[list[str]]]:
    """The four tables of the relative shift (Chapter 7), each entry ``"i,d"`` (query i's score
    against distance d) or PAD: the [Q, K] table by distance K-1..0; padded with a zero column;
    read as [K + 1, Q]; the last rows read back as [Q, K], where entry (i, j) is
    table[i, Q - 1 - i + j], the distance i + M - j when j <= i + M."""
    keys = queries + memory
    table = [[f"{i},{keys - 1 - c}" for c in range(keys)] for i in range(queries)]
    padded = [[PAD, *row] for row in table]
    flat = [entry for row in padded for entry in row]
    reread = [flat[r * queries : (r + 1) * queries] for r in range(keys + 1)]
    rest = flat[queries:]
    shifted = [rest[i * keys : (i + 1) * keys] for i in range(queries)]
    return [table, padded, reread, shifted]


def entry_kind(entry: str, future: bool = False) -> str:
    """The fill of one entry: its query's colour, white for the padded zero, grey when the mask
    hides it (a future key) or the shift drops it."""
    if future:
        return "mask_blocked"
    return "mask_allowed" if entry == PAD else QUERY_KINDS[int(entry.split(",")[0])]


def query_labels(diagram: Diagram, right: float, top: float, rows: int) -> None:
    """Name the rows ``i = 0, 1, ...`` of a table of SHIFT_CELL cells, left of ``right``."""
    for i in range(rows):
        diagram.label((right, top - (i + 0.5) * SHIFT_CELL[1]), f"$i = {i}$", ha="right",
                      fontsize=CAPTION_FONT_SIZE)  # fmt: skip


def relative_shift_figure() -> Figure:
    """Transformer-XL's relative shift on Chapter 7's small case (Q = 3, M = 2, K = 5): the
    [Q, K] scores by distance, a zero column padded in front, the [Q, K + 1] numbers read as
    [K + 1, Q] with the first row dropped, and the rest read back as [Q, K]: row i moves
    Q - 1 - i columns, so that entry (i, j) is the score of distance i + M - j; the entries of
    future keys (j > i + M) hold the pad or the next row's numbers, and the causal mask hides
    them."""
    diagram = Diagram(TEXT_COLUMN_WIDTH, 4.7)
    table, padded, reread, shifted = shift_tables(SHIFT_QUERIES, SHIFT_MEMORY)
    width, height = SHIFT_CELL
    keys = SHIFT_QUERIES + SHIFT_MEMORY
    diagram.label((3.75, 4.65), 'entry "i,d": the score of query $i$ against distance $d$',
                  fontsize=CAPTION_FONT_SIZE, va="top")  # fmt: skip
    top, table_left, padded_left = 3.95, 0.75, 4.35
    for left, entries, title in (
        (table_left, table, "[Q, K], by distance $K-1, \\ldots, 0$"),
        (padded_left, padded, "[Q, K + 1]: a zero column in front"),
    ):
        kinds = [[entry_kind(entry) for entry in row] for row in entries]
        cell_grid(diagram, (left, top), entries, kinds, SHIFT_CELL)
        query_labels(diagram, left - 0.05, top, SHIFT_QUERIES)
        diagram.label((left + len(entries[0]) * width / 2, top + 0.05), title,
                      fontsize=CAPTION_FONT_SIZE, va="bottom")  # fmt: skip
    middle = top - 1.5 * height
    diagram.arrow((table_left + keys * width + 0.1, middle), (padded_left - 0.55, middle),
                  label="pad", label_side="top")  # fmt: skip
    reread_left, reread_top = padded_left + 1.5 * width, 2.4
    kinds = [[entry_kind(entry, r == 0) for entry in row] for r, row in enumerate(reread)]
    cell_grid(diagram, (reread_left, reread_top), reread, kinds, SHIFT_CELL)
    diagram.label((reread_left - 0.08, reread_top - 0.5 * height), "dropped", ha="right",
                  fontsize=CAPTION_FONT_SIZE)  # fmt: skip
    reread_x = reread_left + 1.5 * width
    diagram.arrow((reread_x, top - 3 * height - 0.05), (reread_x, reread_top + 0.05),
                  label="read as [K + 1, Q]", label_side="right")  # fmt: skip
    shifted_left, shifted_top = table_left, reread_top - height
    future = [[j > i + SHIFT_MEMORY for j in range(keys)] for i in range(SHIFT_QUERIES)]
    kinds = [
        [entry_kind(entry, hidden) for entry, hidden in zip(row, hidden_row, strict=True)]
        for row, hidden_row in zip(shifted, future, strict=True)
    ]
    cell_grid(diagram, (shifted_left, shifted_top), shifted, kinds, SHIFT_CELL)
    query_labels(diagram, shifted_left - 0.05, shifted_top, SHIFT_QUERIES)
    middle = shifted_top - 1.5 * height
    diagram.arrow((reread_left - 0.1, middle), (shifted_left + keys * width + 0.1, middle),
                  label="rows 1..K\nread back\nas [Q, K]", label_side="bottom")  # fmt: skip
    for j in range(keys):
        diagram.label((shifted_left + (j + 0.5) * width, shifted_top + 0.05), f"$j = {j}$",
                      fontsize=CAPTION_FONT_SIZE, va="bottom")  # fmt: skip
    diagram.label((shifted_left + keys * width / 2, shifted_top + 0.32),
                  "entry $(i, j)$ = entry $(i, Q-1-i+j)$ of [Q, K]", fontsize=CAPTION_FONT_SIZE,
                  va="bottom")  # fmt: skip
    diagram.label((shifted_left + keys * width / 2, shifted_top - 3 * height - 0.1),
                  "under key $j$: distance $d = i + M - j$;\ngrey: future keys $j > i + M$,\n"
                  "hidden by the causal mask", fontsize=CAPTION_FONT_SIZE, va="top")  # fmt: skip
    return diagram.figure
