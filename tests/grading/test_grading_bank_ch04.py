"""Chapter 4's questions: the references agree with direct formulas written one example at a time,
with brute-force searches and with closed forms; the solutions score full marks; each classic
mistake (a missing or inverted mask, masking after the softmax, unnormalised beam scores, a
repeated bigram, the most recent bigram overlooked, a ban that removes a finished beam's eos, a history that does not follow its
beam, repeated pointers, a tie ignored) loses most of the points, and the report names it."""

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

from coursekit.generate.search import beam_step
from coursekit.grading import get_question
from coursekit.grading.bank.ch04 import (
    BAN_BEFORE_EOS_ONLY,
    BIGRAM_BANNED,
    FINISHED_STAY,
    HISTORY_FOLLOWS,
    LAST_BIGRAM,
    RANKED_NORMALISED,
)
from coursekit.grading.report import format_report

CHAPTER_4 = [f"ch04.q{number}" for number in range(1, 7)]
INF = math.inf


def test_the_solutions_score_full_marks() -> None:
    """(Registration, case data and stubs: test_grading_banks.py checks every chapter.)"""
    solutions = notebook_functions(ROOT / "solutions/04-seq2seq-attention.ipynb")
    for question_id in CHAPTER_4:
        assert_full_marks(question_id, solutions)


def real_lengths(mask: Tensor) -> list[int]:
    return (~mask).sum(dim=1).tolist()


# The references equal direct formulas, one example at a time -----------------------------------


def test_additive_attention_is_the_formula_over_each_sources_real_words() -> None:
    question = get_question("ch04.q1")
    for case in cases_of("ch04.q1"):
        query, keys, mask, W_q, W_k, v = case.args
        context, weights = question.expected(case)
        for b, length in enumerate(real_lengths(mask)):
            h = keys[b, :length]
            scores = torch.stack([v @ torch.tanh(W_q @ query[b] + W_k @ h_j) for h_j in h])
            alpha = torch.softmax(scores, dim=0)
            torch.testing.assert_close(weights[b, :length], alpha)
            assert bool((weights[b, length:] == 0).all())
            torch.testing.assert_close(context[b], alpha @ h)


def test_the_additive_score_equals_its_concatenated_form() -> None:
    """v^T tanh(W_q q + W_k k) = v^T tanh(W [q; k]) with W = [W_q W_k] (the chapter's two
    flavours of Bahdanau's score)."""
    for case in cases_of("ch04.q1"):
        query, keys, mask, W_q, W_k, v = case.args
        W = torch.cat([W_q, W_k], dim=1)
        pairs = torch.cat([query.unsqueeze(1).expand(-1, keys.shape[1], -1), keys], dim=-1)
        scores = torch.tanh(pairs @ W.T) @ v
        expected = torch.softmax(scores.masked_fill(mask, -INF), dim=-1)
        torch.testing.assert_close(get_question("ch04.q1").expected(case)[1], expected)


def test_luong_attention_is_the_formula_over_each_sources_real_words() -> None:
    question = get_question("ch04.q2")
    for case in cases_of("ch04.q2"):
        s, h, mask, W_a, W_c = case.args
        attentional, weights = question.expected(case)
        for b, length in enumerate(real_lengths(mask)):
            for t in range(s.shape[1]):
                alpha = torch.softmax(
                    torch.stack([s[b, t] @ W_a @ h_j for h_j in h[b, :length]]), 0
                )
                torch.testing.assert_close(weights[b, t, :length], alpha)
                c = alpha @ h[b, :length]
                torch.testing.assert_close(
                    attentional[b, t], torch.tanh(W_c @ torch.cat([c, s[b, t]]))
                )


def test_local_p_weights_are_the_formula_written_with_python_numbers() -> None:
    question = get_question("ch04.q3")
    for case in cases_of("ch04.q3"):
        s, h, lengths, W_p, v_p, D = case.args
        centres, weights = question.expected(case)
        for b, n in enumerate(lengths.tolist()):
            p = n / (1 + math.exp(-float(v_p @ torch.tanh(W_p @ s[b]))))
            assert centres[b].item() == pytest.approx(p, rel=1e-12)
            window = [j for j in range(n) if abs(j - p) <= D]
            scores = {j: math.exp(float(s[b] @ h[b, j])) for j in window}
            total = sum(scores.values())
            expected = [
                scores[j] / total * math.exp(-((j - p) ** 2) / (2 * (D / 2) ** 2))
                if j in scores
                else 0.0
                for j in range(h.shape[1])
            ]
            torch.testing.assert_close(weights[b], torch.tensor(expected, dtype=torch.float64))


def test_some_local_p_windows_reach_past_the_end_of_a_padded_source() -> None:
    reaching = 0
    for case in cases_of("ch04.q3"):
        _, h, lengths, *_, D = case.args
        centres, _ = get_question("ch04.q3").expected(case)
        reaching += sum(
            int(centre + D >= n < h.shape[1])
            for centre, n in zip(centres.tolist(), lengths.tolist(), strict=True)
        )
    assert reaching >= 4


def brute_force_no_repeat_step(sums, lengths, finished, log_probs, history, eos, alpha):
    """Every allowed candidate of each input as a Python tuple, sorted by its normalised score."""
    batch, beams, vocab = log_probs.shape
    kept = []
    for b in range(batch):
        candidates = []
        for i in range(beams):
            past = history[b, i].tolist()
            bigrams = set(zip(past, past[1:], strict=False))
            if finished[b, i]:
                options = [(eos, float(sums[b, i]), int(lengths[b, i]))]
            else:
                options = [
                    (v, float(sums[b, i] + log_probs[b, i, v]), int(lengths[b, i]) + 1)
                    for v in range(vocab)
                    if (past[-1], v) not in bigrams
                ]
            for token, total, length in options:
                score = total / ((5 + length) / 6) ** alpha
                candidates.append((score, i, token, total, length))
        candidates.sort(key=lambda candidate: -candidate[0])
        kept.append(candidates[:beams])
    return (
        torch.tensor([[c[3] for c in row] for row in kept], dtype=torch.float64),
        torch.tensor([[c[4] for c in row] for row in kept]),
        torch.tensor(
            [[bool(finished[b, c[1]]) or c[2] == eos for c in row] for b, row in enumerate(kept)]
        ),  # fmt: skip
        torch.tensor([[c[2] for c in row] for row in kept]),
        torch.tensor(
            [[history[b, c[1]].tolist() + [c[2]] for c in row] for b, row in enumerate(kept)]
        ),
    )


def test_the_no_repeat_step_keeps_the_best_allowed_candidates_of_a_brute_force_search() -> None:
    question = get_question("ch04.q4")
    for case in cases_of("ch04.q4"):
        expected = brute_force_no_repeat_step(*case.args)
        for got, want in zip(question.expected(case), expected, strict=True):
            torch.testing.assert_close(got, want)


def test_the_ban_changes_the_kept_beams_where_a_case_says_so() -> None:
    """Where a case says the best continuations repeat a bigram, beam_step without the ban keeps
    other tokens; the finished cases hold beams whose history ends with eos, eos."""
    question = get_question("ch04.q4")
    for case in cases_of("ch04.q4"):
        sums, lengths, finished, log_probs, history, eos, alpha = case.args
        unconstrained = beam_step(log_probs, sums, lengths, finished, eos, alpha)
        if BIGRAM_BANNED in case.description:
            assert not torch.equal(unconstrained.tokens, question.expected(case)[3])
        if finished.any():
            assert bool((history[finished][:, -2:] == eos).all())


def test_the_case_ending_a_a_bans_its_favourite_only_by_the_most_recent_bigram() -> None:
    """Every beam of the case ending a, a holds (a, a) only as its last bigram, a is its best
    continuation, and the reference keeps no a after it."""
    question = get_question("ch04.q4")
    (case,) = [c for c in cases_of("ch04.q4") if LAST_BIGRAM in c.description]
    _, _, finished, log_probs, history, _, _ = case.args
    last = history[..., -1]
    assert not bool(finished.any())
    assert bool((history[..., -2] == last).all())
    assert not bool((history[..., :-2] == last.unsqueeze(-1)).any())
    assert torch.equal(log_probs.argmax(dim=-1), last)
    kept_history = question.expected(case)[4]
    assert bool((kept_history[..., -1] != kept_history[..., -2]).all())


def test_finished_beams_are_kept_where_a_case_says_they_compete() -> None:
    """The case about finished beams keeps some of them (alpha=0); in the case about the length
    penalty the reference keeps none, while ranking by the sums alone keeps one in each input."""
    question = get_question("ch04.q4")
    for case in cases_of("ch04.q4"):
        sums, lengths, finished, log_probs, history, eos, alpha = case.args
        grown = history.shape[-1] + 1  # the length of a kept beam that was unfinished
        kept_finished = question.expected(case)[1] < grown
        if FINISHED_STAY in case.description:
            assert bool(kept_finished.any())
        if case.description.startswith(RANKED_NORMALISED):
            assert not bool(kept_finished.any())
            by_sums_alone = no_repeat_with("raw sums")(*case.args)[1]
            assert bool((by_sums_alone < grown).any(dim=1).all())


def test_no_case_keeps_a_beam_of_probability_zero() -> None:
    """A kept candidate whose sum is -inf is finished (beam_step: its probability is 0), but which
    of the equal -inf candidates fill the places is a tie that topk and sort break differently,
    so no case asks for one: every kept sum is finite."""
    for case in cases_of("ch04.q4"):
        assert bool(case.args[0].isfinite().all())
        assert bool(get_question("ch04.q4").expected(case)[0].isfinite().all())


def test_the_lookup_scale_of_the_worked_example_is_its_closed_form() -> None:
    """q = [0, 10, 0] scores the keys [0, 100 c, 0, 0]: the weight e^{100c} / (e^{100c} + 3)
    reaches 0.99 at c = ln(297) / 100; q = [0, 0, 10] ties keys 3 and 4 (weights -> 1/2)."""
    (case,) = [c for c in cases_of("ch04.q6") if "worked example" in c.description]
    scales = get_question("ch04.q6").expected(case)
    assert scales[0].item() == pytest.approx(math.log(297) / 100, rel=1e-9)
    assert scales[1].item() == INF


def test_each_lookup_scale_is_the_smallest_that_reaches_the_threshold() -> None:
    question = get_question("ch04.q6")
    zeros = 0
    for case in cases_of("ch04.q6"):
        queries, keys, threshold = case.args
        for query, row_keys, scale in zip(queries, keys, question.expected(case), strict=True):
            scores = row_keys @ query
            if scale == 0:
                zeros += 1
                assert 1 / len(scores) >= threshold
            elif math.isfinite(scale):
                assert torch.softmax(scale * scores, -1).max() >= threshold - 1e-12
                assert torch.softmax(0.999 * scale * scores, -1).max() < threshold
    assert zeros >= 3


def test_no_lookup_threshold_sits_at_a_tie_level() -> None:
    """With m keys tied for the largest score the largest weight tends to 1/m (and is 1/n at
    scale 0): a threshold there is met or missed by rounding, so none sits there."""
    for case in cases_of("ch04.q6"):
        queries, keys, threshold = case.args
        for query, row_keys in zip(queries, keys, strict=True):
            scores = row_keys @ query
            ties = int((scores == scores.max()).sum())
            for level in (1 / ties, 1 / len(scores)):
                assert abs(threshold - level) > 1e-6, (case.description, level)


def brute_force_pointer(encoder_states, lengths, start, W_1, W_2, v) -> list[list[int]]:
    rows = []
    for e, n in zip(encoder_states, lengths.tolist(), strict=True):
        chosen: list[int] = []
        d = start
        for _ in range(n):
            scores = {j: float(v @ torch.tanh(W_1 @ e[j] + W_2 @ d)) for j in range(n)}
            best = max((j for j in scores if j not in chosen), key=scores.__getitem__)
            chosen.append(best)
            d = e[best]
        rows.append(chosen + [-1] * (encoder_states.shape[1] - n))
    return rows


def test_pointer_decoding_is_a_brute_force_greedy_search_over_unused_positions() -> None:
    question = get_question("ch04.q5")
    for case in cases_of("ch04.q5"):
        positions = question.expected(case)
        assert positions.tolist() == brute_force_pointer(*case.args)
        for row, n in zip(positions.tolist(), case.args[1].tolist(), strict=True):
            assert sorted(row[:n]) == list(range(n))


#: Where each masked question's cases hold the padded states and what says how long each is.
PADDED_ARGUMENTS: dict[str, tuple[int, Callable[[tuple[Any, ...]], list[int]]]] = {
    "ch04.q1": (1, lambda args: real_lengths(args[2])),
    "ch04.q2": (1, lambda args: real_lengths(args[2])),
    "ch04.q3": (1, lambda args: args[2].tolist()),
    "ch04.q5": (0, lambda args: args[1].tolist()),
}


@pytest.mark.parametrize("question_id", PADDED_ARGUMENTS)
def test_masked_cases_are_mostly_padded(question_id: str) -> None:
    states_at, lengths_of = PADDED_ARGUMENTS[question_id]
    cases = cases_of(question_id)
    padded = sum(min(lengths_of(case.args)) < case.args[states_at].shape[1] for case in cases)
    assert padded >= 2 * (len(cases) - padded) + 1


# Classic mistakes lose most of the points -----------------------------------------------------


def additive_with(mistake: str):
    """Bahdanau's attention with one mistake: no mask, the mask applied after the softmax (or
    multiplied into the scores), its polarity inverted, no tanh, or a softmax over the batch."""

    def answer(query, keys, mask, W_q, W_k, v):
        hidden = (query @ W_q.T).unsqueeze(1) + keys @ W_k.T
        scores = (hidden if mistake == "no tanh" else torch.tanh(hidden)) @ v
        if mistake == "no mask":
            weights = torch.softmax(scores, dim=-1)
        elif mistake == "mask after softmax":
            weights = torch.softmax(scores, dim=-1).masked_fill(mask, 0.0)
        elif mistake == "mask multiplied":
            weights = torch.softmax(scores * ~mask, dim=-1)
        elif mistake == "True means attend":
            weights = torch.softmax(scores.masked_fill(~mask, -1e9), dim=-1)
        else:
            dim = 0 if mistake == "softmax over the batch" else -1
            weights = torch.softmax(scores.masked_fill(mask, -INF), dim=dim).nan_to_num()
        return (weights.unsqueeze(-1) * keys).sum(dim=1), weights

    return answer


def luong_with(mistake: str):
    """Luong's attention with one mistake: W_a transposed, [s_t; c_t], no mask, the mask added as
    mask * -inf (0 * -inf is NaN), or the softmax over the steps."""

    def answer(s, h, mask, W_a, W_c):
        bilinear = W_a.T if mistake == "W_a transposed" else W_a
        scores = s @ bilinear @ h.transpose(1, 2)
        if mistake == "mask times -inf":
            scores = scores + mask.unsqueeze(1) * -INF
        elif mistake != "no mask":
            scores = scores.masked_fill(mask.unsqueeze(1), -INF)
        dim = 1 if mistake == "softmax over the steps" else -1
        weights = torch.softmax(scores, dim=dim)
        if mistake != "mask times -inf":
            weights = weights.nan_to_num()
        context = weights @ h
        parts = [s, context] if mistake == "[s; c]" else [context, s]
        return torch.tanh(torch.cat(parts, dim=-1) @ W_c.T), weights

    return answer


def local_p_with(mistake: str):
    """Local-p with one mistake: the padded width S for n, sigma = D, p_t rounded, no window,
    the window cut after the softmax, or the weights renormalised after the Gaussian."""

    def answer(s, h, lengths, W_p, v_p, D):
        width = h.shape[1]
        n = torch.full_like(lengths, width) if mistake == "padded width" else lengths
        centres = n * torch.sigmoid(torch.tanh(s @ W_p.T) @ v_p)
        centre = centres.round() if mistake == "rounded" else centres
        positions = torch.arange(width, dtype=s.dtype)
        distance = positions - centre.unsqueeze(1)
        padding = positions >= lengths.unsqueeze(1)
        outside = padding if mistake == "no window" else (distance.abs() > D) | padding
        scores = (h @ s.unsqueeze(-1)).squeeze(-1)
        if mistake == "window after softmax":
            weights = torch.softmax(scores.masked_fill(padding, -INF), -1).masked_fill(outside, 0)
        else:
            weights = torch.softmax(scores.masked_fill(outside, -INF), dim=-1)
        sigma = D if mistake == "sigma = D" else D / 2
        weights = weights * torch.exp(-(distance**2) / (2 * sigma**2))
        if mistake == "renormalised":
            weights = weights / weights.sum(dim=-1, keepdim=True)
        return centres, weights

    return answer


def no_repeat_with(mistake: str):
    """The step with one mistake: no ban, the beam's most recent bigram left out of the ban
    (``history[..., :-2]`` searched for the last token), the ban applied to finished beams too after their row
    is set to eos-only (their history ends with eos, eos, so eos is banned and they drop out),
    raw sums ranked, or the histories left in place; "ban before eos-only" bans in every beam
    before the finished beams' rows are replaced, which is no mistake."""

    def answer(sums, lengths, finished, log_probs, history, eos, alpha):
        batch, beams, vocab = log_probs.shape
        if mistake == "last bigram missed":  # the last token a looked for before t - 2 only
            earlier, following = history[..., :-2], history[..., 1:-1]
        else:
            earlier, following = history[..., :-1], history[..., 1:]
        follows_last = (earlier == history[..., -1:]).unsqueeze(-1)
        repeats = (F.one_hot(following, vocab).bool() & follows_last).any(dim=2)
        if mistake not in ("finished banned too", "ban before eos-only"):
            repeats &= ~finished.unsqueeze(-1)
        if mistake == "ban before eos-only":
            log_probs = log_probs.masked_fill(repeats, -INF)
        eos_only = torch.full_like(log_probs, -INF)
        eos_only[..., eos] = 0.0
        log_probs = torch.where(finished.unsqueeze(-1), eos_only, log_probs)
        if mistake not in ("no ban", "ban before eos-only"):
            log_probs = log_probs.masked_fill(repeats, -INF)
        candidates = sums.unsqueeze(-1) + log_probs
        new_lengths = lengths + (~finished).long()
        exponent = 0.0 if mistake == "raw sums" else alpha
        penalty = ((5 + new_lengths.to(sums.dtype)) / 6) ** exponent
        best = (candidates / penalty.unsqueeze(-1)).reshape(batch, -1).topk(beams, -1).indices
        origin, tokens = best // vocab, best % vocab
        kept = history.gather(1, origin.unsqueeze(-1).expand(-1, -1, history.shape[-1]))
        if mistake == "history in place":
            kept = history
        return (
            candidates.reshape(batch, -1).gather(1, best),
            new_lengths.gather(1, origin),
            finished.gather(1, origin) | (tokens == eos),
            tokens,
            torch.cat([kept, tokens.unsqueeze(-1)], dim=-1),
        )

    return answer


def pointer_with(mistake: str):
    """Pointer decoding with one mistake: chosen positions not blocked, padding not masked, S
    steps for every input, or the decoder fed the start vector at every step."""

    def answer(encoder_states, lengths, start, W_1, W_2, v):
        batch, steps, _ = encoder_states.shape
        rows = torch.arange(batch)
        padding = torch.arange(steps) >= lengths.unsqueeze(1)
        blocked = torch.zeros_like(padding) if mistake == "padding chosen" else padding.clone()
        positions = torch.full((batch, steps), -1)
        state = start.expand(batch, -1)
        for i in range(steps):
            scores = torch.tanh(encoder_states @ W_1.T + (state @ W_2.T).unsqueeze(1)) @ v
            choice = scores.masked_fill(blocked, -INF).argmax(dim=-1)
            running = torch.ones_like(lengths, dtype=torch.bool) if mistake == "S steps" else (
                i < lengths
            )  # fmt: skip
            positions[running, i] = choice[running]
            if mistake != "repeats":
                blocked[rows[running], choice[running]] = True
            state = start.expand(batch, -1) if mistake == "no feeding" else encoder_states[
                rows, choice
            ]  # fmt: skip
        return positions

    return answer


def lookup_scale_with(mistake: str):
    """The scale search with one mistake: ties ignored (bisection up to a cap), the threshold
    compared with the mean weight, or 1/sqrt(d) returned."""

    def answer(queries, keys, threshold):
        scales = []
        for query, row_keys in zip(queries, keys, strict=True):
            scores = row_keys @ query
            if mistake == "1/sqrt(d)":
                scales.append(query.shape[0] ** -0.5)
                continue
            if 1 / len(scores) >= threshold:
                scales.append(0.0)
                continue
            low, high = 0.0, 1.0
            while torch.softmax(high * scores, -1).max() < threshold and high < 1e6:
                low, high = high, 2 * high
            for _ in range(100):
                middle = (low + high) / 2
                reached = torch.softmax(middle * scores, -1).max() >= threshold
                low, high = (low, middle) if reached else (middle, high)
            scales.append(high)
        return torch.tensor(scales, dtype=torch.float64)

    return answer


@pytest.mark.parametrize(
    ("question_id", "wrong_answer", "at_most"),
    [
        ("ch04.q1", additive_with("no mask"), 0.15),
        ("ch04.q1", additive_with("mask after softmax"), 0.15),
        ("ch04.q1", additive_with("mask multiplied"), 0.15),
        ("ch04.q1", additive_with("True means attend"), 0.0),
        ("ch04.q1", additive_with("no tanh"), 0.0),
        ("ch04.q1", additive_with("softmax over the batch"), 0.0),
        ("ch04.q2", luong_with("W_a transposed"), 0.0),
        ("ch04.q2", luong_with("[s; c]"), 0.0),
        ("ch04.q2", luong_with("no mask"), 0.15),
        ("ch04.q2", luong_with("mask times -inf"), 0.15),
        ("ch04.q2", luong_with("softmax over the steps"), 0.0),
        ("ch04.q3", local_p_with("padded width"), 0.15),
        ("ch04.q3", local_p_with("sigma = D"), 0.0),
        ("ch04.q3", local_p_with("rounded"), 0.0),
        ("ch04.q3", local_p_with("no window"), 0.15),
        ("ch04.q3", local_p_with("window after softmax"), 0.15),
        ("ch04.q3", local_p_with("renormalised"), 0.0),
        ("ch04.q4", no_repeat_with("no ban"), 0.5),
        ("ch04.q4", no_repeat_with("finished banned too"), 0.75),
        ("ch04.q4", no_repeat_with("raw sums"), 0.65),
        ("ch04.q4", no_repeat_with("history in place"), 0.75),
        ("ch04.q5", pointer_with("repeats"), 0.0),
        ("ch04.q5", pointer_with("padding chosen"), 0.2),
        ("ch04.q5", pointer_with("S steps"), 0.2),
        ("ch04.q5", pointer_with("no feeding"), 0.2),
        ("ch04.q6", lookup_scale_with("1/sqrt(d)"), 0.25),
        ("ch04.q6", lookup_scale_with("ties ignored"), 0.85),
    ],
)
def test_a_classic_mistake_loses_most_points(
    question_id: str, wrong_answer: Callable[..., Any], at_most: float
) -> None:
    assert_loses_most_points(question_id, wrong_answer, at_most)


@pytest.mark.parametrize(
    ("question_id", "wrong_answer", "words"),
    [
        ("ch04.q1", additive_with("mask after softmax"), "sums to 1 over the real positions"),
        ("ch04.q3", local_p_with("padded width"), "not the padded width"),
        ("ch04.q4", no_repeat_with("no ban"), BIGRAM_BANNED),
        ("ch04.q4", no_repeat_with("finished banned too"), FINISHED_STAY),
        ("ch04.q4", no_repeat_with("finished banned too"), BAN_BEFORE_EOS_ONLY),
        ("ch04.q4", no_repeat_with("raw sums"), "not by log P"),
        ("ch04.q4", no_repeat_with("history in place"), HISTORY_FOLLOWS),
        ("ch04.q4", no_repeat_with("last bigram missed"), LAST_BIGRAM),
        ("ch04.q5", pointer_with("repeats"), "each position is chosen once"),
        ("ch04.q5", pointer_with("padding chosen"), "choose among j < n_b only"),
        ("ch04.q6", lookup_scale_with("ties ignored"), "tie"),
    ],
)
def test_the_report_names_the_mistake(
    question_id: str, wrong_answer: Callable[..., Any], words: str
) -> None:
    """The report printed under the answer says what the failing cases were built to catch."""
    assert_fails_the_case_named(question_id, wrong_answer, words)
    _, result = graded(question_id, wrong_answer)
    assert words in format_report(result), format_report(result)


#: The notes of ch04.q4's cases that each name one mistake.
NO_REPEAT_NOTES = [
    BIGRAM_BANNED,
    FINISHED_STAY,
    BAN_BEFORE_EOS_ONLY,
    HISTORY_FOLLOWS,
    RANKED_NORMALISED,
    LAST_BIGRAM,
]


@pytest.mark.parametrize(
    ("mistake", "its_notes"),
    [
        ("finished banned too", [FINISHED_STAY, BAN_BEFORE_EOS_ONLY]),
        ("raw sums", [RANKED_NORMALISED]),
        ("last bigram missed", [LAST_BIGRAM]),
    ],
)
def test_a_no_repeat_mistake_is_named_and_no_other(mistake: str, its_notes: list[str]) -> None:
    """The ban applied after a finished beam's row became eos-only is told about the order; the
    raw sums about the penalty; the ban blind to the most recent bigram about the history ending
    a, a; and none about another's."""
    assert_names_only_its_mistake("ch04.q4", no_repeat_with(mistake), its_notes, NO_REPEAT_NOTES)


def test_banning_in_every_beam_before_the_eos_only_row_is_no_mistake() -> None:
    """The eos-only row replaces the whole row of a finished beam, so a ban applied before it
    leaves no trace: only the ban applied after it is wrong."""
    assert_full_marks("ch04.q4", {"beam_step_no_repeat": no_repeat_with("ban before eos-only")})


def test_a_mask_multiplied_by_minus_infinity_is_told_where_its_nan_comes_from() -> None:
    _, result = graded("ch04.q2", luong_with("mask times -inf"))
    report = format_report(result)
    assert "NaN" in report and "masked_fill" in report, report
