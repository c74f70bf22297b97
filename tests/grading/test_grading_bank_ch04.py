"""Chapter 4's questions: the references agree with direct formulas written one example at a time,
with brute-force searches and with ``coursekit.generate.beam_search``; the solutions score full
marks; each classic mistake (a missing or inverted mask, masking after the softmax, unnormalised
beam scores, a state that does not follow its beam, repeated pointers) loses most of the points."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
import torch
from test_grading_bank_ch01 import (
    ROOT,
    assert_fails_the_case_named,
    assert_full_marks,
    assert_loses_most_points,
    cases_of,
    notebook_functions,
)
from torch import Tensor

from coursekit.generate import beam_search
from coursekit.grading import get_question

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


def brute_force_beam_step(sums, lengths, finished, log_probs, state, eos, alpha):
    """Every candidate of each input as a Python tuple, sorted by its normalised score."""
    batch, beams, vocab = log_probs.shape
    kept = []
    for b in range(batch):
        candidates = []
        for i in range(beams):
            if finished[b, i]:
                options = [(eos, float(sums[b, i]), int(lengths[b, i]))]
            else:
                options = [
                    (v, float(sums[b, i] + log_probs[b, i, v]), int(lengths[b, i]) + 1)
                    for v in range(vocab)
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
        torch.stack([state[b * beams + c[1]] for b, row in enumerate(kept) for c in row]),
    )


def test_the_beam_step_keeps_the_best_candidates_of_a_brute_force_enumeration() -> None:
    question = get_question("ch04.q4")
    for case in cases_of("ch04.q4"):
        expected = brute_force_beam_step(*case.args)
        for got, want in zip(question.expected(case), expected, strict=True):
            torch.testing.assert_close(got, want)


def random_decoder(vocab: int, hidden: int, seed: int):
    """A small recurrent 'model': state' = tanh(E[y] + state U), log P = log_softmax(state' W)."""
    generator = torch.Generator().manual_seed(seed)
    E, U, W = (
        torch.randn(*shape, generator=generator, dtype=torch.float64)
        for shape in ((vocab, hidden), (hidden, hidden), (hidden, vocab))
    )

    def step(tokens: Tensor, state: Tensor) -> tuple[Tensor, Tensor]:
        state = torch.tanh(E[tokens] + state @ U)
        return torch.log_softmax(2 * state @ W, dim=-1), state

    return step


@pytest.mark.parametrize(("beams", "alpha", "seed"), [(3, 0.0, 0), (4, 0.6, 1), (2, 1.0, 2)])
def test_the_beam_step_run_in_a_loop_is_coursekits_beam_search(
    beams: int, alpha: float, seed: int
) -> None:
    """The question's step, from the bos beams until every beam has finished (or max_len), keeps
    the hypotheses and scores that ``coursekit.generate.beam_search`` returns."""
    vocab, hidden, batch, eos, max_len = 7, 5, 3, 0, 8
    step = random_decoder(vocab, hidden, seed)
    initial = torch.randn(batch, hidden, generator=torch.Generator().manual_seed(seed + 10))
    initial = initial.to(torch.float64)
    bos = torch.full((batch,), 1)
    expected = beam_search(step, initial, bos, eos, beams, max_len, alpha, n_best=beams)

    reference = get_question("ch04.q4").reference
    sums = torch.full((batch, beams), -INF, dtype=torch.float64)
    sums[:, 0] = 0.0
    lengths = torch.zeros(batch, beams, dtype=torch.long)
    finished = torch.zeros(batch, beams, dtype=torch.bool)
    state, tokens = initial.repeat_interleave(beams, dim=0), bos.repeat_interleave(beams)
    history = [[[] for _ in range(beams)] for _ in range(batch)]
    for _ in range(max_len):
        log_probs, state = step(tokens, state)
        parents = state
        sums, lengths, finished, new_tokens, state = reference(
            sums, lengths, finished, log_probs.view(batch, beams, vocab), parents, eos, alpha
        )
        origins = [
            [next(i for i in range(beams) if torch.equal(parents[b * beams + i], row)) for row in
             state[b * beams : (b + 1) * beams]]
            for b in range(batch)
        ]  # fmt: skip
        history = [
            [history[b][origin] + [int(new_tokens[b, i])] for i, origin in enumerate(row)]
            for b, row in enumerate(origins)
        ]
        tokens = new_tokens.flatten()
        if bool(finished.all()):
            break
    scores = sums / ((5 + lengths.to(torch.float64)) / 6) ** alpha
    for b, hypotheses in enumerate(expected):
        for i, hypothesis in enumerate(hypotheses):
            assert history[b][i][: int(lengths[b, i])] == hypothesis.tokens
            assert scores[b, i].item() == pytest.approx(hypothesis.score, rel=1e-12)


def test_the_beam_cases_mix_finished_unfinished_and_lengths() -> None:
    cases = cases_of("ch04.q4")
    with_finished = [case for case in cases if bool(case.args[2].any())]
    normalised = [case for case in cases if case.args[6] > 0]
    assert len(with_finished) >= len(cases) // 2 + 1 and len(normalised) >= len(cases) // 2 + 1
    for case in normalised:
        lengths = case.args[1]
        assert int(lengths.max()) - int(lengths.min()) >= 5


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


def test_alignment_accuracy_counts_aligned_words_over_the_whole_batch() -> None:
    question = get_question("ch04.q6")
    differs_from_the_mean_per_example = 0
    for case in cases_of("ch04.q6"):
        weights, alignments = case.args
        hits, totals = [], []
        for rows, alignment in zip(weights, alignments, strict=True):
            aligned = [(i, set(a)) for i, a in enumerate(alignment) if a]
            hits.append(sum(int(torch.argmax(rows[i])) in a for i, a in aligned))
            totals.append(len(aligned))
        assert question.expected(case) == pytest.approx(sum(hits) / sum(totals), rel=1e-15)
        assert any(not a for alignment in alignments for a in alignment)
        per_example = sum(h / t for h, t in zip(hits, totals, strict=True)) / len(totals)
        differs_from_the_mean_per_example += abs(per_example - sum(hits) / sum(totals)) > 1e-3
    assert differs_from_the_mean_per_example >= 4


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
    """Luong's attention with one mistake: W_a transposed, [s_t; c_t], no mask, or the softmax
    over the steps."""

    def answer(s, h, mask, W_a, W_c):
        bilinear = W_a.T if mistake == "W_a transposed" else W_a
        scores = s @ bilinear @ h.transpose(1, 2)
        if mistake != "no mask":
            scores = scores.masked_fill(mask.unsqueeze(1), -INF)
        dim = 1 if mistake == "softmax over the steps" else -1
        weights = torch.softmax(scores, dim=dim).nan_to_num()
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


def beam_step_with(mistake: str):
    """A beam step with one mistake: raw sums ranked, finished beams extended like the others
    or dropped, the state left in place or indexed without the input's offset b*k, the k best
    taken over the whole batch."""

    def answer(sums, lengths, finished, log_probs, state, eos, alpha):
        batch, beams, vocab = log_probs.shape
        if mistake == "finished extended":
            grown = torch.ones_like(lengths)
        else:
            eos_only = torch.full_like(log_probs, -INF)
            if mistake != "finished dropped":
                eos_only[..., eos] = 0.0
            log_probs = torch.where(finished.unsqueeze(-1), eos_only, log_probs)
            grown = (~finished).long()
        candidates = sums.unsqueeze(-1) + log_probs
        new_lengths = lengths + grown
        penalty = ((5 + new_lengths.to(sums.dtype)) / 6) ** alpha
        scores = candidates if mistake == "raw sums" else candidates / penalty.unsqueeze(-1)
        flat = scores.reshape(batch, -1)
        if mistake == "best over the batch":
            best = flat.flatten().topk(batch * beams).indices.view(batch, beams) % (beams * vocab)
        else:
            best = flat.topk(beams, dim=-1).indices
        origin, tokens = best // vocab, best % vocab
        rows = torch.arange(batch).unsqueeze(1) * beams + origin
        new_state = {"state in place": state, "no offset": state[origin.flatten()]}.get(
            mistake, state[rows.flatten()]
        )
        return (
            candidates.reshape(batch, -1).gather(1, best),
            new_lengths.gather(1, origin),
            finished.gather(1, origin) | (tokens == eos),
            tokens,
            new_state,
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


def alignment_accuracy_with(mistake: str):
    """Alignment accuracy with one mistake: words aligned with nothing counted as errors, the
    mean of per-example accuracies, only the first aligned word accepted, or the argmax over
    the target steps."""

    def answer(weights, alignments):
        hits, totals = [], []
        for rows, alignment in zip(weights, alignments, strict=True):
            rows = rows[: len(alignment)]
            if mistake == "argmax over targets":
                peaks = rows.argmax(dim=0).tolist() + [-1] * len(alignment)
            else:
                peaks = rows.argmax(dim=-1).tolist()
            counted = [
                (peaks[i], a)
                for i, a in enumerate(alignment)
                if a or mistake == "unaligned counted"
            ]
            if mistake == "first aligned word":
                hits.append(sum(peak == a[0] for peak, a in counted))
            else:
                hits.append(sum(peak in a for peak, a in counted))
            totals.append(len(counted))
        if mistake == "mean per example":
            return sum(h / t for h, t in zip(hits, totals, strict=True)) / len(totals)
        return sum(hits) / sum(totals)

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
        ("ch04.q2", luong_with("softmax over the steps"), 0.0),
        ("ch04.q3", local_p_with("padded width"), 0.15),
        ("ch04.q3", local_p_with("sigma = D"), 0.0),
        ("ch04.q3", local_p_with("rounded"), 0.0),
        ("ch04.q3", local_p_with("no window"), 0.15),
        ("ch04.q3", local_p_with("window after softmax"), 0.15),
        ("ch04.q3", local_p_with("renormalised"), 0.0),
        ("ch04.q4", beam_step_with("raw sums"), 0.25),
        ("ch04.q4", beam_step_with("finished extended"), 0.25),
        ("ch04.q4", beam_step_with("finished dropped"), 0.25),
        ("ch04.q4", beam_step_with("state in place"), 0.15),
        ("ch04.q4", beam_step_with("no offset"), 0.0),
        ("ch04.q4", beam_step_with("best over the batch"), 0.15),
        ("ch04.q5", pointer_with("repeats"), 0.0),
        ("ch04.q5", pointer_with("padding chosen"), 0.2),
        ("ch04.q5", pointer_with("S steps"), 0.2),
        ("ch04.q5", pointer_with("no feeding"), 0.2),
        ("ch04.q6", alignment_accuracy_with("unaligned counted"), 0.0),
        ("ch04.q6", alignment_accuracy_with("mean per example"), 0.2),
        ("ch04.q6", alignment_accuracy_with("first aligned word"), 0.5),
        ("ch04.q6", alignment_accuracy_with("argmax over targets"), 0.0),
    ],
)
def test_a_classic_mistake_loses_most_points(
    question_id: str, wrong_answer: Callable[..., Any], at_most: float
) -> None:
    assert_loses_most_points(question_id, wrong_answer, at_most)


@pytest.mark.parametrize(
    ("question_id", "wrong_answer", "words"),
    [
        ("ch04.q6", alignment_accuracy_with("first aligned word"), "French"),
    ],
)
def test_a_boundary_mistake_fails_the_case_that_names_it(
    question_id: str, wrong_answer: Callable[..., Any], words: str
) -> None:
    assert_fails_the_case_named(question_id, wrong_answer, words)
