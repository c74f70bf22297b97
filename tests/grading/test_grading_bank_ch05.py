"""Chapter 5's questions: the references agree with torch (``F.scaled_dot_product_attention``,
``nn.MultiheadAttention``), with attention recomputed key by key over the window, with the
encoding's defining property in both layouts and with the entropy written out; the solutions
score full marks; each classic mistake (a mask read the wrong way round or applied after the
softmax, sqrt(d_v), sqrt(E) or no scale, heads split in the wrong order, a one-sided or too
narrow window, the interleaved layout, log base 2) loses most of the points, and the report
printed under a mistake names it (also (2i + 1)/d for the cosine, the heads' layout, p ln p on
a weight of exactly 0, and where a NaN comes from: 0 * log 0 or a softmax over the wrong axis)."""

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
    cases_of,
    graded,
    notebook_functions,
)
from torch import Tensor

from coursekit.grading import get_question
from coursekit.grading.bank.ch05 import (
    LARGE_K,
    NO_PADDING_MASK,
    SCALE_NOTE,
    SPLIT_NOTE,
    WINDOW_EDGE,
    ZERO_WEIGHTS,
)
from coursekit.grading.report import format_report
from coursekit.models import sinusoidal_positional_encoding

CHAPTER_5 = [f"ch05.q{number}" for number in range(1, 7)]
INF = math.inf


def test_the_solutions_score_full_marks() -> None:
    """(Registration, case data and stubs: test_grading_banks.py checks every chapter.)"""
    solutions = notebook_functions(ROOT / "solutions/05-transformers.ipynb")
    for question_id in CHAPTER_5:
        assert_full_marks(question_id, solutions)


# The references equal torch and the defining properties ---------------------------------------


def test_masked_attention_equals_torchs_sdpa_where_a_query_has_a_key() -> None:
    """torch's SDPA gives the outputs; the weights are those that multiply V (softmax rows that
    sum to 1 over the allowed keys, 0 elsewhere); a query with no allowed key gets zeros."""
    question = get_question("ch05.q1")
    for case in cases_of("ch05.q1"):
        query, key, value, mask = case.args
        output, weights = question.expected(case)
        torch.testing.assert_close(output, F.scaled_dot_product_attention(*case.args))
        torch.testing.assert_close(weights @ value, output)
        allowed = torch.ones_like(weights, dtype=torch.bool) if mask is None else mask
        allowed = allowed.expand_as(weights)
        assert bool((weights[~allowed] == 0).all())
        has_key = allowed.any(dim=-1)
        sums = weights.sum(dim=-1)
        torch.testing.assert_close(sums[has_key], torch.ones_like(sums[has_key]))
        assert bool((sums[~has_key] == 0).all())


def test_the_masked_attention_cases_are_mostly_masked_with_a_query_without_keys() -> None:
    masks = [case.args[3] for case in cases_of("ch05.q1")]
    masked = [mask for mask in masks if mask is not None and not bool(mask.all())]
    assert len(masked) >= 2 * (len(masks) - len(masked)) + 1
    assert any(bool((~mask.any(dim=-1)).any()) for mask in masked)


def test_the_encoding_is_the_papers_formula_in_python_floats() -> None:
    question = get_question("ch05.q2")
    for case in cases_of("ch05.q2"):
        positions, d_model, offset = case.args
        encoding = question.expected(case)
        assert encoding.dtype == torch.float64
        for row, pos in enumerate(range(offset, offset + positions)):
            for i in range(d_model // 2):
                angle = pos / 10000 ** (2 * i / d_model)
                assert encoding[row, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-12)
                assert encoding[row, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-12)


def test_multi_head_attention_equals_torchs() -> None:
    question = get_question("ch05.q3")
    for case in cases_of("ch05.q3"):
        x, w_in, b_in, w_out, b_out, heads, mask = case.args
        torch_module = torch.nn.MultiheadAttention(x.shape[-1], heads, batch_first=True).double()
        with torch.no_grad():
            torch_module.in_proj_weight.copy_(w_in)
            torch_module.in_proj_bias.copy_(b_in)
            torch_module.out_proj.weight.copy_(w_out)
            torch_module.out_proj.bias.copy_(b_out)
            expected = torch_module(x, x, x, mask, average_attn_weights=False)
        for got, want in zip(question.expected(case), expected, strict=True):
            torch.testing.assert_close(got, want)


def test_local_attention_is_each_querys_softmax_over_its_window_of_real_keys() -> None:
    """Query i of sequence b, recomputed alone: the softmax over the real keys j with
    |i - j| <= r, or zeros when there is none."""
    question = get_question("ch05.q4")
    for case in cases_of("ch05.q4"):
        query, key, value, radius, lengths = case.args
        output, weights = question.expected(case)
        for b in range(query.shape[0]):
            for i in range(query.shape[1]):
                keys = [j for j in range(int(lengths[b])) if abs(i - j) <= radius]
                if not keys:
                    assert bool((weights[b, i] == 0).all() and (output[b, i] == 0).all())
                    continue
                scores = key[b, keys] @ query[b, i] / math.sqrt(query.shape[-1])
                p = torch.softmax(scores, dim=0)
                torch.testing.assert_close(weights[b, i, keys], p)
                torch.testing.assert_close(output[b, i], p @ value[b, keys])
                assert float(weights[b, i].sum()) == pytest.approx(1.0)


def test_the_local_attention_cases_are_mostly_padded_with_a_query_without_keys() -> None:
    cases = cases_of("ch05.q4")
    padded = [case for case in cases if int(case.args[4].min()) < case.args[0].shape[1]]
    assert len(padded) >= len(cases) - 2
    question = get_question("ch05.q4")
    assert any(bool((question.expected(case)[1].sum(-1) == 0).any()) for case in cases)


def test_the_shift_matrix_moves_the_concatenated_encoding_by_k_positions() -> None:
    question = get_question("ch05.q5")
    for case in cases_of("ch05.q5"):
        k, d_model = case.args
        shift = question.expected(case)
        start = max(0, -k)
        rows, shifted = (
            sinusoidal_positional_encoding(
                60, d_model, layout="concatenated", offset=offset, dtype=torch.float64
            )
            for offset in (start, start + k)
        )
        torch.testing.assert_close(rows @ shift.T, shifted)


def test_the_entropies_are_the_formula_written_out() -> None:
    question = get_question("ch05.q6")
    for case in cases_of("ch05.q6"):
        queries, keys = case.args
        scores = (keys @ queries.unsqueeze(-1)).squeeze(-1)
        expected = []
        for rows in (scores / math.sqrt(queries.shape[-1]), scores):
            entropies = []
            for row in rows:
                p = torch.softmax(row, dim=0).tolist()
                entropies.append(-sum(x * math.log(x) for x in p if x > 0))
            expected.append(sum(entropies) / len(entropies))
        got = question.expected(case)
        assert got.dtype == torch.float64 and got.shape == (2,)
        assert got.tolist() == pytest.approx(expected, rel=1e-10)


def test_without_the_scale_attention_becomes_one_hot_as_d_k_grows() -> None:
    """The measurement the exercise is about: the scaled entropies stay within 10 % of each
    other across d_k = 1 .. 1024, the unscaled ones fall every time d_k grows, to below a tenth
    of ln 8."""
    cases = [case for case in cases_of("ch05.q6") if "entries N(0, 1)" in case.description]
    results = [get_question("ch05.q6").expected(case) for case in cases]
    scaled = [float(result[0]) for result in results]
    unscaled = [float(result[1]) for result in results]
    assert max(scaled) < 1.1 * min(scaled)
    assert all(later < earlier for earlier, later in zip(unscaled, unscaled[1:], strict=False))
    assert unscaled[-1] < 0.1 * math.log(8)


# Classic mistakes lose most of the points -----------------------------------------------------


def masked_attention_with(mistake: str):
    """Masked attention with one mistake: True read as 'masked', the mask applied after the
    softmax, no scale, sqrt(d_v) or d_k as the scale, -1e9 for -inf (a row without keys
    becomes uniform), or the softmax over the queries (a padded key's column of -inf is NaN)."""

    def answer(query, key, value, mask):
        d_k, d_v = query.shape[-1], value.shape[-1]
        scales = {"no scale": 1.0, "d_k": 1 / d_k, "sqrt(d_v)": 1 / math.sqrt(d_v)}
        scale = scales.get(mistake, 1 / math.sqrt(d_k))
        scores = query @ key.transpose(-2, -1) * scale
        if mask is None:
            weights = torch.softmax(scores, dim=-1)
        elif mistake == "True means masked":
            weights = torch.softmax(scores.masked_fill(mask, -INF), dim=-1).nan_to_num()
        elif mistake == "mask after softmax":
            weights = torch.softmax(scores, dim=-1) * mask
        elif mistake == "-1e9":
            weights = torch.softmax(scores.masked_fill(~mask, -1e9), dim=-1)
        elif mistake == "softmax over the queries":
            weights = torch.softmax(scores.masked_fill(~mask, -INF), dim=-2)
        else:
            weights = torch.softmax(scores.masked_fill(~mask, -INF), dim=-1).nan_to_num()
        return weights @ value, weights

    return answer


def encoding_with(mistake: str):
    """The encoding with one mistake: exponent i/d for 2i/d, sines and cosines as two halves,
    sin and cos swapped, the offset ignored, or float32 angles."""

    def answer(num_positions, d_model, offset):
        dtype = torch.float32 if mistake == "float32" else torch.float64
        first = 0 if mistake == "offset ignored" else offset
        positions = torch.arange(first, first + num_positions, dtype=dtype).unsqueeze(1)
        i = torch.arange(d_model // 2, dtype=dtype)
        exponent = i / d_model if mistake == "i/d" else 2 * i / d_model
        angles = positions / 10000**exponent
        sines, cosines = torch.sin(angles), torch.cos(angles)
        if mistake == "(2i + 1)/d for the cosine":
            cosines = torch.cos(positions / 10000 ** ((2 * i + 1) / d_model))
        if mistake == "sin and cos swapped":
            sines, cosines = cosines, sines
        if mistake == "halves":
            return torch.cat([sines, cosines], dim=-1).double()
        return torch.stack([sines, cosines], dim=-1).flatten(1).double()

    return answer


def multi_head_with(mistake: str):
    """Multi-head attention with one mistake: heads split by view(B, h, T, d_k), the scale
    sqrt(E), the mask read as True = attend or ignored, no bias, or the heads merged without
    transposing back."""

    def answer(x, w_in, b_in, w_out, b_out, heads, mask):
        batch, steps, embed_dim = x.shape
        d_k = embed_dim // heads
        bias = torch.zeros_like(b_in) if mistake == "no bias" else b_in
        q, k, v = (x @ w_in.T + bias).chunk(3, dim=-1)
        if mistake == "view(B, h, T, d_k)":
            q, k, v = (t.reshape(batch, heads, steps, d_k) for t in (q, k, v))
        else:
            q, k, v = (t.view(batch, steps, heads, d_k).transpose(1, 2) for t in (q, k, v))
        scale = math.sqrt(embed_dim if mistake == "sqrt(E)" else d_k)
        scores = q @ k.transpose(-2, -1) / scale
        blocked = ~mask if mistake == "True means attend" else mask
        if mistake == "mask ignored":
            blocked = torch.zeros_like(mask)
        weights = torch.softmax(scores.masked_fill(blocked[:, None, None, :], -INF), dim=-1)
        weights = weights.nan_to_num()
        heads_out = weights @ v
        if mistake == "merged without transpose":
            merged = heads_out.reshape(batch, steps, embed_dim)
        else:
            merged = heads_out.transpose(1, 2).reshape(batch, steps, embed_dim)
        return merged @ w_out.T + b_out, weights

    return answer


def local_attention_with(mistake: str):
    """Local attention with one mistake: a window |i - j| < r, a one-sided (causal) window,
    padding ignored, no scale, or sqrt(d_v) as the scale."""

    def answer(query, key, value, radius, lengths):
        positions = torch.arange(query.shape[1])
        distance = positions[:, None] - positions[None, :]
        window = {
            "|i - j| < r": distance.abs() < radius,
            "one-sided": (distance >= 0) & (distance <= radius),
        }.get(mistake, distance.abs() <= radius)
        real = positions[None, :] < lengths[:, None]
        if mistake == "padding ignored":
            real = torch.ones_like(real)
        allowed = window & real[:, None, :]
        scale = {"no scale": 1.0, "sqrt(d_v)": 1 / math.sqrt(value.shape[-1])}.get(
            mistake, 1 / math.sqrt(query.shape[-1])
        )
        scores = (query @ key.transpose(1, 2) * scale).masked_fill(~allowed, -INF)
        weights = torch.softmax(scores, dim=-1).nan_to_num()
        return weights @ value, weights

    return answer


def shift_matrix_with(mistake: str):
    """The concatenated shift matrix with one mistake: the rotation transposed (sin with the
    wrong sign), the frequencies 10000^(i/d), the interleaved layout of the chapter, or float32
    angles."""

    def answer(k, d_model):
        dtype = torch.float32 if mistake == "float32" else torch.float64
        i = torch.arange(d_model // 2, dtype=dtype)
        angles = k / 10000 ** ((i if mistake == "i/d" else 2 * i) / d_model)
        cos, sin = torch.cos(angles).double(), torch.sin(angles).double()
        if mistake == "transposed":
            sin = -sin
        shift = torch.zeros(d_model, d_model, dtype=torch.float64)
        half = d_model // 2
        for j in range(half):
            s, c = (2 * j, 2 * j + 1) if mistake == "interleaved" else (j, half + j)
            shift[s, s], shift[s, c], shift[c, s], shift[c, c] = cos[j], sin[j], -sin[j], cos[j]
        return shift

    return answer


def entropies_with(mistake: str):
    """The entropy measurement with one mistake: log base 2 (bits), the scale d_k, the
    entropies summed over the queries, the largest weight instead of the entropy, or
    p ln p written out, which gives 0 * -inf = NaN for a weight that underflows to 0."""

    def mean_entropy(scores: Tensor) -> Tensor:
        p = torch.softmax(scores, dim=-1)
        if mistake == "largest weight":
            return p.max(dim=-1).values.mean()
        if mistake == "p ln p":
            entropy = -(p * p.log()).sum(dim=-1)
        else:
            entropy = -torch.xlogy(p, p).sum(dim=-1)
        if mistake == "bits":
            entropy = entropy / math.log(2)
        return entropy.sum() if mistake == "summed" else entropy.mean()

    def answer(queries, keys):
        scores = (keys @ queries.unsqueeze(-1)).squeeze(-1)
        d_k = queries.shape[-1]
        scale = d_k if mistake == "scale d_k" else math.sqrt(d_k)
        return torch.stack([mean_entropy(scores / scale), mean_entropy(scores)])

    return answer


def entropies_as_floats(queries, keys):
    """The right numbers as a tuple of two 0-d tensors, not the [2] tensor asked for."""
    result = entropies_with("none")(queries, keys)
    return result[0], result[1]


@pytest.mark.parametrize(
    ("question_id", "wrong_answer", "at_most"),
    [
        ("ch05.q1", masked_attention_with("True means masked"), 0.15),
        ("ch05.q1", masked_attention_with("mask after softmax"), 0.15),
        ("ch05.q1", masked_attention_with("no scale"), 0.15),
        ("ch05.q1", masked_attention_with("sqrt(d_v)"), 0.4),
        ("ch05.q1", masked_attention_with("d_k"), 0.15),
        ("ch05.q2", encoding_with("i/d"), 0.15),
        ("ch05.q2", encoding_with("halves"), 0.15),
        ("ch05.q2", encoding_with("sin and cos swapped"), 0.0),
        ("ch05.q3", multi_head_with("view(B, h, T, d_k)"), 0.15),
        ("ch05.q3", multi_head_with("sqrt(E)"), 0.15),
        ("ch05.q3", multi_head_with("True means attend"), 0.0),
        ("ch05.q3", multi_head_with("no bias"), 0.0),
        ("ch05.q3", multi_head_with("merged without transpose"), 0.15),
        ("ch05.q3", multi_head_with("mask ignored"), 0.3),
        ("ch05.q4", local_attention_with("|i - j| < r"), 0.15),
        ("ch05.q4", local_attention_with("one-sided"), 0.15),
        ("ch05.q4", local_attention_with("padding ignored"), 0.3),
        ("ch05.q4", local_attention_with("no scale"), 0.15),
        ("ch05.q5", shift_matrix_with("transposed"), 0.15),
        ("ch05.q5", shift_matrix_with("i/d"), 0.3),
        ("ch05.q5", shift_matrix_with("interleaved"), 0.3),
        ("ch05.q6", entropies_with("bits"), 0.0),
        ("ch05.q6", entropies_with("summed"), 0.0),
        ("ch05.q6", entropies_with("largest weight"), 0.0),
        ("ch05.q6", entropies_with("scale d_k"), 0.2),
        ("ch05.q6", entropies_as_floats, 0.0),
    ],
)
def test_a_classic_mistake_loses_most_points(
    question_id: str, wrong_answer: Callable[..., Any], at_most: float
) -> None:
    assert_loses_most_points(question_id, wrong_answer, at_most)


@pytest.mark.parametrize(
    ("question_id", "wrong_answer", "words"),
    [
        ("ch05.q1", masked_attention_with("-1e9"), "may attend no key"),
        ("ch05.q2", encoding_with("offset ignored"), "offset 100"),
        ("ch05.q2", encoding_with("float32"), "float32"),
        ("ch05.q3", multi_head_with("sqrt(E)"), SCALE_NOTE),
        ("ch05.q4", local_attention_with("|i - j| < r"), WINDOW_EDGE),
        ("ch05.q4", local_attention_with("one-sided"), WINDOW_EDGE),
        ("ch05.q5", shift_matrix_with("float32"), LARGE_K),
        ("ch05.q6", entropies_with("scale d_k"), "d_k = 4"),
        ("ch05.q6", entropies_with("p ln p"), "0 ln 0 = 0"),
    ],
)
def test_a_boundary_mistake_fails_the_case_that_names_it(
    question_id: str, wrong_answer: Callable[..., Any], words: str
) -> None:
    """The report printed under the answer says what the failing case was built to catch."""
    assert_fails_the_case_named(question_id, wrong_answer, words)
    _, result = graded(question_id, wrong_answer)
    assert words in format_report(result), format_report(result)


@pytest.mark.parametrize(
    ("question_id", "wrong_answer", "words"),
    [
        ("ch05.q1", masked_attention_with("-1e9"), "may attend no key"),
        ("ch05.q1", masked_attention_with("sqrt(d_v)"), "not sqrt(d_v)"),
        ("ch05.q3", multi_head_with("sqrt(E)"), "not by sqrt(E)"),
        ("ch05.q3", multi_head_with("True means attend"), "True = padding"),
        ("ch05.q3", multi_head_with("True means attend"), NO_PADDING_MASK.removeprefix("; ")),
        ("ch05.q4", local_attention_with("|i - j| < r"), "|i - j| <= r"),
        ("ch05.q4", local_attention_with("sqrt(d_v)"), "not sqrt(d_v)"),
        ("ch05.q2", encoding_with("i/d"), "not i/d"),
        ("ch05.q2", encoding_with("(2i + 1)/d for the cosine"), "not (2i + 1)/d for the cosine"),
        ("ch05.q3", multi_head_with("view(B, h, T, d_k)"), SPLIT_NOTE),
        ("ch05.q3", multi_head_with("merged without transpose"), SPLIT_NOTE),
        ("ch05.q6", entropies_with("p ln p"), ZERO_WEIGHTS),
        ("ch05.q4", local_attention_with("padding ignored"), "noise of size 1000"),
        ("ch05.q5", shift_matrix_with("interleaved"), "cosines in 4-7"),
        ("ch05.q5", shift_matrix_with("float32"), "float32"),
        ("ch05.q6", entropies_with("bits"), "nats"),
        ("ch05.q6", entropies_as_floats, "Tensor"),
    ],
)
def test_the_feedback_names_the_mistake(
    question_id: str, wrong_answer: Callable[..., Any], words: str
) -> None:
    _, result = graded(question_id, wrong_answer)
    assert words in format_report(result), format_report(result)


@pytest.mark.parametrize(
    ("question_id", "right_for_this", "note"),
    [
        ("ch05.q3", multi_head_with("mask ignored"), SCALE_NOTE),
        ("ch05.q4", local_attention_with("padding ignored"), WINDOW_EDGE),
        ("ch05.q3", multi_head_with("mask ignored"), SPLIT_NOTE),
    ],
)
def test_a_note_for_one_mistake_is_not_printed_for_another(
    question_id: str, right_for_this: Callable[..., Any], note: str
) -> None:
    """The case that names one mistake passes an answer with another mistake, so its note is
    not printed under that other mistake."""
    _, result = graded(question_id, right_for_this)
    named = [case for case in result.cases if note in case.description]
    assert named
    assert all(case.passed for case in named)


def weights_by_hand_output_by_torch(query, key, value, mask):
    """The weights written out, the output from torch's fused function: not both written."""
    weights = masked_attention_with("none")(query, key, value, mask)[1]
    return F.scaled_dot_product_attention(query, key, value, attn_mask=mask), weights


def test_an_answer_that_takes_its_output_from_torchs_function_earns_nothing() -> None:
    question, result = graded("ch05.q1", weights_by_hand_output_by_torch)
    assert result.points_earned == 0
    report = format_report(result)
    assert report.startswith("ch05.q1 Masked scaled dot-product attention: 0/2 points: "), report
    assert "scaled_dot_product_attention" in report and "write masked_attention yourself" in report


@pytest.mark.parametrize(
    ("question_id", "wrong_answer", "words"),
    [
        ("ch05.q6", entropies_with("p ln p"), "0 * log 0 (use torch.xlogy"),
        ("ch05.q1", masked_attention_with("softmax over the queries"), "the wrong axis"),
        ("ch05.q1", masked_attention_with("softmax over the queries"), "nothing to attend"),
    ],
)
def test_a_nan_is_told_where_it_comes_from(
    question_id: str, wrong_answer: Callable[..., Any], words: str
) -> None:
    """The NaN hint names the usual sources, a mask or none: p ln p at a weight of 0 in the
    entropy, which has no mask, and a softmax over the queries, where a padded key's column
    holds only -inf."""
    _, result = graded(question_id, wrong_answer)
    report = format_report(result)
    assert "holds NaN" in report and words in report, report
