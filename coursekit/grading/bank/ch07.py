"""Chapter 7, Transformer-XL and XLNet: the graded questions of
``exercises/07-transformer-xl-xlnet.ipynb``.

Questions 1, 3 and 4 transcribe code the chapter prints: the relative shift with the causal mask
over the memory (graded against ``coursekit.models.relative_shift`` and the mask of
``coursekit.models.transformer_xl.layers``), XLNet's ``perm_mask`` and ``target_mapping`` of a
factorization order (``coursekit.models.xlnet.permutation``), and the masks of XLNet's two
streams with padding and memory (``coursekit.models.xlnet.inputs``). Question 2 writes one
segment of attention over a memory read through the stop-gradient, and its gradient, from the
chapter's equations (it prints ``coursekit.models.transformer_xl.memory``, not the step). Question 5
derives how far back segment-level recurrence lets a token see, question 6 writes XLNet's
relative segment term, which the chapter only names, and question 7 is an experiment: the same
reach measured by perturbing ``TransfoXLModel``'s input, with and without ``same_length``
(where question 5's derivation no longer holds). Tensors are float64 or integer.

A case built to catch one mistake says so in its description (question 2's orientation of
``W_in``, question 4's and 7's notes); the bank's tests check that each mistake fails the cases
that name it and passes the cases that name another.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

import torch
from torch import Tensor

from coursekit.grading.bank.draws import float64_normal, torch_generator
from coursekit.grading.questions import Case, Question, register
from coursekit.models.transformer_xl.layers import transformer_xl_mask
from coursekit.models.transformer_xl.memory import append_to_memory, extended_context
from coursekit.models.transformer_xl.model import TransfoXLModel
from coursekit.models.transformer_xl.relative_attention import relative_score_terms, relative_scores
from coursekit.models.transformer_xl.relative_position import relative_shift
from coursekit.models.xlnet.attention import TwoStreamRelativeAttention
from coursekit.models.xlnet.inputs import (
    content_stream_blocked,
    query_stream_blocked,
    segment_differences,
)
from coursekit.models.xlnet.permutation import permutation_masks, sample_permutation

# ch07.q1: the relative shift, with the future masked ------------------------------------------


def _causal_shift_reference(table: Tensor, memory_length: int) -> Tensor:
    """``scores[..., i, j] = table[..., i, Q - 1 - i + j]`` where key j is not in the future of
    query i (``j <= i + M``) and -inf where it is: ``coursekit.models.relative_shift`` and the
    causal mask of ``coursekit.models.transformer_xl.layers.transformer_xl_mask``.
    """
    queries, keys = table.shape[-2], table.shape[-1]
    future = transformer_xl_mask(queries, memory_length, device=table.device)
    return relative_shift(table, keys).masked_fill(future, -math.inf)


#: (B, heads, Q, M, what the case exercises)
SHIFT_SETTINGS = [
    (
        1,
        1,
        4,
        0,
        "no memory (M=0): the columns hold the distances K-1 down to 0, so key j of "
        "query i is column Q-1-i+j",
    ),
    (
        2,
        2,
        3,
        5,
        "M=5 keys of memory before Q=3 queries: query i sees keys j <= i + M, the "
        "memory included, its own key included",
    ),
    (1, 3, 5, 2, "M=2 < Q=5"),
    (2, 1, 1, 6, "one query (a generation step) after M=6: it sees every key"),
    (1, 2, 6, 6, "M = Q = 6: a memory as long as the segment"),
    (3, 2, 4, 3, "a batch of 3, 2 heads, M=3"),
]


def _causal_shift_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    for batch, heads, queries, memory, about in SHIFT_SETTINGS:
        table = float64_normal(generator, batch, heads, queries, memory + queries)
        shape = f"[{batch}, {heads}, {queries}, {memory + queries}]"
        yield Case((table, memory), description=f"{about}; table {shape}")


register(
    Question(
        id="ch07.q1",
        title="The relative shift, with the future masked",
        points=2,
        answer_name="shift_and_mask",
        reference=_causal_shift_reference,
        make_cases=_causal_shift_cases,
        forbidden=(relative_shift, relative_scores, relative_score_terms, transformer_xl_mask),
    )
)


# ch07.q2: one segment of attention over a memory, through the stop-gradient ------------------


def _memory_step_reference(
    previous_inputs: Tensor,
    inputs: Tensor,
    W_in: Tensor,
    W_q: Tensor,
    W_k: Tensor,
    W_v: Tensor,
    mem_len: int,
) -> tuple[Tensor, Tensor]:
    """The attention output of the new segment and the gradient of ``ell = 1/2 sum(out^2)`` with
    respect to ``W_in``, with ``h = tanh(x W_in)``, memory = the ``mem_len`` most recent states of
    the previous segment through SG (``coursekit.models.transformer_xl.memory.append_to_memory``),
    ``h~ = [SG(memory) o h]`` (``extended_context``), ``q = h W_q``, ``k = h~ W_k``, ``v = h~ W_v``
    and ``out = softmax(q k^T / sqrt(d_k) + causal mask) v``, query i seeing the keys ``j <= i +
    M`` (``transformer_xl_mask``).
    """
    with torch.enable_grad():
        W_in = W_in.detach().requires_grad_(True)  # noqa: N806 - the book's names
        memory = append_to_memory(None, torch.tanh(previous_inputs @ W_in), mem_len)
        hidden = torch.tanh(inputs @ W_in)
        context = extended_context(memory, hidden)
        scores = (hidden @ W_q) @ (context @ W_k).transpose(-2, -1) / math.sqrt(W_k.shape[-1])
        future = transformer_xl_mask(hidden.shape[1], memory.shape[1])
        output = torch.softmax(scores.masked_fill(future, -math.inf), dim=-1) @ (context @ W_v)
        (gradient,) = torch.autograd.grad(0.5 * output.pow(2).sum(), W_in)
    return output.detach(), gradient


NO_GRADIENT = "grad_W_in must not flow into the memory (SG)"
#: One query and no memory: attention is one key of weight 1, and only h = tanh(x W_in) is left.
W_IN_ORIENTATION = "h = tanh(x @ W_in), W_in is applied as x @ W_in (not W_in^T)"
#: (B, previous length, Q, d, d_k, mem_len, what the case exercises)
MEMORY_SETTINGS = [
    (
        2,
        6,
        4,
        3,
        2,
        4,
        f"mem_len=4 < 6: the 4 MOST RECENT states of the previous segment; {NO_GRADIENT}",
    ),
    (1, 6, 3, 4, 3, 2, "mem_len=2 < 6: the 2 MOST RECENT states; query i sees the whole memory"),
    (2, 3, 5, 3, 3, 8, f"mem_len=8 > 3: all 3 previous states; {NO_GRADIENT}"),
    (1, 7, 1, 2, 2, 5, "one query after the 5 MOST RECENT of 7 previous states"),
    (3, 5, 4, 4, 2, 3, "mem_len=3 of 5 previous states, a batch of 3; scores divided by sqrt(d_k)"),
    (
        2,
        5,
        1,
        3,
        4,
        0,
        f"mem_len=0, an empty memory, and one query, so out = h W_v: {W_IN_ORIENTATION}",
    ),
]


def _memory_step_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    for batch, previous, queries, d, d_k, mem_len, about in MEMORY_SETTINGS:
        yield Case(
            (
                float64_normal(generator, batch, previous, d),
                float64_normal(generator, batch, queries, d),
                float64_normal(generator, d, d),
                float64_normal(generator, d, d_k),
                float64_normal(generator, d, d_k),
                float64_normal(generator, d, d_k),
                mem_len,
            ),
            description=about,
        )


register(
    Question(
        id="ch07.q2",
        title="Attention over a memory, through the stop-gradient",
        points=2,
        answer_name="memory_attention",
        reference=_memory_step_reference,
        make_cases=_memory_step_cases,
        forbidden=(append_to_memory, extended_context, transformer_xl_mask),
        output_names=("output", "grad_W_in"),
    )
)


# ch07.q3: perm_mask and target_mapping of a factorization order ------------------------------


def _order_masks_reference(order: Tensor, cut: int) -> tuple[Tensor, Tensor]:
    """``perm_mask[b, i, j] = 1`` where i may not attend to j (j a target that i does not come
    after in the order), and ``target_mapping[b, p, z_{K+p}] = 1``, by
    ``coursekit.models.xlnet.permutation.permutation_masks`` in float64.
    """
    prediction = permutation_masks(order, cut, dtype=torch.float64)
    return prediction.perm_mask, prediction.target_mapping


#: The sources' four orders that predict x3 (positions counted from 0): [x3, x2, x4, x1],
#: [x2, x4, x3, x1], [x4, x3, x1, x2], [x1, x4, x2, x3].
SOURCE_ORDERS = [[2, 1, 3, 0], [1, 3, 2, 0], [3, 2, 0, 1], [0, 3, 1, 2]]


def _order_masks_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    yield Case(
        (torch.tensor(SOURCE_ORDERS), 1),
        description="the sources' four orders of x1..x4, K=1: an order is a list of POSITIONS "
        "(z_1, z_2, ...), not the rank of each position",
    )
    yield Case(
        (torch.arange(6).unsqueeze(0), 1),
        description="the identity order, K=1: a causal language model (a target sees the "
        "tokens before it, not itself)",
    )
    yield Case(
        (torch.arange(5).flip(0).unsqueeze(0), 2),
        description="the reversed order, K=2: a right-to-left language model; perm_mask 1 = may "
        "NOT attend",
    )
    for batch, length, cut, about in [
        (2, 7, 3, "K=3: the context sees itself, not the targets; row i attends to column j"),
        (3, 6, 5, "K=T-1: a single target sees every other token"),
        (2, 8, 4, "two random orders of 8, K=4; target_mapping's rows follow the order z"),
    ]:
        order = sample_permutation(batch, length, cut, generator=generator).order
        yield Case((order, cut), description=f"{about}; B={batch}, T={length}")


register(
    Question(
        id="ch07.q3",
        title="XLNet's perm_mask and target_mapping of an order",
        points=2,
        answer_name="masks_from_order",
        reference=_order_masks_reference,
        make_cases=_order_masks_cases,
        forbidden=(permutation_masks, sample_permutation),
        output_names=("perm_mask", "target_mapping"),
    )
)


# ch07.q4: the masks of the two streams, with padding and memory -------------------------------


def _two_stream_reference(
    perm_mask: Tensor, attention_mask: Tensor, memory_length: int
) -> tuple[Tensor, Tensor]:
    """``(content_blocked, query_blocked)``, each ``[B, Q, M + Q]`` with 1 where attention is not
    allowed: the query stream obeys ``perm_mask`` and the padding of ``attention_mask`` (0 =
    padding) and sees the whole memory; the content stream is the same with its own position
    opened. By ``coursekit.models.xlnet.inputs`` (``query_stream_blocked``,
    ``content_stream_blocked``).
    """
    query = query_stream_blocked(attention_mask, perm_mask, memory_length, torch.float64)
    assert query is not None  # both masks are given
    content = content_stream_blocked(query, memory_length)
    assert content is not None
    return content.squeeze(1), query.squeeze(1)


#: The notes of the cases that catch one mistake each (the bank's tests use them).
OWN_POSITION = (
    "a target's query stream is blocked from its own position; its content stream sees it"
)
MEMORY_FIRST = "the M memory columns come first, and both streams see every one of them"
PADDING_KEYS = (
    "a padding position is blocked as a key (its column) for every query of both streams; "
    "as a query, it keeps only its content stream's own position"
)
OWN_KEY_COLUMN = "the content stream's own key sits at column M + i, after the memory"
#: (lengths of the sequences (T: no padding), T, K (T: no target), M, what the case exercises)
TWO_STREAM_SETTINGS = [
    ([5], 5, 2, 0, f"no padding (attention_mask all 1), no memory, K=2: {OWN_POSITION}"),
    ([6, 6], 6, 6, 2, f"no padding (attention_mask all 1), K=T: no target; {MEMORY_FIRST}"),
    ([4], 4, 4, 5, f"no padding (attention_mask all 1), K=T: no target; {MEMORY_FIRST}"),
    ([5, 3], 5, 2, 0, f"padded batch, no memory: {PADDING_KEYS}"),
    ([6, 4, 2], 6, 3, 0, f"padded batch, no memory: {PADDING_KEYS}"),
    ([4], 6, 2, 0, f"one sequence padded from position 4, no memory: {PADDING_KEYS}"),
    ([7, 5], 7, 4, 0, f"padded batch, no memory, K=4: {PADDING_KEYS}"),
    ([6, 4, 6], 6, 3, 2, f"padded batch with M=2 memory columns: {OWN_KEY_COLUMN}"),
    (
        [5, 2, 4],
        5,
        1,
        3,
        f"padded batch with M=3 memory columns, K=1 (many targets): {OWN_KEY_COLUMN}",
    ),
    ([7, 3], 7, 4, 1, f"padded batch with M=1 memory column: {OWN_KEY_COLUMN}"),
]


def _two_stream_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    for lengths, length, cut, memory, about in TWO_STREAM_SETTINGS:
        if cut == length:  # every token is context: nothing hidden by the order
            perm_mask = torch.zeros(len(lengths), length, length, dtype=torch.float64)
        else:
            perm_mask = sample_permutation(
                len(lengths), length, cut, generator=generator, dtype=torch.float64
            ).perm_mask
        positions = torch.arange(length)
        attention_mask = (positions < torch.tensor(lengths).unsqueeze(1)).to(torch.float64)
        yield Case(
            (perm_mask, attention_mask, memory),
            description=f"{about}; lengths {lengths}, T={length}, K={cut}",
        )


register(
    Question(
        id="ch07.q4",
        title="The masks of XLNet's two streams",
        points=2,
        answer_name="two_stream_masks",
        reference=_two_stream_reference,
        make_cases=_two_stream_cases,
        forbidden=(query_stream_blocked, content_stream_blocked),
        output_names=("content_blocked", "query_blocked"),
    )
)


# ch07.q5: how far back a token sees with segment-level recurrence ----------------------------


def _earliest_visible_reference(
    length: int, segment_length: int, mem_len: int, n_layer: int
) -> Tensor:
    """For each position t of a text read in segments of ``segment_length`` by an ``n_layer``
    Transformer-XL with ``mem_len`` states of memory per layer, the earliest position whose
    token the top layer's output at t depends on, a LongTensor ``[length]``.

    A layer's query at position p sees the keys of its own segment up to p and the memory, the
    ``mem_len`` positions before the segment's start ``S(p) = (p // L) * L``; the earliest key is
    ``max(0, S(p) - mem_len)``, and what that key's state depends on goes back further through
    the layer below. So ``e_0(p) = p`` and ``e_n(p) = e_{n-1}(max(0, S(p) - mem_len))``: the
    dependency grows with the depth, O(N x L) for ``mem_len = L``.
    """
    earliest = []
    for position in range(length):
        reach = position
        for _ in range(n_layer):
            reach = max(0, (reach // segment_length) * segment_length - mem_len)
        earliest.append(reach)
    return torch.tensor(earliest)


#: (length, L, mem_len, N, what the case exercises)
EARLIEST_SETTINGS = [
    (24, 4, 4, 2, "L=4, mem_len=4, N=2: each layer reaches one segment further back"),
    (
        30,
        5,
        3,
        2,
        "mem_len=3 < L=5: a layer's memory holds part of the previous segment and "
        "starts mem_len before the segment's start, not before t",
    ),
    (40, 4, 6, 3, "mem_len=6, L=4: the memory ends inside a segment, whose start counts next"),
    (20, 5, 0, 3, "mem_len=0: no memory, every token sees only its own segment"),
    (32, 8, 8, 1, "one layer: the memory and the segment, nothing more"),
    (100, 5, 12, 4, "four layers, mem_len=12, L=5"),
    (36, 6, 6, 3, "three layers, mem_len = L = 6: N x L = 18 positions before the segment"),
    (12, 12, 12, 3, "a single segment: everything from position 0"),
]


def _earliest_visible_cases(rng: random.Random) -> Iterator[Case]:
    for length, segment_length, mem_len, n_layer, about in EARLIEST_SETTINGS:
        yield Case((length, segment_length, mem_len, n_layer), description=about)


register(
    Question(
        id="ch07.q5",
        title="How far back segment-level recurrence sees",
        points=1,
        answer_name="earliest_visible",
        reference=_earliest_visible_reference,
        make_cases=_earliest_visible_cases,
    )
)


# ch07.q6: XLNet's relative segment term ------------------------------------------------------


def _segment_term_reference(
    queries: Tensor,
    token_type_ids: Tensor,
    memory_length: int,
    segment_bias: Tensor,
    same_segment: Tensor,
    other_segment: Tensor,
) -> Tensor:
    """``(q_i + b)^T s_ij`` ``[B, heads, Q, M + Q]``, with ``s_ij = s_+`` (``same_segment``)
    when query i and key j lie in the same segment and ``s_-`` (``other_segment``) otherwise,
    the memory counting as segment 0: ``TwoStreamRelativeAttention.segment_scores`` of
    ``coursekit.models.xlnet.attention`` holding b, s_+ and s_-, on
    ``coursekit.models.xlnet.inputs.segment_differences``.
    """
    heads, head_size = segment_bias.shape
    with torch.random.fork_rng(devices=[]):  # its initial weights, overwritten, draw nothing
        attention = TwoStreamRelativeAttention(heads * head_size, heads).double()
    with torch.no_grad():
        attention.segment_bias.copy_(segment_bias)
        attention.segment_embedding.copy_(torch.stack([same_segment, other_segment]))
        different = segment_differences(token_type_ids, memory_length)
        assert different is not None  # token_type_ids are given
        return attention.segment_scores(queries, different)


#: (segment ids of each sequence, heads, d_head, M, what the case exercises)
SEGMENT_SETTINGS = [
    ([[0, 0, 0, 1, 1]], 1, 3, 0, "two segments, no memory: s_+ for a key in the query's segment"),
    ([[0, 0, 1, 1], [0, 1, 1, 1]], 2, 2, 2, "a batch of two, 2 heads, M=2; b added to every query"),
    ([[1, 1, 1, 0, 0]], 1, 4, 0, "segment ids 1 then 0: only same or different counts"),
    ([[0, 0, 1, 1, 1]], 2, 3, 3, "M=3: the memory is segment 0, other than the queries of 1"),
    ([[0, 1, 2, 2, 1, 0]], 1, 2, 2, "three segments 0, 1, 2 and M=2"),
    ([[1, 1, 1], [0, 0, 0]], 2, 2, 2, "one segment per sequence; the memory differs from 1"),
]


def _segment_term_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    for segments, heads, head_size, memory, about in SEGMENT_SETTINGS:
        token_type_ids = torch.tensor(segments)
        batch, length = token_type_ids.shape
        yield Case(
            (
                float64_normal(generator, batch, heads, length, head_size),
                token_type_ids,
                memory,
                float64_normal(generator, heads, head_size),
                float64_normal(generator, heads, head_size),
                float64_normal(generator, heads, head_size),
            ),
            description=f"{about}; segments {segments}",
        )


register(
    Question(
        id="ch07.q6",
        title="XLNet's relative segment term",
        points=1,
        answer_name="segment_term",
        reference=_segment_term_reference,
        make_cases=_segment_term_cases,
        forbidden=(TwoStreamRelativeAttention.segment_scores, segment_differences),
    )
)


# ch07.q7: the reach, measured on the model ---------------------------------------------------


def _outputs_in_segments(model: TransfoXLModel, text: Tensor, segment_length: int) -> Tensor:
    """The top layer's states ``[1, T, d]`` of ``text [1, T]`` read segment by segment, each
    segment after the memories of the ones before."""
    states, mems = [], None
    for tokens in text.split(segment_length, dim=1):
        hidden, mems = model(tokens, mems)
        states.append(hidden)
    return torch.cat(states, dim=1)


def _measured_reach_reference(
    length: int, segment_length: int, mem_len: int, n_layer: int, same_length: bool
) -> Tensor:
    """For each position t, the earliest position s whose token changes the top layer's output
    at t, a LongTensor ``[length]``, measured on a float64 ``TransfoXLModel`` (seed 0, no
    dropout) that reads a random text in segments of ``segment_length`` with its memories:
    change token s, read the text again, see which outputs move. Without ``same_length`` it is
    question 5's derivation; with it each query sees only its ``mem_len`` most recent keys
    (itself included), so a layer reaches ``mem_len - 1`` positions back from the query, not from
    its segment's start.
    """
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = TransfoXLModel(
            11, 8, 2, 4, 16, n_layer, mem_len, same_length=same_length, dropout=0.0
        ).double()
        text = torch.randint(1, 11, (1, length))
    earliest = torch.arange(length)
    with torch.no_grad():
        original = _outputs_in_segments(model.eval(), text, segment_length)
        for source in range(length - 1, -1, -1):  # the last assignment is the earliest source
            changed = text.clone()
            changed[0, source] = 0
            moved = (_outputs_in_segments(model, changed, segment_length) != original).any(-1)
            earliest[moved[0]] = source
    return earliest


#: The notes of the cases that catch one mistake each (the bank's tests use them).
IN_SEGMENTS = "read in segments of L, each after the memories of the segments before it"
SAME_LENGTH = (
    "same_length=True: each query sees its mem_len most recent keys (its own key included), no more"
)
#: (length, L, mem_len, N, same_length, what the case exercises)
MEASURED_SETTINGS = [
    (20, 4, 4, 2, False, f"L=4, mem_len=4, N=2: {IN_SEGMENTS}"),
    (24, 6, 3, 2, False, f"mem_len=3 < L=6, N=2: {IN_SEGMENTS}"),
    (30, 5, 5, 3, False, f"L=5, mem_len=5, N=3: {IN_SEGMENTS}"),
    (24, 4, 2, 2, False, f"mem_len=2 < L=4, N=2: {IN_SEGMENTS}"),
    (20, 4, 4, 2, True, f"L=4, mem_len=4, N=2; {SAME_LENGTH}"),
    (24, 6, 6, 2, True, f"L=6, mem_len=6, N=2; {SAME_LENGTH}"),
    (
        32,
        4,
        6,
        3,
        True,
        f"L=4, mem_len=6, N=3; {SAME_LENGTH}; some outputs move by less than 1e-4: compare them "
        "exactly, in float64",
    ),
]


def _measured_reach_cases(rng: random.Random) -> Iterator[Case]:
    for length, segment_length, mem_len, n_layer, same_length, about in MEASURED_SETTINGS:
        yield Case((length, segment_length, mem_len, n_layer, same_length), description=about)


register(
    Question(
        id="ch07.q7",
        title="The reach, measured on the model",
        points=2,
        answer_name="measured_reach",
        reference=_measured_reach_reference,
        make_cases=_measured_reach_cases,
    )
)
