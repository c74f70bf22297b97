"""Chapter 7's questions: the references agree with brute force (the shift read off a table of
distances, attention with the previous segment's states held constant, the masks written out
rule by rule), with Hugging Face's formulation of XLNet's segment term, and with an experiment
on coursekit's Transformer-XL (how far back an output changes when a token does); the solutions
score full marks; each classic mistake loses most of the points."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
import torch
import torch.nn.functional as F
from test_grading_bank_ch01 import (
    ROOT,
    assert_fails_the_case_named,
    assert_full_marks,
    assert_loses_most_points,
    assert_names_only_its_mistake,
    cases_of,
    graded,
    notebook_functions,
)
from torch import Tensor

from coursekit.grading import check, get_question
from coursekit.grading.bank import ch07
from coursekit.models import TransfoXLModel

CHAPTER_7 = [f"ch07.q{number}" for number in range(1, 8)]


def test_the_solutions_score_full_marks() -> None:
    """(Registration, case data and stubs: test_grading_banks.py checks every chapter.)"""
    solutions = notebook_functions(ROOT / "solutions/07-transformer-xl-xlnet.ipynb")
    for question_id in CHAPTER_7:
        assert_full_marks(question_id, solutions)


# The references equal independent implementations ------------------------------------------


def test_the_shift_puts_each_distance_on_its_key() -> None:
    """A table whose entry is a known function of the query and the DISTANCE of its column
    becomes, once shifted, that function of the query and the distance i + M - j of each key."""
    question = get_question("ch07.q1")
    for case in cases_of("ch07.q1"):
        table, memory = case.args
        queries, keys = table.shape[-2:]
        rows = torch.arange(queries, dtype=torch.float64).view(-1, 1)
        distances = torch.arange(keys - 1, -1, -1, dtype=torch.float64)  # column c: K - 1 - c
        known = (1000 * rows + distances).expand_as(table).clone()
        shifted = question.reference(known, memory)
        for i in range(queries):
            for j in range(keys):
                expected = 1000 * i + (i + memory - j) if j <= i + memory else -math.inf
                assert bool((shifted[..., i, j] == expected).all())


def attention_with_constant_memory(
    previous_inputs: Tensor,
    inputs: Tensor,
    W_in: Tensor,
    W_q: Tensor,
    W_k: Tensor,
    W_v: Tensor,
    mem_len: int,
    stop_gradient: bool = True,
) -> tuple[Tensor, Tensor]:
    """One query at a time over the keys it may see; the previous segment's states are a new
    leaf computed without gradient (a constant), unless ``stop_gradient`` is False."""
    W_in = W_in.clone().requires_grad_(True)  # noqa: N806
    with torch.set_grad_enabled(not stop_gradient):
        previous = torch.tanh(previous_inputs @ W_in)
    memory = previous[:, previous.shape[1] - min(mem_len, previous.shape[1]) :]
    hidden = torch.tanh(inputs @ W_in)
    context = torch.cat([memory, hidden], dim=1)
    outputs = []
    for i in range(hidden.shape[1]):
        visible = context[:, : memory.shape[1] + i + 1]
        scores = (hidden[:, i : i + 1] @ W_q) @ (visible @ W_k).transpose(1, 2)
        weights = torch.softmax(scores / math.sqrt(W_k.shape[1]), dim=-1)
        outputs.append(weights @ (visible @ W_v))
    output = torch.cat(outputs, dim=1)
    (gradient,) = torch.autograd.grad(0.5 * (output**2).sum(), W_in)
    return output.detach(), gradient


def test_memory_attention_equals_attention_over_a_constant_memory() -> None:
    question = get_question("ch07.q2")
    for case in cases_of("ch07.q2"):
        torch.testing.assert_close(
            question.expected(case), attention_with_constant_memory(*case.args)
        )


def test_without_the_stop_gradient_only_the_gradient_changes() -> None:
    question = get_question("ch07.q2")
    for case in cases_of("ch07.q2"):
        output, gradient = question.expected(case)
        through_memory = attention_with_constant_memory(*case.args, stop_gradient=False)
        torch.testing.assert_close(output, through_memory[0])
        if case.args[-1] > 0:
            assert (gradient - through_memory[1]).abs().max() > 1e-3


def test_only_the_orientation_of_w_in_fails_its_case() -> None:
    """With one query and no memory the softmax has one key of weight 1: the SG, the memory,
    the mask and the scale change nothing there, and x W_in^T fails it."""
    for mistake in ("no SG", "oldest", "mask without memory", "no sqrt"):
        _, result = graded("ch07.q2", memory_attention_with(mistake))
        named = [case for case in result.cases if ch07.W_IN_ORIENTATION in case.description]
        assert named and all(case.passed for case in named), mistake
    assert_fails_the_case_named(
        "ch07.q2", memory_attention_with("W_in transposed"), ch07.W_IN_ORIENTATION
    )


def test_order_masks_follow_the_rules_position_by_position() -> None:
    question = get_question("ch07.q3")
    for case in cases_of("ch07.q3"):
        order, cut = case.args
        perm_mask, target_mapping = question.expected(case)
        for b, row in enumerate(order.tolist()):
            rank = {position: t for t, position in enumerate(row)}
            for i in range(len(row)):
                for j in range(len(row)):
                    target_i, target_j = rank[i] >= cut, rank[j] >= cut
                    sees = not target_j or (target_i and rank[j] < rank[i])
                    assert perm_mask[b, i, j] == (0.0 if sees else 1.0)
            for p, position in enumerate(row[cut:]):
                assert (
                    target_mapping[b, p].tolist()
                    == F.one_hot(torch.tensor(position), len(row)).tolist()
                )


def test_the_sources_orders_predict_x3_from_the_tokens_before_it() -> None:
    """With K=1, x3 (position 2) sees the tokens before it in each of the sources' orders: in
    [x3, x2, x4, x1] it is the context and sees only itself; then {x2, x4}, {x4}, {x1, x4, x2}."""
    perm_mask, _ = get_question("ch07.q3").expected(cases_of("ch07.q3")[0])
    seen_by_x3 = [{j for j in range(4) if perm_mask[b, 2, j] == 0} for b in range(4)]
    assert seen_by_x3 == [{2}, {1, 3}, {3}, {0, 1, 3}]


def test_two_stream_masks_follow_the_rules_key_by_key() -> None:
    question = get_question("ch07.q4")
    for case in cases_of("ch07.q4"):
        perm_mask, attention_mask, memory = case.args
        content, query = question.expected(case)
        batch, length = attention_mask.shape
        for b in range(batch):
            for i in range(length):
                for key in range(memory + length):
                    k = key - memory
                    hidden = k >= 0 and (perm_mask[b, i, k] == 1 or attention_mask[b, k] == 0)
                    assert query[b, i, key] == float(hidden)
                    assert content[b, i, key] == float(hidden and k != i)


def test_most_two_stream_cases_are_padded_and_have_memory() -> None:
    cases = cases_of("ch07.q4")
    padded = [case for case in cases if bool((case.args[1] == 0).any())]
    assert len(padded) >= 2 * (len(cases) - len(padded)) + 1
    assert sum(case.args[2] > 0 for case in cases) >= len(cases) // 2


def outputs_read_in_segments(model: TransfoXLModel, text: Tensor, segment: int) -> Tensor:
    """The top layer's states of every position of ``text [1, T]``, read segment by segment."""
    states, mems = [], None
    for tokens in text.split(segment, dim=1):
        hidden, mems = model(tokens, mems)
        states.append(hidden)
    return torch.cat(states, dim=1)


@pytest.mark.parametrize("case_number", range(8))
def test_earliest_visible_is_what_a_perturbation_of_transformer_xl_shows(case_number: int) -> None:
    """Change token s of the text: the outputs that change are exactly those at positions t >= s
    whose earliest visible position is s or before. Tried for every s where the answer changes
    (each earliest position, the one before it) and for the last position."""
    case = cases_of("ch07.q5")[case_number]
    length, segment, mem_len, n_layer = case.args
    earliest = get_question("ch07.q5").expected(case)
    torch.manual_seed(0)
    model = (
        TransfoXLModel(
            11,
            d_model=8,
            n_head=2,
            d_head=4,
            d_inner=16,
            n_layer=n_layer,
            mem_len=mem_len,
            dropout=0.0,
        )
        .double()
        .eval()
    )
    text = torch.randint(1, 11, (1, length))
    sources = {length - 1} | {max(0, e - d) for e in earliest.tolist() for d in (0, 1)}
    positions = torch.arange(length)
    with torch.no_grad():
        original = outputs_read_in_segments(model, text, segment)
        for source in sorted(sources):
            changed_text = text.clone()
            changed_text[0, source] = 0
            changed = outputs_read_in_segments(model, changed_text, segment)
            depends = (changed != original).any(-1)[0]
            assert torch.equal(depends, (earliest <= source) & (positions >= source)), source


def hugging_face_segment_term(
    queries: Tensor, token_type_ids: Tensor, memory: int, bias: Tensor, same: Tensor, other: Tensor
) -> Tensor:
    """XLNet's term as transformers' XLNetRelativeAttention writes it: a one-hot ``seg_mat``
    [Q, M + Q, B, 2] of (different segment), memory padded with segment 0, and two einsums."""
    ids = token_type_ids.T  # [Q, B]
    cat_ids = torch.cat([torch.zeros(memory, ids.shape[1], dtype=ids.dtype), ids], dim=0)
    seg_mat = F.one_hot((ids[:, None] != cat_ids[None, :]).long(), num_classes=2).double()
    q_head = queries.permute(2, 0, 1, 3)  # [Q, B, heads, d]
    ef = torch.einsum("ibnd,snd->ibns", q_head + bias, torch.stack([same, other]))
    return torch.einsum("ijbs,ibns->bnij", seg_mat, ef)


def test_segment_term_equals_hugging_faces_formulation() -> None:
    question = get_question("ch07.q6")
    for case in cases_of("ch07.q6"):
        torch.testing.assert_close(question.expected(case), hugging_face_segment_term(*case.args))


def test_renaming_the_segments_changes_nothing_without_memory() -> None:
    question = get_question("ch07.q6")
    for case in cases_of("ch07.q6"):
        queries, token_type_ids, memory, *vectors = case.args
        if memory == 0:
            renamed = question.reference(queries, 7 - token_type_ids, 0, *vectors)
            torch.testing.assert_close(renamed, question.expected(case))


# Classic mistakes lose most of the points -----------------------------------------------------


def shift_with(mistake: str) -> Callable[..., Any]:
    """The shift with one mistake: one column too far, the columns read as distances 0, 1, ...,
    the mask without the memory or one key too strict, or no mask."""

    def answer(table: Tensor, memory: int) -> Tensor:
        queries, keys = table.shape[-2:]
        i, j = torch.arange(queries).unsqueeze(1), torch.arange(keys).unsqueeze(0)
        columns = {
            "off by one": queries - i + j,
            "reversed": i + memory - j,
        }.get(mistake, queries - 1 - i + j)
        shifted = table.gather(-1, columns.clamp(0, keys - 1).expand(table.shape))
        future = {
            "mask without memory": j > i,
            "mask off by one": j >= i + memory,
            "no mask": torch.zeros_like(j > i),
        }.get(mistake, j > i + memory)
        return shifted.masked_fill(future, -math.inf)

    return answer


def memory_attention_with(mistake: str) -> Callable[..., Any]:
    """One step with one mistake: no stop-gradient, the oldest states kept, ``x[:, -mem_len:]``,
    a mask without the memory, no 1/sqrt(d_k), or ``x W_in^T`` (the chapter's ``h W^T``)."""

    def answer(previous_inputs, inputs, W_in, W_q, W_k, W_v, mem_len):  # noqa: N803
        W_in = W_in.clone().requires_grad_(True)  # noqa: N806
        applied = W_in.T if mistake == "W_in transposed" else W_in
        previous = torch.tanh(previous_inputs @ applied)
        if mistake == "oldest":
            memory = previous[:, :mem_len]
        elif mistake == "-0 slice":
            memory = previous[:, -mem_len:]
        else:
            memory = previous[:, previous.shape[1] - min(mem_len, previous.shape[1]) :]
        memory = memory if mistake == "no SG" else memory.detach()
        hidden = torch.tanh(inputs @ applied)
        context = torch.cat([memory, hidden], dim=1)
        M, Q = memory.shape[1], hidden.shape[1]  # noqa: N806
        scale = 1.0 if mistake == "no sqrt" else W_k.shape[1] ** 0.5
        scores = (hidden @ W_q) @ (context @ W_k).transpose(1, 2) / scale
        i, j = torch.arange(Q).unsqueeze(1), torch.arange(M + Q).unsqueeze(0)
        future = j > i if mistake == "mask without memory" else j > i + M
        output = torch.softmax(scores.masked_fill(future, -math.inf), -1) @ (context @ W_v)
        (gradient,) = torch.autograd.grad(0.5 * output.pow(2).sum(), W_in)
        return output.detach(), gradient

    return answer


def order_masks_with(mistake: str) -> Callable[..., Any]:
    """perm_mask with one mistake: the order read as ranks, 1 meaning 'may attend', rows and
    columns swapped, a target that sees itself, or target_mapping in position order."""

    def answer(order: Tensor, cut: int) -> tuple[Tensor, Tensor]:
        batch, length = order.shape
        rank = order.argsort(1) if mistake != "order as rank" else order
        is_target = rank >= cut
        before = rank.unsqueeze(1) <= rank.unsqueeze(2) if mistake == "sees itself" else None
        before = rank.unsqueeze(1) < rank.unsqueeze(2) if before is None else before
        may_see = ~is_target.unsqueeze(1) | (is_target.unsqueeze(2) & before)
        blocked = may_see if mistake == "polarity" else ~may_see
        blocked = blocked.transpose(1, 2) if mistake == "transposed" else blocked
        targets = (
            order[:, cut:].sort(1).values if mistake == "mapping by position" else order[:, cut:]
        )
        return blocked.double(), F.one_hot(targets, length).double()

    return answer


def two_stream_with(mistake: str) -> Callable[..., Any]:
    """The masks with one mistake: the query stream sees itself, the memory blocked or left out,
    padding read the wrong way round, padding on the queries instead of the keys, or the content
    stream's own key opened at column i instead of M + i."""

    def answer(perm_mask: Tensor, attention_mask: Tensor, memory: int) -> tuple[Tensor, Tensor]:
        batch, length = attention_mask.shape
        padding = attention_mask == (1 if mistake == "padding polarity" else 0)
        padding = padding.unsqueeze(2) if mistake == "padding on queries" else padding.unsqueeze(1)
        blocked = (perm_mask > 0) | padding
        if mistake != "no memory":
            memory_columns = torch.full((batch, length, memory), mistake == "memory blocked")
            blocked = torch.cat([memory_columns, blocked], dim=2)
        before = 0 if mistake == "own key at column i" else blocked.shape[2] - length
        itself = F.pad(
            torch.eye(length, dtype=torch.bool), (before, blocked.shape[2] - length - before)
        )
        content = blocked & ~itself
        query = content if mistake == "query sees itself" else blocked
        return content.double(), query.double()

    return answer


def earliest_with(mistake: str) -> Callable[..., Any]:
    """The reach with one mistake: one layer's reach, t - N * mem_len, or the segment's start
    minus N * mem_len (right only when mem_len is a multiple of L)."""

    def answer(length: int, segment: int, mem_len: int, n_layer: int) -> Tensor:
        positions = torch.arange(length)
        start = positions // segment * segment
        reach = {
            "one layer": start - mem_len,
            "t - N mem_len": positions - n_layer * mem_len,
            "start - N mem_len": start - n_layer * mem_len,
        }[mistake]
        return reach.clamp(min=0)

    return answer


def segment_term_with(mistake: str) -> Callable[..., Any]:
    """The segment term with one mistake: s+ and s- swapped, no bias, the memory in the query's
    segment or left out, or an absolute embedding chosen by the key's segment id."""

    def answer(queries, token_type_ids, memory, bias, same, other):
        batch = token_type_ids.shape[0]
        if mistake == "memory left out":
            memory = 0
        keys = torch.cat([torch.zeros(batch, memory, dtype=torch.long), token_type_ids], 1)
        is_same = token_type_ids.unsqueeze(2) == keys.unsqueeze(1)
        if mistake == "memory in the query's segment":
            is_same[:, :, :memory] = True
        if mistake == "absolute":
            is_same = (keys == 0).unsqueeze(1).expand_as(is_same)
        if mistake == "swapped":
            is_same = ~is_same
        biased = queries + (0 if mistake == "no bias" else bias.unsqueeze(1))
        score_same = (biased * same.unsqueeze(1)).sum(-1, keepdim=True)
        score_other = (biased * other.unsqueeze(1)).sum(-1, keepdim=True)
        return torch.where(is_same.unsqueeze(1), score_same, score_other)

    return answer


def measured_reach_with(mistake: str) -> Callable[..., Any]:
    """The measurement with one mistake: the text read in one call, each segment read without
    the memories of the ones before, or a model built without ``same_length``."""

    def answer(length: int, segment: int, mem_len: int, n_layer: int, same: bool) -> Tensor:
        torch.manual_seed(1)
        sizes = dict(d_model=8, n_head=2, d_head=4, d_inner=16, n_layer=n_layer, dropout=0.0)
        same = same and mistake != "same_length ignored"
        model = TransfoXLModel(11, **sizes, mem_len=mem_len, same_length=same).double().eval()
        text = torch.randint(1, 11, (1, length))

        def outputs(tokens: Tensor) -> Tensor:
            if mistake == "one call":
                return model(tokens)[0]
            if mistake == "no memory":
                return torch.cat([model(piece)[0] for piece in tokens.split(segment, 1)], 1)
            return outputs_read_in_segments(model, tokens, segment)

        earliest = torch.arange(length)
        with torch.no_grad():
            original = outputs(text)
            for source in reversed(range(length)):
                changed = text.clone()
                changed[0, source] = 0
                earliest[(outputs(changed) != original).any(-1)[0]] = source
        return earliest

    return answer


@pytest.mark.parametrize(
    ("question_id", "wrong_answer", "at_most"),
    [
        ("ch07.q1", shift_with("off by one"), 0.0),
        ("ch07.q1", shift_with("reversed"), 0.0),
        ("ch07.q1", shift_with("mask without memory"), 0.2),
        ("ch07.q1", shift_with("mask off by one"), 0.0),
        ("ch07.q1", shift_with("no mask"), 0.2),
        ("ch07.q2", memory_attention_with("no SG"), 0.2),
        ("ch07.q2", memory_attention_with("oldest"), 0.35),
        ("ch07.q2", memory_attention_with("mask without memory"), 0.2),
        ("ch07.q2", memory_attention_with("no sqrt"), 0.2),
        ("ch07.q2", memory_attention_with("W_in transposed"), 0.0),
        ("ch07.q3", order_masks_with("order as rank"), 0.4),
        ("ch07.q3", order_masks_with("polarity"), 0.0),
        ("ch07.q3", order_masks_with("transposed"), 0.0),
        ("ch07.q3", order_masks_with("sees itself"), 0.0),
        ("ch07.q3", order_masks_with("mapping by position"), 0.4),
        ("ch07.q4", two_stream_with("query sees itself"), 0.2),
        ("ch07.q4", two_stream_with("memory blocked"), 0.5),
        ("ch07.q4", two_stream_with("no memory"), 0.5),
        ("ch07.q4", two_stream_with("padding polarity"), 0.0),
        ("ch07.q4", two_stream_with("padding on queries"), 0.3),
        ("ch07.q5", earliest_with("one layer"), 0.4),
        ("ch07.q5", earliest_with("t - N mem_len"), 0.2),
        ("ch07.q6", segment_term_with("swapped"), 0.0),
        ("ch07.q6", segment_term_with("no bias"), 0.0),
        ("ch07.q6", segment_term_with("memory in the query's segment"), 0.35),
        ("ch07.q6", segment_term_with("memory left out"), 0.35),
        ("ch07.q6", segment_term_with("absolute"), 0.4),
        ("ch07.q7", measured_reach_with("one call"), 0.45),
        ("ch07.q7", measured_reach_with("no memory"), 0.2),
        ("ch07.q7", measured_reach_with("same_length ignored"), 0.6),
    ],
)
def test_a_classic_mistake_loses_most_points(
    question_id: str, wrong_answer: Callable[..., Any], at_most: float
) -> None:
    assert_loses_most_points(question_id, wrong_answer, at_most)


@pytest.mark.parametrize(
    ("question_id", "wrong_answer", "words"),
    [
        ("ch07.q1", shift_with("off by one"), "column Q-1-i+j"),
        ("ch07.q1", shift_with("reversed"), "distances K-1 down to 0"),
        ("ch07.q1", shift_with("mask without memory"), "the memory included"),
        ("ch07.q1", shift_with("mask off by one"), "its own key included"),
        ("ch07.q1", shift_with("no mask"), "query i sees keys j <= i + M"),
        ("ch07.q2", memory_attention_with("-0 slice"), "mem_len=0"),
        ("ch07.q2", memory_attention_with("oldest"), "MOST RECENT"),
        ("ch07.q2", memory_attention_with("no SG"), "must not flow into the memory (SG)"),
        ("ch07.q2", memory_attention_with("mask without memory"), "sees the whole memory"),
        ("ch07.q2", memory_attention_with("no sqrt"), "divided by sqrt(d_k)"),
        ("ch07.q2", memory_attention_with("W_in transposed"), "x @ W_in (not W_in^T)"),
        ("ch07.q3", order_masks_with("order as rank"), "not the rank of each position"),
        ("ch07.q3", order_masks_with("polarity"), "perm_mask 1 = may NOT attend"),
        ("ch07.q3", order_masks_with("transposed"), "row i attends to column j"),
        ("ch07.q3", order_masks_with("sees itself"), "not itself"),
        ("ch07.q3", order_masks_with("mapping by position"), "rows follow the order z"),
        ("ch07.q5", earliest_with("one layer"), "each layer reaches one segment further back"),
        ("ch07.q5", earliest_with("t - N mem_len"), "before the segment's start, not before t"),
        ("ch07.q6", segment_term_with("swapped"), "s_+ for a key in the query's segment"),
        ("ch07.q6", segment_term_with("no bias"), "b added to every query"),
        ("ch07.q6", segment_term_with("memory in the query's segment"), "the memory is segment 0"),
        ("ch07.q6", segment_term_with("memory left out"), "M=2"),
        ("ch07.q6", segment_term_with("absolute"), "only same or different counts"),
        ("ch07.q5", earliest_with("start - N mem_len"), "ends inside a segment"),
        ("ch07.q5", earliest_with("start - N mem_len"), "mem_len=3 < L=5"),
    ],
)
def test_a_boundary_mistake_fails_the_case_that_names_it(
    question_id: str, wrong_answer: Callable[..., Any], words: str
) -> None:
    assert_fails_the_case_named(question_id, wrong_answer, words)


#: The notes of the cases that catch one mistake each, by question.
NOTES = {
    "ch07.q4": [ch07.OWN_POSITION, ch07.MEMORY_FIRST, ch07.PADDING_KEYS],
    "ch07.q7": [ch07.IN_SEGMENTS, ch07.SAME_LENGTH],
}


@pytest.mark.parametrize(
    ("question_id", "wrong_answer", "its_notes"),
    [
        ("ch07.q4", two_stream_with("query sees itself"), [ch07.OWN_POSITION, ch07.PADDING_KEYS]),
        ("ch07.q4", two_stream_with("memory blocked"), [ch07.MEMORY_FIRST]),
        ("ch07.q4", two_stream_with("no memory"), [ch07.MEMORY_FIRST]),
        ("ch07.q4", two_stream_with("padding on queries"), [ch07.PADDING_KEYS]),
        ("ch07.q7", measured_reach_with("one call"), [ch07.IN_SEGMENTS]),
        ("ch07.q7", measured_reach_with("no memory"), [ch07.IN_SEGMENTS, ch07.SAME_LENGTH]),
        ("ch07.q7", measured_reach_with("same_length ignored"), [ch07.SAME_LENGTH]),
    ],
)
def test_a_mistake_fails_the_cases_that_name_it_and_no_other_named_case(
    question_id: str, wrong_answer: Callable[..., Any], its_notes: list[str]
) -> None:
    """Its notes are printed (its cases fail); the notes of the other mistakes are not (their
    cases pass); cases that name no mistake may pass or fail."""
    assert_names_only_its_mistake(question_id, wrong_answer, its_notes, NOTES[question_id])


def test_no_two_stream_case_blames_the_query_stream_unless_it_is_the_mistake() -> None:
    """The note on a target's own position is printed only where the query stream is wrong."""
    for mistake in ("memory blocked", "no memory", "padding on queries"):
        _, result = graded("ch07.q4", two_stream_with(mistake))
        failed = [case.description for case in result.cases if not case.passed]
        assert failed
        assert not any(ch07.OWN_POSITION in description for description in failed), mistake


def test_the_content_streams_own_key_off_by_the_memory_is_named() -> None:
    """Opening column i instead of M + i fails exactly the cases that say where the own key
    sits (memory, padding and targets) and passes the others."""
    question = get_question("ch07.q4")
    _, result = graded("ch07.q4", two_stream_with("own key at column i"))
    for case in result.cases:
        assert case.passed == (ch07.OWN_KEY_COLUMN not in case.description), case.description
    assert result.points_earned < question.points


def test_unpadded_two_stream_cases_say_so_for_the_padding_read_the_wrong_way_round() -> None:
    """Reversed padding fails every case; the unpadded ones state that attention_mask is all 1."""
    _, result = graded("ch07.q4", two_stream_with("padding polarity"))
    assert not any(case.passed for case in result.cases)
    for case in cases_of("ch07.q4"):
        if not bool((case.args[1] == 0).any()):
            assert "attention_mask all 1" in case.description


def test_the_measured_reach_is_the_derivation_and_the_same_length_rule() -> None:
    """Without same_length the measurement is question 5's derivation; with it, each layer
    reaches mem_len - 1 positions back from the query: max(0, t - N (mem_len - 1))."""
    derivation = get_question("ch07.q5").reference
    for case in cases_of("ch07.q7"):
        length, segment, mem_len, n_layer, same_length = case.args
        measured = get_question("ch07.q7").expected(case)
        if same_length:
            expected = (torch.arange(length) - n_layer * (mem_len - 1)).clamp(min=0)
        else:
            expected = derivation(length, segment, mem_len, n_layer)
        assert torch.equal(measured, expected), case.description


def test_feedback_prints_infinities_as_inf(capsys: pytest.CaptureFixture[str]) -> None:
    check("ch07.q1", shift_with("no mask"))
    report = capsys.readouterr().out
    assert "largest absolute difference inf" in report
    assert "e+308" not in report
