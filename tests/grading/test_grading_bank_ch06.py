"""Chapter 6's questions: the references agree with Hugging Face ``tokenizers`` (WordPiece, pair
truncation), with coursekit's masking replayed draw for draw, with brute force (merges, spans)
and with the parameters of coursekit's and Hugging Face's BERT models; the solutions score full
marks; each classic mistake loses most of the points, and ignoring a mask earns almost nothing."""

from __future__ import annotations

from collections import Counter
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

from coursekit.grading import get_question
from coursekit.models import BertConfig, BertForPreTraining, BertModel
from coursekit.pretrain import mask_tokens
from coursekit.text import train_wordpiece

tokenizers = pytest.importorskip("tokenizers")
CHAPTER_6 = [f"ch06.q{number}" for number in range(1, 7)]
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def test_the_solutions_score_full_marks() -> None:
    """(Registration, case data and stubs: test_grading_banks.py checks every chapter.)"""
    solutions = notebook_functions(ROOT / "solutions/06-bert.ipynb")
    for question_id in CHAPTER_6:
        assert_full_marks(question_id, solutions)


# The references equal independent implementations ------------------------------------------


def test_wordpiece_equals_hugging_face_wordpiece_model() -> None:
    question = get_question("ch06.q1")
    for case in cases_of("ch06.q1"):
        words, vocab, max_chars = case.args
        model = tokenizers.models.WordPiece(
            {token: index for index, token in enumerate(vocab)},
            unk_token="[UNK]",
            max_input_chars_per_word=max_chars,
        )
        tokenizer = tokenizers.Tokenizer(model)
        tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
        expected = [tokenizer.encode(word).tokens for word in words]
        assert question.expected(case) == expected


def test_pair_input_equals_hugging_face_longest_first_truncation() -> None:
    question = get_question("ch06.q2")
    words = [f"{prefix}{index}" for prefix in "ab" for index in range(100)]
    tokenizer = tokenizers.BertWordPieceTokenizer(
        {token: index for index, token in enumerate(SPECIALS + words)}
    )
    for case in cases_of("ch06.q2"):
        tokens_a, tokens_b, max_length = case.args
        tokenizer.enable_truncation(max_length, strategy="longest_first")
        pair = None if tokens_b is None else " ".join(tokens_b)
        encoding = tokenizer.encode(" ".join(tokens_a), pair)
        assert question.expected(case) == (encoding.tokens, encoding.type_ids)


def test_masking_replays_coursekits_mask_tokens_draw_for_draw() -> None:
    """mask_tokens draws the selection, the replacement and the random token index in that
    order; fed the same draws, the reference corrupts exactly as it does."""
    question = get_question("ch06.q3")
    word_ids = torch.arange(5, 40)
    for seed in range(8):
        input_ids = torch.randint(5, 40, (4, 30), generator=torch.Generator().manual_seed(seed))
        input_ids[:, 0], input_ids[1:, 20:] = 2, 0
        maskable = input_ids > 4
        generator = torch.Generator().manual_seed(1000 + seed)
        replay = torch.Generator().manual_seed(1000 + seed)
        corrupted, labels = mask_tokens(input_ids, maskable, 4, word_ids, generator)
        select = torch.rand(input_ids.shape, generator=replay).double()
        replace = torch.rand(input_ids.shape, generator=replay).double()
        random_ids = word_ids[torch.randint(len(word_ids), input_ids.shape, generator=replay)]
        expected = question.reference(input_ids, maskable, select, replace, random_ids, 4)
        torch.testing.assert_close(expected, (corrupted, labels), rtol=0, atol=0)


def test_every_masking_branch_occurs_and_padding_is_drawn_below_the_threshold() -> None:
    question = get_question("ch06.q3")
    branches: Counter[str] = Counter()
    for case in cases_of("ch06.q3"):
        input_ids, maskable, select, replace, random_ids, mask_id = case.args
        corrupted, labels = question.expected(case)
        chosen = labels != -100
        branches["mask"] += int((chosen & (corrupted == mask_id)).sum())
        branches["random"] += int((chosen & (corrupted == random_ids) & (replace >= 0.8)).sum())
        branches["kept"] += int((chosen & (replace >= 0.9)).sum())
        branches["unmaskable below 0.15"] += int((~maskable & (select < 0.15)).sum())
    assert min(branches.values()) >= 3, branches


Pair = tuple[str, str]


def counts(
    spellings: dict[str, list[str]], weights: dict[str, int]
) -> tuple[Counter[str], Counter[Pair]]:
    """How often each symbol and each adjacent pair occurs, each word counted ``weights[word]``
    times."""
    symbols: Counter[str] = Counter()
    pairs: Counter[Pair] = Counter()
    for word, spelling in spellings.items():
        for symbol in spelling:
            symbols[symbol] += weights[word]
        for pair in zip(spelling, spelling[1:], strict=False):
            pairs[pair] += weights[word]
    return symbols, pairs


def respelled(spelling: list[str], pair: Pair, merged: str) -> list[str]:
    """``spelling`` with every adjacent ``pair``, left to right, replaced by ``merged``."""
    result, index = [], 0
    while index < len(spelling):
        if tuple(spelling[index : index + 2]) == pair:
            result.append(merged)
            index += 2
        else:
            result.append(spelling[index])
            index += 1
    return result


def brute_force_merges(word_counts: dict[str, int], num_merges: int) -> list[str]:
    """Recount every symbol and pair after every merge; ties to the first pair in string order."""
    spellings = {word: [word[0], *(f"##{char}" for char in word[1:])] for word in word_counts}
    merges = []
    for _ in range(num_merges):
        symbols, pairs = counts(spellings, word_counts)
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p] / (symbols[p[0]] * symbols[p[1]]), p))
        merged = best[0] + best[1].removeprefix("##")
        spellings = {word: respelled(s, best, merged) for word, s in spellings.items()}
        merges.append(merged)
    return merges


def test_merges_equal_brute_force_and_coursekits_trainer() -> None:
    question = get_question("ch06.q4")
    for case in cases_of("ch06.q4"):
        word_counts, num_merges = case.args
        merges = question.expected(case)
        assert merges == brute_force_merges(word_counts, num_merges)
        text = [" ".join([word] * count) for word, count in word_counts.items()]
        alphabet = {f"##{char}" if i else char for w in word_counts for i, char in enumerate(w)}
        size = len(SPECIALS) + len(alphabet) + len(merges)
        vocab = train_wordpiece(text, size, min_pair_count=1, special_tokens=SPECIALS)
        new = [symbol for symbol in merges if symbol not in alphabet]
        assert vocab[len(SPECIALS) + len(alphabet) :] == list(dict.fromkeys(new))


def test_the_first_merge_is_not_the_most_frequent_pair() -> None:
    """Case 1 is the classic example: WordPiece's ##gs against BPE's ##ug."""
    (word_counts, _), merges = cases_of("ch06.q4")[0].args, get_question("ch06.q4").reference
    assert merges(word_counts, 1) == ["##gs"]


def test_best_span_equals_brute_force_over_all_spans() -> None:
    question = get_question("ch06.q5")
    for case in cases_of("ch06.q5"):
        start_logits, end_logits, allowed, max_length = case.args
        starts, ends = [], []
        for b in range(start_logits.shape[0]):
            spans = [
                (float(start_logits[b, i] + end_logits[b, j]), i, j)
                for i in range(start_logits.shape[1])
                for j in range(i, min(i + max_length, start_logits.shape[1]))
                if allowed[b, i] and allowed[b, j]
            ]
            scores = sorted(score for score, _, _ in spans)
            assert scores[-1] > scores[-2]  # no tie for the best span
            _, i, j = max(spans)
            starts.append(i)
            ends.append(j)
        torch.testing.assert_close(
            question.expected(case), (torch.tensor(starts), torch.tensor(ends))
        )


def test_the_span_cases_catch_the_independent_argmax_and_the_length() -> None:
    """Where the best start and the best end are taken apart, the end lies before the start or
    the span is too long, in the cases that say so."""
    for case in cases_of("ch06.q5")[1:3]:
        start_logits, end_logits, allowed, max_length = case.args
        start = start_logits.masked_fill(~allowed, -torch.inf).argmax(1)
        end = end_logits.masked_fill(~allowed, -torch.inf).argmax(1)
        assert bool(((end < start) | (end - start + 1 > max_length)).all())


def test_parameter_count_equals_coursekit_and_hugging_face_models() -> None:
    transformers = pytest.importorskip("transformers")
    question = get_question("ch06.q6")
    for case in cases_of("ch06.q6"):
        V, H, L, A, inner, P, S, heads = case.args  # noqa: N806 - the book's letters
        sizes = {
            "vocab_size": V,
            "hidden_size": H,
            "num_hidden_layers": L,
            "num_attention_heads": A,
            "intermediate_size": inner,
            "max_position_embeddings": P,
            "type_vocab_size": S,
        }
        with torch.device("meta"):
            ours = (BertForPreTraining if heads else BertModel)(BertConfig(**sizes))
        count = question.expected(case)
        assert count == sum(parameter.numel() for parameter in ours.parameters())
        if H <= 128:  # Hugging Face's models too, where they build in a moment
            theirs_class = transformers.BertForPreTraining if heads else transformers.BertModel
            theirs = theirs_class(transformers.BertConfig(**sizes))
            assert count == sum(parameter.numel() for parameter in theirs.parameters())


def test_bert_base_and_large_have_the_sources_sizes() -> None:
    base, large = (get_question("ch06.q6").expected(case) for case in cases_of("ch06.q6")[:2])
    assert round(base, -7) == 110_000_000 and round(large, -7) == 340_000_000


# Classic mistakes lose most of the points -----------------------------------------------------


def wordpiece_with(mistake: str) -> Callable[..., Any]:
    """WordPiece with one mistake: the shortest match, no '##', '##' on every piece, the pieces
    before a failure kept, backtracking, or max_chars off by one or ignored."""

    def pieces_of(word: str, known: set[str], start: int) -> list[str] | None:
        if start == len(word):
            return []
        ends = range(start + 1, len(word) + 1)
        for end in ends if mistake == "shortest" else reversed(ends):
            prefix = "" if mistake == "no ##" or (start == 0 and mistake != "## first") else "##"
            piece = prefix + word[start:end]
            if piece in known:
                rest = pieces_of(word, known, end)
                if rest is not None:
                    return [piece, *rest]
                if mistake == "partial":
                    return [piece, "[UNK]"]
                if mistake != "backtracking":
                    return None
        return None

    def answer(words: list[str], vocab: list[str], max_chars: int) -> list[list[str]]:
        limit = {"max_chars >=": max_chars - 1, "no max_chars": 10**9}.get(mistake, max_chars)
        return [
            ["[UNK]"] if len(word) > limit else (pieces_of(word, set(vocab), 0) or ["[UNK]"])
            for word in words
        ]

    return answer


def pair_input_with(mistake: str) -> Callable[..., Any]:
    """The pair input with one mistake: the last [SEP] in segment 0, a budget of max_length - 2,
    only B cut, tokens cut from the front, or the odd token to the other text."""

    def answer(tokens_a, tokens_b, max_length):
        if tokens_b is None:
            kept = tokens_a[: max_length - 2]
            return ["[CLS]", *kept, "[SEP]"], [0] * (len(kept) + 2)
        budget = max_length - (2 if mistake == "budget" else 3)
        a, b = len(tokens_a), len(tokens_b)
        if a + b > budget:
            if mistake == "only B":
                b = max(0, budget - a)
            else:
                short, long = min(a, b), max(a, b)
                if 2 * short <= budget:
                    short, long = short, budget - short
                elif mistake == "odd token":
                    short, long = budget - budget // 2, budget // 2
                else:
                    short, long = budget // 2, budget - budget // 2
                a, b = (short, long) if a <= b else (long, short)
        cut = (
            (lambda tokens, n: tokens[len(tokens) - n :])
            if mistake == "front"
            else (lambda tokens, n: tokens[:n])
        )
        first, second = ["[CLS]", *cut(tokens_a, a), "[SEP]"], [*cut(tokens_b, b), "[SEP]"]
        last_segment = 0 if mistake == "last [SEP] in segment 0" else 1
        return first + second, [0] * len(first) + [1] * (len(second) - 1) + [last_segment]

    return answer


def masking_with(mistake: str) -> Callable[..., Any]:
    """The MLM corruption with one mistake: labels everywhere, labels of the corrupted tokens,
    maskable ignored, [MASK] on 80 % of all tokens, the two 10 % swapped, or <= thresholds."""

    def answer(input_ids, maskable, select, replace, random_ids, mask_id):
        below = (lambda x, t: x <= t) if mistake == "<=" else (lambda x, t: x < t)
        chosen = below(select, 0.15) & (maskable if mistake != "maskable ignored" else True)
        corrupted = input_ids.clone()
        masked = below(replace, 0.8) & (chosen if mistake != "80% of all" else True)
        corrupted[masked] = mask_id
        if mistake == "10/10 swapped":
            random = chosen & (replace >= 0.9)
        else:
            random = chosen & (replace >= 0.8) & below(replace, 0.9)
        corrupted[random] = random_ids[random]
        source = corrupted if mistake == "corrupted labels" else input_ids
        labels = torch.where(chosen, source, torch.full_like(input_ids, -100))
        return corrupted, input_ids.clone() if mistake == "labels everywhere" else labels

    return answer


def merges_with(mistake: str) -> Callable[..., Any]:
    """The merges with one mistake: BPE's criterion, counts of distinct words, no '##'
    spelling, '##' kept inside a merge, or scores computed once and never updated."""

    def answer(word_counts: dict[str, int], num_merges: int) -> list[str]:
        weights = {word: 1 if mistake == "unweighted" else n for word, n in word_counts.items()}
        prefix = "" if mistake == "no ##" else "##"
        spellings = {word: [word[0], *(prefix + c for c in word[1:])] for word in word_counts}
        merges: list[str] = []
        ranked: list[Pair] | None = None
        while len(merges) < num_merges:
            symbols, pairs = counts(spellings, weights)
            scores = {
                pair: count if mistake == "BPE" else count / (symbols[pair[0]] * symbols[pair[1]])
                for pair, count in pairs.items()
            }
            if mistake == "scores once":
                ranked = ranked or sorted(sorted(pairs), key=scores.__getitem__, reverse=True)
            else:
                ranked = sorted(sorted(pairs), key=scores.__getitem__, reverse=True)
            if not ranked:
                break
            best = ranked.pop(0)
            joined = best[0] + (best[1] if mistake == "## kept" else best[1].removeprefix("##"))
            spellings = {word: respelled(s, best, joined) for word, s in spellings.items()}
            merges.append(joined)
        return merges

    return answer


def best_span_with(mistake: str) -> Callable[..., Any]:
    """The span with one mistake: best start and end apart, allowed ignored, one token too long,
    or no length limit."""

    def answer(start_logits: Tensor, end_logits: Tensor, allowed: Tensor, max_length: int):
        if mistake == "independent":
            start = start_logits.masked_fill(~allowed, -torch.inf).argmax(1)
            return start, end_logits.masked_fill(~allowed, -torch.inf).argmax(1)
        length = start_logits.shape[1]
        i, j = torch.arange(length)[:, None], torch.arange(length)[None, :]
        limit = {"one too long": max_length + 1, "no limit": length}.get(mistake, max_length)
        valid = (j >= i) & (j < i + limit)
        if mistake != "allowed ignored":
            valid = valid & allowed[:, :, None] & allowed[:, None, :]
        scores = start_logits[:, :, None] + end_logits[:, None, :]
        best = scores.masked_fill(~valid, -torch.inf).flatten(1).argmax(1)
        return best // length, best % length

    return answer


def parameter_count_with(mistake: str) -> Callable[..., Any]:
    """The count with one mistake: attention weights per head, no pooler, no LayerNorms, the
    output layer's matrix counted apart from E, no biases, or no position/segment tables."""

    def answer(V, H, L, A, inner, P, S, heads):  # noqa: N803 - the book's letters
        bias = 0 if mistake == "no biases" else 1
        norm = 0 if mistake == "no LayerNorm" else 2 * H
        tables = V if mistake == "word embeddings only" else V + P + S
        attention = 4 * (H * H + bias * H) * (A if mistake == "per head" else 1)
        layer = attention + (H * inner + bias * inner) + (inner * H + bias * H) + 2 * norm
        total = tables * H + norm + L * layer + (0 if mistake == "no pooler" else H * H + bias * H)
        if heads:
            total += H * H + bias * H + norm + bias * V + 2 * H + 2 * bias
            total += V * H if mistake == "untied" else 0
        return total

    return answer


@pytest.mark.parametrize(
    ("question_id", "wrong_answer", "at_most"),
    [
        ("ch06.q1", wordpiece_with("shortest"), 0.15),
        ("ch06.q1", wordpiece_with("no ##"), 0.3),
        ("ch06.q1", wordpiece_with("## first"), 0.0),
        ("ch06.q2", pair_input_with("last [SEP] in segment 0"), 0.25),
        ("ch06.q2", pair_input_with("budget"), 0.35),
        ("ch06.q2", pair_input_with("front"), 0.35),
        ("ch06.q3", masking_with("labels everywhere"), 0.0),
        ("ch06.q3", masking_with("corrupted labels"), 0.15),
        ("ch06.q3", masking_with("maskable ignored"), 0.15),
        ("ch06.q3", masking_with("80% of all"), 0.0),
        ("ch06.q3", masking_with("10/10 swapped"), 0.3),
        ("ch06.q4", merges_with("BPE"), 0.15),
        ("ch06.q4", merges_with("no ##"), 0.15),
        ("ch06.q4", merges_with("## kept"), 0.0),
        ("ch06.q4", merges_with("scores once"), 0.15),
        ("ch06.q5", best_span_with("independent"), 0.0),
        ("ch06.q5", best_span_with("allowed ignored"), 0.2),
        ("ch06.q6", parameter_count_with("per head"), 0.15),
        ("ch06.q6", parameter_count_with("no pooler"), 0.0),
        ("ch06.q6", parameter_count_with("no LayerNorm"), 0.0),
        ("ch06.q6", parameter_count_with("no biases"), 0.0),
        ("ch06.q6", parameter_count_with("word embeddings only"), 0.0),
    ],
)
def test_a_classic_mistake_loses_most_points(
    question_id: str, wrong_answer: Callable[..., Any], at_most: float
) -> None:
    assert_loses_most_points(question_id, wrong_answer, at_most)


@pytest.mark.parametrize(
    ("question_id", "wrong_answer", "words"),
    [
        ("ch06.q1", wordpiece_with("partial"), "not the pieces found before it"),
        ("ch06.q1", wordpiece_with("backtracking"), "no backtracking"),
        ("ch06.q1", wordpiece_with("max_chars >="), "max_chars=10"),
        ("ch06.q1", wordpiece_with("no max_chars"), "max_chars=10"),
        ("ch06.q2", pair_input_with("only B"), "A is the longer one"),
        ("ch06.q2", pair_input_with("odd token"), "odd token"),
        ("ch06.q3", masking_with("<="), "boundaries"),
        ("ch06.q4", merges_with("unweighted"), "weighted by word frequency"),
        ("ch06.q5", best_span_with("one too long"), "j - i + 1 <= 4"),
        ("ch06.q5", best_span_with("no limit"), "max_answer_length=4"),
        ("ch06.q6", parameter_count_with("untied"), "tied"),
    ],
)
def test_a_boundary_mistake_fails_the_case_that_names_it(
    question_id: str, wrong_answer: Callable[..., Any], words: str
) -> None:
    assert_fails_the_case_named(question_id, wrong_answer, words)


def test_masked_cases_are_mostly_padded() -> None:
    for question_id in ("ch06.q3", "ch06.q5"):
        cases = cases_of(question_id)
        padded = [
            case for case in cases if "padd" in case.description or "question" in case.description
        ]
        assert len(padded) >= 2 * (len(cases) - len(padded)) + 1, question_id
