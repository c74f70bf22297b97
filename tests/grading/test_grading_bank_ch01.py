"""Chapter 1's questions: the references agree with independent implementations (brute force,
torch, sacrebleu), the solutions score full marks, and each classic mistake loses most of the
points; ignoring a mask earns almost nothing."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cmp_to_key
from pathlib import Path
from typing import Any

import nbformat
import pytest
import torch
from IPython.core.inputtransformer2 import TransformerManager

from coursekit.grading import (
    Case,
    Question,
    QuestionResult,
    all_questions,
    generate_cases,
    get_question,
    run_question,
)
from coursekit.grading.bank.ch01 import bigram_perplexity_with, vocabulary_with_ties_by

ROOT = Path(__file__).resolve().parents[2]
CHAPTER_1 = [f"ch01.q{number}" for number in range(1, 7)]


def notebook_functions(path: Path) -> dict[str, Any]:
    """Run every code cell of a notebook except the check cells; return what they define."""
    namespace: dict[str, Any] = {}
    transform = TransformerManager().transform_cell
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "code" and cell.metadata.get("coursekit", {}).get("role") != "check":
            exec(compile(transform(cell.source), f"{path.name}:{cell.id}", "exec"), namespace)
    return namespace


def is_plain_data(value: Any) -> bool:
    if value is None or type(value) in (int, float, bool, str) or type(value) is torch.Tensor:
        return True
    if type(value) in (list, tuple):
        return all(is_plain_data(item) for item in value)
    if type(value) is dict:
        return all(type(key) is str and is_plain_data(item) for key, item in value.items())
    return False


def graded(question_id: str, answer: Callable[..., Any]) -> tuple[Question, QuestionResult]:
    """The question and the result of ``answer`` on its cases, as the grader counts them."""
    question = get_question(question_id)
    return question, run_question(question, answer, enforce_forbidden=True)


def assert_loses_most_points(question_id: str, answer: Callable[..., Any], at_most: float) -> None:
    """``answer`` fails the question and earns at most ``at_most`` of its points."""
    question, result = graded(question_id, answer)
    assert result.status in ("failed", "error")
    assert result.points_earned <= at_most * question.points, [c.number for c in result.cases]


def assert_fails_the_case_named(question_id: str, answer: Callable[..., Any], words: str) -> None:
    """The cases whose description contains ``words`` fail, so the answer loses points."""
    question, result = graded(question_id, answer)
    named = [case for case in result.cases if words in case.description]
    assert named, f"no case of {question_id} is described with {words!r}"
    assert not any(case.passed for case in named)
    assert result.points_earned < question.points


def assert_check_names_the_mistake(
    question_id: str, answer: Callable[..., Any], words: str
) -> None:
    """``answer``, a classic mistake written apart from the bank, loses points, and the hints of
    its failing cases name the question's one Mistake whose note holds ``words``, and no other."""
    question = get_question(question_id)
    (note,) = [mistake.note for mistake in question.mistakes if words in mistake.note]
    result = run_question(question, answer)
    assert result.points_earned < question.points
    hints = [note for case in result.cases if not case.passed for note in case.mistakes]
    assert any(note in hint for hint in hints), hints
    for other in question.mistakes:
        if other.note != note:
            assert not any(other.note in hint for hint in hints), other.note


def assert_names_only_its_mistake(
    question_id: str, answer: Callable[..., Any], its_notes: list[str], notes: list[str]
) -> None:
    """Its notes are printed (its cases fail); the other ``notes`` are not (their cases pass);
    cases that name no mistake may pass or fail."""
    _, result = graded(question_id, answer)
    for note in its_notes:
        assert any(note in case.description for case in result.cases), note
    for case in result.cases:
        named = [note for note in notes if note in case.description]
        if set(named) & set(its_notes):
            assert not case.passed, case.description
        elif named:
            assert case.passed, (case.description, case.message)


def cases_of(question_id: str) -> list[Case]:
    return generate_cases(get_question(question_id))


def assert_full_marks(question_id: str, answers: dict[str, Any]) -> None:
    """The notebook's answer to ``question_id`` passes every case, as the grader counts them
    (a forbidden call would fail a case)."""
    question, result = graded(question_id, answers[get_question(question_id).answer_name])
    assert result.status == "passed", [case.message for case in result.cases]
    assert result.points_earned == question.points


@pytest.fixture(scope="module")
def solutions() -> dict[str, Any]:
    return notebook_functions(ROOT / "solutions/01-text.ipynb")


@pytest.fixture(scope="module")
def stubs() -> dict[str, Any]:
    return notebook_functions(ROOT / "exercises/01-text.ipynb")


def test_chapter_1_registers_six_questions() -> None:
    assert [
        question.id for question in all_questions() if question.id.startswith("ch01.")
    ] == CHAPTER_1


@pytest.mark.parametrize("question_id", CHAPTER_1)
def test_cases_are_plain_data_with_descriptions(question_id: str) -> None:
    cases = cases_of(question_id)
    assert len(cases) >= 5
    for case in cases:
        assert is_plain_data(list(case.args)) and is_plain_data(case.kwargs)
        assert case.description
    assert len({case.description for case in cases}) == len(cases)


@pytest.mark.parametrize("question_id", CHAPTER_1)
def test_the_solution_scores_full_marks(question_id: str, solutions: dict[str, Any]) -> None:
    assert_full_marks(question_id, solutions)


@pytest.mark.parametrize("question_id", CHAPTER_1)
def test_the_exercise_stub_is_not_implemented(question_id: str, stubs: dict[str, Any]) -> None:
    question = get_question(question_id)
    assert run_question(question, stubs[question.answer_name]).status == "not implemented"


# The references equal independent implementations ------------------------------------------


def code_point_order(a: str, b: str) -> int:
    """Compare two tokens character by character by their Unicode code points."""
    for x, y in zip(a, b, strict=False):
        if ord(x) != ord(y):
            return ord(x) - ord(y)
    return len(a) - len(b)


def test_the_vocabulary_follows_torchtexts_rule() -> None:
    question = get_question("ch01.q1")
    for case in cases_of("ch01.q1"):
        sentences, min_freq, specials = case.args
        tokens = [token for sentence in sentences for token in sentence]
        distinct = sorted(set(tokens), key=cmp_to_key(code_point_order))
        ranked = sorted(distinct, key=tokens.count, reverse=True)  # stable: ties keep code points
        kept = [t for t in ranked if tokens.count(t) >= min_freq and t not in specials]
        assert question.expected(case) == specials + kept


def test_every_vocabulary_case_has_ties_whose_first_seen_order_is_not_code_point_order() -> None:
    for case in cases_of("ch01.q1"):
        sentences, min_freq, _ = case.args
        tokens = [token for sentence in sentences for token in sentence]
        first_seen = list(dict.fromkeys(tokens))
        tied = [t for t in first_seen if tokens.count(t) == tokens.count("The")]
        assert first_seen.index("The") > first_seen.index("a") and "a" in tied


def test_padding_equals_torch_pad_sequence_and_the_mask_its_lengths() -> None:
    question = get_question("ch01.q2")
    for case in cases_of("ch01.q2"):
        sequences, padding_value = case.args
        padded, mask = question.expected(case)
        expected = torch.nn.utils.rnn.pad_sequence(
            [torch.tensor(sequence) for sequence in sequences],
            batch_first=True,
            padding_value=padding_value,
        )
        torch.testing.assert_close(padded, expected)
        assert mask.dtype == torch.bool
        assert mask.tolist() == [
            [t >= len(sequence) for t in range(padded.shape[1])] for sequence in sequences
        ]


def test_padding_cases_are_mostly_padded_and_hold_the_padding_id_inside() -> None:
    cases = cases_of("ch01.q2")
    padded = [case for case in cases if len({len(s) for s in case.args[0]}) > 1]
    assert len(padded) > len(cases) - len(padded)
    for case in cases:
        sequences, padding_value = case.args
        assert any(padding_value in sequence for sequence in sequences)


def clipped_precision_by(
    clip: Callable[[list[int]], int],
) -> Callable[[list[str], list[list[str]], int], tuple[int, int]]:
    """Clipped matches and n-gram total by brute force, each hypothesis n-gram's count clipped
    by ``clip`` of its counts in the references (``max`` is BLEU's rule)."""

    def precision(hypothesis: list[str], references: list[list[str]], n: int) -> tuple[int, int]:
        def grams(tokens: list[str]) -> list[tuple[str, ...]]:
            return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]

        hypothesis_grams = grams(hypothesis)
        matches = sum(
            min(hypothesis_grams.count(gram), clip([grams(r).count(gram) for r in references]))
            for gram in set(hypothesis_grams)
        )
        return matches, len(hypothesis_grams)

    return precision


def test_clipped_precision_equals_brute_force_and_papineni() -> None:
    question = get_question("ch01.q3")
    cases = cases_of("ch01.q3")
    assert question.expected(cases[0]) == (2, 7)  # Papineni et al. (2002)
    for case in cases:
        assert question.expected(case) == clipped_precision_by(max)(*case.args)


def test_bleu_equals_sacrebleu_from_the_same_statistics() -> None:
    sacrebleu_bleu = pytest.importorskip("sacrebleu.metrics.bleu")
    question = get_question("ch01.q4")
    for case in cases_of("ch01.q4"):
        matches, totals, c, r = case.args
        expected = sacrebleu_bleu.BLEU.compute_bleu(matches, totals, c, r, smooth_method="none")
        assert question.expected(case) == pytest.approx(expected.score, rel=1e-12, abs=1e-12)


def test_bleu_cases_cover_every_length_regime_and_a_zero_match_count() -> None:
    statistics = [case.args for case in cases_of("ch01.q4")]
    assert any(c > r for _, _, c, r in statistics)
    assert any(c == r > 0 for _, _, c, r in statistics)
    assert sum(c < r and min(m) > 0 for m, _, c, r in statistics) >= 5
    assert any(c == 0 for _, _, c, _ in statistics)
    assert any(m[0] > 0 and m[3] == 0 < t[3] for m, t, _, _ in statistics)


def test_known_token_perplexity_equals_a_loop_over_the_positions() -> None:
    question = get_question("ch01.q5")
    for case in cases_of("ch01.q5"):
        nll, tokens, padding_id, unk_id = case.args
        counted = [
            value
            for value, token in zip(nll.flatten().tolist(), tokens.flatten().tolist(), strict=True)
            if token not in (padding_id, unk_id)
        ]
        expected = math.exp(math.fsum(counted) / len(counted))
        assert question.expected(case) == pytest.approx(expected, rel=1e-12)


def test_perplexity_cases_are_mostly_padded_and_all_hold_unknown_tokens() -> None:
    cases = cases_of("ch01.q5")
    padded = [case for case in cases if bool((case.args[1] == case.args[2]).any())]
    assert len(padded) > len(cases) - len(padded)
    for case in cases:
        nll, tokens, padding_id, unk_id = case.args
        assert bool((tokens == unk_id).any())
        assert bool((nll[tokens == padding_id] >= 50).all())
        assert bool((nll[tokens == unk_id] >= 12).all())


Sentences = list[list[int]]


def brute_force_bigram_perplexity(
    train: Sentences, test: Sentences, vocab_size: int, sos_id: int, eos_id: int, k: float
) -> float:
    """Counts read off the framed training sentences by scanning, one probability at a time."""
    framed_train = [[sos_id, *sentence, eos_id] for sentence in train]
    pairs = [pair for framed in framed_train for pair in zip(framed, framed[1:], strict=False)]
    log_probabilities = []
    for sentence in test:
        framed = [sos_id, *sentence, eos_id]
        for context, word in zip(framed, framed[1:], strict=False):
            together = pairs.count((context, word))
            as_context = sum(1 for first, _ in pairs if first == context)
            log_probabilities.append(math.log((together + k) / (as_context + k * vocab_size)))
    return math.exp(-math.fsum(log_probabilities) / len(log_probabilities))


def test_bigram_perplexity_equals_brute_force_counting() -> None:
    question = get_question("ch01.q6")
    for case in cases_of("ch01.q6"):
        expected = brute_force_bigram_perplexity(*case.args)
        assert question.expected(case) == pytest.approx(expected, rel=1e-12)


def test_bigram_perplexity_tends_to_the_vocabulary_size_as_k_grows() -> None:
    train, test, vocab_size, sos_id, eos_id, _ = cases_of("ch01.q6")[0].args
    heavy = get_question("ch01.q6").reference(train, test, vocab_size, sos_id, eos_id, 1e9)
    assert heavy == pytest.approx(vocab_size, rel=1e-6)


def framed_bigrams(sentences: list[list[int]], sos_id: int, eos_id: int) -> set[tuple[int, int]]:
    framed = [[sos_id, *sentence, eos_id] for sentence in sentences]
    return {pair for f in framed for pair in zip(f, f[1:], strict=False)}


def test_every_bigram_test_set_holds_an_unseen_bigram() -> None:
    for case in cases_of("ch01.q6"):
        train, test, _, sos_id, eos_id, _ = case.args
        assert framed_bigrams(test, sos_id, eos_id) - framed_bigrams(train, sos_id, eos_id)


# Classic mistakes lose most of the points -----------------------------------------------------


def vocab_with_strict_min_freq(sentences, min_freq, specials):
    tokens = [token for sentence in sentences for token in sentence]
    ranked = sorted(set(tokens), key=lambda t: (-tokens.count(t), t))
    return specials + [t for t in ranked if tokens.count(t) > min_freq and t not in specials]


def vocab_listing_specials_twice(sentences, min_freq, specials):
    tokens = [token for sentence in sentences for token in sentence]
    ranked = sorted(set(tokens), key=lambda t: (-tokens.count(t), t))
    return specials + [t for t in ranked if tokens.count(t) >= min_freq]


def padded_batch(sequences: list[list[int]], padding_value: int) -> torch.Tensor:
    return torch.nn.utils.rnn.pad_sequence(
        [torch.tensor(s) for s in sequences], batch_first=True, padding_value=padding_value
    )


def mask_from_values(sequences, padding_value):
    padded = padded_batch(sequences, padding_value)
    return padded, padded == padding_value


def mask_inverted(sequences, padding_value):
    padded = padded_batch(sequences, padding_value)
    lengths = torch.tensor([len(s) for s in sequences])
    return padded, torch.arange(padded.shape[1]) < lengths.unsqueeze(1)


def unclipped_precision(hypothesis, references, n):
    grams = [tuple(hypothesis[i : i + n]) for i in range(len(hypothesis) - n + 1)]
    in_any = {tuple(r[i : i + n]) for r in references for i in range(len(r) - n + 1)}
    return sum(gram in in_any for gram in grams), len(grams)


def bleu_with(
    brevity: Callable[[int, int], float], mean: str = "geometric", scale: float = 100
) -> Callable[..., float]:
    def answer(matches, totals, c, r):
        if min(matches) == 0:
            return 0.0
        precisions = [m / t for m, t in zip(matches, totals, strict=True)]
        if mean == "geometric":
            average = math.exp(sum(math.log(p) for p in precisions) / 4)
        else:
            average = sum(precisions) / 4
        return scale * brevity(c, r) * average

    return answer


def chapter_brevity(c: int, r: int) -> float:
    return 1.0 if c > r else math.exp(1 - r / c)


def bleu_taking_the_log_of_zero(matches, totals, c, r):
    log_precisions = [math.log(m / t) for m, t in zip(matches, totals, strict=True)]
    return 100 * chapter_brevity(c, r) * math.exp(sum(log_precisions) / 4)


def perplexity_over(keep: Callable[..., torch.Tensor], denominator: str = "kept"):
    def answer(nll, tokens, padding_id, unk_id):
        kept = keep(tokens, padding_id, unk_id)
        count = kept.sum().item() if denominator == "kept" else nll.numel()
        return math.exp(nll[kept].sum().item() / count)

    return answer


def known(tokens, padding_id, unk_id):
    return (tokens != padding_id) & (tokens != unk_id)


def bigram_in_float32(*args):
    """The right perplexity, rounded to float32 on the way out."""
    return float(torch.tensor(bigram_perplexity_with()(*args), dtype=torch.float32))


@pytest.mark.parametrize(
    ("question_id", "wrong_answer", "at_most"),
    [
        ("ch01.q1", vocabulary_with_ties_by(lambda token: 0), 0.2),
        ("ch01.q1", vocabulary_with_ties_by(str.lower), 0.2),
        ("ch01.q1", vocab_with_strict_min_freq, 0.2),
        ("ch01.q1", vocab_listing_specials_twice, 0.2),
        ("ch01.q2", mask_from_values, 0.0),
        ("ch01.q2", mask_inverted, 0.0),
        ("ch01.q3", unclipped_precision, 0.2),
        ("ch01.q3", clipped_precision_by(sum), 0.2),
        ("ch01.q4", bleu_with(lambda c, r: 1.0), 0.5),
        ("ch01.q4", bleu_with(lambda c, r: 1.0 if c > r else math.exp(1 - c / r)), 0.5),
        ("ch01.q4", bleu_with(chapter_brevity, mean="arithmetic"), 0.3),
        ("ch01.q4", bleu_with(chapter_brevity, scale=1), 0.3),
        ("ch01.q5", perplexity_over(lambda t, pad, unk: torch.ones_like(t, dtype=torch.bool)), 0.0),
        ("ch01.q5", perplexity_over(lambda t, pad, unk: t != pad), 0.0),
        ("ch01.q5", perplexity_over(lambda t, pad, unk: t != unk), 0.2),
        ("ch01.q5", perplexity_over(known, denominator="all"), 0.0),
        ("ch01.q6", bigram_perplexity_with(framing="no eos"), 0.0),
        ("ch01.q6", bigram_perplexity_with(framing="no sos"), 0.0),
        ("ch01.q6", bigram_perplexity_with(vocabulary="seen"), 0.2),
        ("ch01.q6", bigram_in_float32, 0.0),
    ],
)
def test_a_classic_mistake_loses_most_points(
    question_id: str, wrong_answer: Callable[..., Any], at_most: float
) -> None:
    assert_loses_most_points(question_id, wrong_answer, at_most)


def padding_always_zero(sequences, padding_value):
    padded = padded_batch(sequences, 0)
    lengths = torch.tensor([len(s) for s in sequences])
    return padded, torch.arange(padded.shape[1]) >= lengths.unsqueeze(1)


def test_the_right_bigram_counts_score_full_marks() -> None:
    """The mistakes of ch01.q6 change one thing of the bank's own correct count."""
    question, result = graded("ch01.q6", bigram_perplexity_with())
    assert result.points_earned == question.points


@pytest.mark.parametrize(
    ("question_id", "wrong_answer", "words"),
    [
        ("ch01.q1", vocab_with_strict_min_freq, "exactly min_freq"),
        ("ch01.q1", vocab_listing_specials_twice, "listed again"),
        ("ch01.q2", mask_from_values, "read from the values"),
        ("ch01.q2", mask_inverted, "inverted"),
        ("ch01.q2", padding_always_zero, "whatever padding_value"),
        ("ch01.q3", unclipped_precision, "not clipped"),
        ("ch01.q3", clipped_precision_by(sum), "sum over the references"),
        ("ch01.q4", bleu_with(lambda c, r: 1.0), "left out"),
        ("ch01.q4", bleu_with(lambda c, r: 1.0 if c > r else math.exp(1 - c / r)), "1 - c/r"),
        ("ch01.q4", bleu_with(lambda c, r: math.exp(1 - r / c)), "when c > r too"),
        ("ch01.q4", bleu_with(chapter_brevity, mean="arithmetic"), "arithmetically"),
        ("ch01.q4", bleu_with(chapter_brevity, scale=1), "0-1 scale"),
        (
            "ch01.q5",
            perplexity_over(lambda t, pad, unk: torch.ones_like(t, dtype=torch.bool)),
            "and <unk> are",
        ),
        ("ch01.q5", perplexity_over(lambda t, pad, unk: t != pad), "<unk> tokens are"),
        ("ch01.q5", perplexity_over(lambda t, pad, unk: t != unk), "the padding is"),
        ("ch01.q5", perplexity_over(known, denominator="all"), "B * T"),
    ],
)
def test_check_names_a_classic_mistake_written_apart_from_the_bank(
    question_id: str, wrong_answer: Callable[..., Any], words: str
) -> None:
    assert_check_names_the_mistake(question_id, wrong_answer, words)


def test_a_bleu_that_takes_the_log_of_zero_fails_the_cases_with_a_zero_count() -> None:
    _, result = graded("ch01.q4", bleu_taking_the_log_of_zero)
    for case, outcome in zip(cases_of("ch01.q4"), result.cases, strict=True):
        matches, totals, _, _ = case.args
        assert outcome.status == ("passed" if min(matches) > 0 else "error"), case.description
    assert any(min(case.args[0]) == 0 < min(case.args[1]) for case in cases_of("ch01.q4"))
