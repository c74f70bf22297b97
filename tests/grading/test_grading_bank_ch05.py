"""Chapter 5's questions: the references agree with torch (``F.scaled_dot_product_attention``,
``nn.MultiheadAttention``), with attention recomputed over the whole prefix, with the
encoding's defining property and with autograd; the solutions score full marks; each classic
mistake (a mask read the wrong way round or applied after the softmax, sqrt(d_v) or no scale,
heads split in the wrong order, a causal mask without the cache's offset, float32 angles) loses
most of the points."""

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
    notebook_functions,
)
from torch import Tensor

from coursekit.grading import get_question

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


#: (B, P, T, E, d) of the prefixes that test_cached_attention_... recomputes.
PREFIX_SETTINGS = [(2, 4, 1, 6, 4), (3, 3, 4, 5, 3), (1, 0, 5, 4, 2)]


def test_cached_attention_equals_causal_attention_over_the_whole_prefix() -> None:
    """Keys and values cached from P earlier tokens, then T new tokens: the new tokens' outputs
    are the last T rows of causal attention over all P + T tokens, recomputed from scratch."""
    reference = get_question("ch05.q4").reference
    generator = torch.Generator().manual_seed(5)
    for batch, past, new, embed_dim, head_dim in PREFIX_SETTINGS:
        x = torch.randn(batch, past + new, embed_dim, generator=generator, dtype=torch.float64)
        W_q, W_k, W_v = (
            torch.randn(head_dim, embed_dim, generator=generator, dtype=torch.float64)
            for _ in range(3)
        )
        x_past, x_new = x[:, :past], x[:, past:]
        output, keys, values = reference(x_new, x_past @ W_k.T, x_past @ W_v.T, W_q, W_k, W_v)
        full = F.scaled_dot_product_attention(x @ W_q.T, x @ W_k.T, x @ W_v.T, is_causal=True)
        torch.testing.assert_close(output, full[:, past:])
        torch.testing.assert_close(keys, x @ W_k.T)
        torch.testing.assert_close(values, x @ W_v.T)


def test_most_cache_cases_have_cached_and_several_new_tokens() -> None:
    cases = cases_of("ch05.q4")
    assert sum(case.args[1].shape[1] > 0 for case in cases) >= len(cases) - 1
    assert sum(case.args[0].shape[1] > 1 for case in cases) >= len(cases) // 2 + 1


def test_the_shift_matrix_moves_every_encoding_by_k_positions() -> None:
    question = get_question("ch05.q5")
    encoding = get_question("ch05.q2").reference
    for case in cases_of("ch05.q5"):
        k, d_model = case.args
        shift = question.expected(case)
        start = max(0, -k)
        rows = encoding(60, d_model, start)
        torch.testing.assert_close(rows @ shift.T, encoding(60, d_model, start + k))


def test_the_gradient_norms_equal_autograds_jacobians() -> None:
    question = get_question("ch05.q6")
    for case in cases_of("ch05.q6"):
        queries, keys = case.args
        scores = (keys @ queries.unsqueeze(-1)).squeeze(-1)
        norms = [
            torch.stack(
                [
                    torch.linalg.matrix_norm(
                        torch.autograd.functional.jacobian(lambda e: torch.softmax(e, 0), row)
                    )
                    for row in rows
                ]
            ).mean()
            for rows in (scores / math.sqrt(queries.shape[-1]), scores)
        ]
        scaled, unscaled = question.expected(case)
        assert scaled == pytest.approx(float(norms[0]), rel=1e-10)
        assert unscaled == pytest.approx(float(norms[1]), rel=1e-10, abs=1e-12)


def test_without_the_scale_the_softmax_gradient_shrinks_as_d_k_grows() -> None:
    """The measurement the exercise is about: the scaled norms stay within a factor 1.5 of each
    other across d_k = 1 .. 1024, the unscaled ones fall by more than a factor 4."""
    results = [get_question("ch05.q6").expected(case) for case in cases_of("ch05.q6")]
    scaled = [result[0] for result in results]
    unscaled = [result[1] for result in results]
    assert max(scaled) < 1.5 * min(scaled)
    assert unscaled[0] > 4 * unscaled[-1]
    assert all(later < earlier for earlier, later in zip(unscaled, unscaled[1:], strict=False))


# Classic mistakes lose most of the points -----------------------------------------------------


def masked_attention_with(mistake: str):
    """Masked attention with one mistake: True read as 'masked', the mask applied after the
    softmax, no scale, sqrt(d_v) or d_k as the scale, or -1e9 for -inf (a row without keys
    becomes uniform)."""

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
        if mistake == "sin and cos swapped":
            sines, cosines = cosines, sines
        if mistake == "halves":
            return torch.cat([sines, cosines], dim=-1).double()
        return torch.stack([sines, cosines], dim=-1).flatten(1).double()

    return answer


def multi_head_with(mistake: str):
    """Multi-head attention with one mistake: heads split by view(B, h, T, d_k), the scale
    sqrt(E), the mask read as True = attend, no bias, or the heads merged without transposing
    back."""

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
        weights = torch.softmax(scores.masked_fill(blocked[:, None, None, :], -INF), dim=-1)
        weights = weights.nan_to_num()
        heads_out = weights @ v
        if mistake == "merged without transpose":
            merged = heads_out.reshape(batch, steps, embed_dim)
        else:
            merged = heads_out.transpose(1, 2).reshape(batch, steps, embed_dim)
        return merged @ w_out.T + b_out, weights

    return answer


def cached_attention_with(mistake: str):
    """Cached attention with one mistake: the causal mask without the offset P (top-left, as
    ``is_causal=True`` with L != S), no mask, the new keys not attended, the cache appended
    after the new keys, or no scale."""

    def answer(x_new, past_keys, past_values, W_q, W_k, W_v):
        past, new = past_keys.shape[1], x_new.shape[1]
        new_keys, new_values = x_new @ W_k.T, x_new @ W_v.T
        pairs = ((past_keys, new_keys), (past_values, new_values))
        if mistake == "new first":
            pairs = ((new_keys, past_keys), (new_values, past_values))
        keys, values = (torch.cat(pair, dim=1) for pair in pairs)
        scale = 1.0 if mistake == "no scale" else 1 / math.sqrt(W_q.shape[0])
        scores = (x_new @ W_q.T) @ keys.transpose(1, 2) * scale
        positions, rows = torch.arange(past + new), torch.arange(new).unsqueeze(1)
        blocked = {
            "top-left causal": positions > rows,
            "no mask": torch.zeros(new, past + new, dtype=torch.bool),
            "cache only": positions >= past,
        }.get(mistake, positions > rows + past)
        if mistake == "cache only" and past == 0:
            blocked = positions > rows
        weights = torch.softmax(scores.masked_fill(blocked, -INF), dim=-1)
        return weights @ values, keys, values

    return answer


def shift_matrix_with(mistake: str):
    """The shift matrix with one mistake: the rotation transposed (sin with the wrong sign),
    the frequencies 10000^(i/d), the concatenated layout, or float32 angles."""

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
            s, c = (j, half + j) if mistake == "halves" else (2 * j, 2 * j + 1)
            shift[s, s], shift[s, c], shift[c, s], shift[c, c] = cos[j], sin[j], -sin[j], cos[j]
        return shift

    return answer


def gradient_norms_with(mistake: str):
    """The gradient measurement with one mistake: only the diagonal p(1 - p) of the Jacobian,
    the scale d_k, the mean of squared norms, or the Jacobian of log-softmax."""

    def norms(scores: Tensor) -> Tensor:
        p = torch.softmax(scores, dim=-1)
        if mistake == "diagonal only":
            return (p * (1 - p)).norm(dim=-1)
        if mistake == "log-softmax":
            jacobian = torch.eye(p.shape[-1], dtype=p.dtype) - p.unsqueeze(1)
        else:
            jacobian = torch.diag_embed(p) - p.unsqueeze(-1) * p.unsqueeze(-2)
        squared = (jacobian**2).sum(dim=(-2, -1))
        return squared if mistake == "squared norms" else squared.sqrt()

    def answer(queries, keys):
        scores = (keys @ queries.unsqueeze(-1)).squeeze(-1)
        d_k = queries.shape[-1]
        scale = d_k if mistake == "scale d_k" else math.sqrt(d_k)
        return float(norms(scores / scale).mean()), float(norms(scores).mean())

    return answer


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
        ("ch05.q4", cached_attention_with("top-left causal"), 0.15),
        ("ch05.q4", cached_attention_with("no mask"), 0.3),
        ("ch05.q4", cached_attention_with("cache only"), 0.15),
        ("ch05.q4", cached_attention_with("new first"), 0.15),
        ("ch05.q4", cached_attention_with("no scale"), 0.0),
        ("ch05.q5", shift_matrix_with("transposed"), 0.15),
        ("ch05.q5", shift_matrix_with("i/d"), 0.3),
        ("ch05.q5", shift_matrix_with("halves"), 0.3),
        ("ch05.q6", gradient_norms_with("diagonal only"), 0.0),
        ("ch05.q6", gradient_norms_with("log-softmax"), 0.0),
        ("ch05.q6", gradient_norms_with("squared norms"), 0.0),
        ("ch05.q6", gradient_norms_with("scale d_k"), 0.2),
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
        ("ch05.q5", shift_matrix_with("float32"), "float32"),
    ],
)
def test_a_boundary_mistake_fails_the_case_that_names_it(
    question_id: str, wrong_answer: Callable[..., Any], words: str
) -> None:
    assert_fails_the_case_named(question_id, wrong_answer, words)
