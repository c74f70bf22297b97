"""The diagrams of Chapter 7 (coursekit.viz.diagrams.transformer_xl) draw what the models
compute: the memory lines join only the new segment to the cached one, the relative attention layer is wired
as its equations say, the relative shift's tables are what relative_shift computes, and the
two-stream masks are the masks XLNet receives.
"""

from __future__ import annotations

import pytest
import torch
from matplotlib.colors import to_hex

from coursekit.models.transformer_xl.relative_position import relative_shift
from coursekit.models.xlnet.inputs import content_stream_blocked, query_stream_blocked
from coursekit.models.xlnet.permutation import permutation_masks
from coursekit.viz.diagrams.drawing import PALETTE
from coursekit.viz.diagrams.inspection import drawn_arrows, drawn_nodes, overlapping_labels
from coursekit.viz.diagrams.transformer_xl import (
    MEMORY_INK,
    PAD,
    SHIFT_MEMORY,
    SHIFT_QUERIES,
    TWO_STREAM_ORDER,
    relative_attention_figure,
    relative_shift_figure,
    segment_recurrence_figure,
    shift_tables,
    two_stream_figure,
    two_stream_masks,
)


def test_only_transformer_xl_attends_to_the_previous_segment() -> None:
    figure = segment_recurrence_figure()
    memory_lines = [arrow for arrow in drawn_arrows(figure) if arrow.color == to_hex(MEMORY_INK)]
    assert len(memory_lines) == 2 * 3 * 3, "each of 2 layers: 3 queries x 3 cached keys"
    cached = to_hex(PALETTE["linear"])
    for line in memory_lines:
        assert line.source is not None and line.target is not None
        assert to_hex(line.source.patch.get_facecolor()) == cached, "keys come from the memory"
        assert to_hex(line.target.patch.get_facecolor()) != cached, "queries from the new segment"
        assert line.target.center[0] > 3.85 and line.source.center[1] < line.target.center[1]


def test_relative_attention_takes_queries_from_the_segment_and_keys_from_the_context() -> None:
    figure = relative_attention_figure()
    nodes = {node.text.split("\n")[0]: node for node in drawn_nodes(figure)}
    feeds = {
        (arrow.source.text.split("\n")[0], arrow.target.text.split("\n")[0])
        for arrow in drawn_arrows(figure)
        if arrow.source and arrow.target
    }
    context, hidden = r"$\tilde{h} = [\mathrm{SG}(m) \circ h]$", r"$h^{n-1}$"
    score = next(text for text in nodes if text.startswith("$A_{ij}"))
    assert {(context, "$W_v$"), (context, "$W_{k,E}$"), (hidden, "$W_q$")} <= feeds
    assert (r"$R_{i-j}$", "$W_{k,R}$") in feeds
    assert {source for source, target in feeds if target == score} == {
        "$W_{k,E}$",
        "$W_q$",
        "$W_{k,R}$",
    }
    assert (context, "$W_q$") not in feeds, "the memory gives keys and values, not queries"


def test_two_stream_masks_follow_the_order_and_differ_on_the_diagonal() -> None:
    content, query = two_stream_masks(TWO_STREAM_ORDER)
    assert all(content[i][i] for i in range(4)) and not any(query[i][i] for i in range(4))
    assert not any(query[2]), "x_3 comes first: its query stream sees no token"
    assert all(content[0]), "x_1 comes last: its content stream sees every token"
    assert [sum(row) for row in query] == [3, 1, 0, 2]


@pytest.mark.parametrize("order", [(3, 2, 4, 1), (1, 2, 3, 4), (2, 4, 1, 3)])
def test_drawn_masks_are_the_masks_xlnet_receives_for_every_target(order: tuple) -> None:
    prediction = permutation_masks(torch.tensor([[token - 1 for token in order]]), cut=1)
    blocked = query_stream_blocked(None, prediction.perm_mask, 0, torch.float32)
    query = (1 - blocked[0, 0]).bool().tolist()
    content = (1 - content_stream_blocked(blocked, 0)[0, 0]).bool().tolist()
    drawn_content, drawn_query = two_stream_masks(order)
    for target in order[1:]:  # the first token of the order is context (cut 1), not predicted
        assert query[target - 1] == drawn_query[target - 1]
        assert content[target - 1] == drawn_content[target - 1]


def test_two_stream_figure_draws_both_masks_cell_by_cell() -> None:
    figure = two_stream_figure()
    cells = [
        node
        for node in drawn_nodes(figure)
        if to_hex(node.patch.get_facecolor())
        in {to_hex(PALETTE["mask_allowed"]), to_hex(PALETTE["mask_blocked"])}
    ]
    content, query = two_stream_masks(TWO_STREAM_ORDER)
    allowed = sum(map(sum, content)) + sum(map(sum, query))
    white = [c for c in cells if to_hex(c.patch.get_facecolor()) == PALETTE["mask_allowed"]]
    assert len(cells) == 2 * 16 and len(white) == allowed
    assert overlapping_labels(figure) == []


def test_relative_shift_tables_are_what_relative_shift_computes() -> None:
    table, padded, reread, shifted = shift_tables(SHIFT_QUERIES, SHIFT_MEMORY)
    keys = SHIFT_QUERIES + SHIFT_MEMORY
    code = {entry: 10 * (int(entry[0]) + 1) + int(entry[-1]) for row in table for entry in row}
    numbers = torch.tensor([[code[entry] for entry in row] for row in table])
    decode = {number: entry for entry, number in code.items()} | {0: PAD}
    computed = relative_shift(numbers, keys).tolist()
    assert shifted == [[decode[number] for number in row] for row in computed]
    assert [row[0] for row in padded] == [PAD] * SHIFT_QUERIES and len(reread) == keys + 1
    for i, row in enumerate(shifted):
        for j, entry in enumerate(row):
            if j <= i + SHIFT_MEMORY:
                assert entry == f"{i},{i + SHIFT_MEMORY - j}", "query i, distance i + M - j"


def test_relative_shift_figure_greys_the_dropped_row_and_exactly_the_future_keys() -> None:
    figure = relative_shift_figure()
    blocked = to_hex(PALETTE["mask_blocked"])
    grey = [node.text for node in drawn_nodes(figure)
            if to_hex(node.patch.get_facecolor()) == blocked]  # fmt: skip
    _, _, reread, shifted = shift_tables(SHIFT_QUERIES, SHIFT_MEMORY)
    future = [
        entry
        for i, row in enumerate(shifted)
        for j, entry in enumerate(row)
        if j > i + SHIFT_MEMORY
    ]
    assert sorted(grey) == sorted(reread[0] + future)
    assert future == [PAD, "1,4", PAD], "the pad and the next row's numbers, hidden by the mask"
    assert overlapping_labels(figure) == []
