"""Chapter 6's questions: the references agree with brute force (the fewest pieces, merges, the
answer or no answer), with Hugging Face ``tokenizers`` (pair truncation), with coursekit's
masking replayed draw for draw, with the parameters of coursekit's and Hugging Face's BERT
models and with a probe trained by ``torch.optim.SGD``; the solutions score full marks; each
classic mistake loses most of the points or fails the cases that name it, and the mistakes that
the cases of questions 1, 5 and 7 name each fail only the cases that name them."""

from __future__ import annotations

import itertools
from collections import Counter
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
    notebook_functions,
)
from torch import Tensor

from coursekit.grading import get_question
from coursekit.grading.bank import ch06
from coursekit.models import BertConfig, BertForPreTraining, BertModel
from coursekit.pretrain import mask_tokens
from coursekit.text import train_wordpiece
from coursekit.text.wordpiece import greedy_longest_match

tokenizers = pytest.importorskip("tokenizers")
CHAPTER_6 = [f"ch06.q{number}" for number in range(1, 8)]
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def test_the_solutions_score_full_marks() -> None:
    """(Registration, case data and stubs: test_grading_banks.py checks every chapter.)"""
    solutions = notebook_functions(ROOT / "solutions/06-bert.ipynb")
    for question_id in CHAPTER_6:
        assert_full_marks(question_id, solutions)


# The references equal independent implementations ------------------------------------------


def spellings(word: str, known: set[str]) -> list[list[str]]:
    """Every way to cut ``word`` into pieces of ``known``: the first piece plain, the others
    ``##`` continuations."""
    if not word:
        return [[]]
    found = []
    for cut in itertools.product([False, True], repeat=len(word) - 1):
        bounds = [0, *(i + 1 for i, c in enumerate(cut) if c), len(word)]
        pieces = [
            ("##" if k else "") + word[first:last]
            for k, (first, last) in enumerate(itertools.pairwise(bounds))
        ]
        if all(piece in known for piece in pieces):
            found.append(pieces)
    return found


def test_fewest_pieces_equal_brute_force_over_every_spelling() -> None:
    """The fewest pieces, ties to the longest first piece, then the longest second, ..."""
    question = get_question("ch06.q1")
    for case in cases_of("ch06.q1"):
        words, vocab = case.args
        expected = []
        for word in words:
            found = spellings(word, set(vocab))
            fewest = min((len(pieces) for pieces in found), default=0)
            candidates = [pieces for pieces in found if len(pieces) == fewest]
            lengths = [[len(piece.removeprefix("##")) for piece in p] for p in candidates]
            expected.append(candidates[lengths.index(max(lengths))] if found else ["[UNK]"])
        assert question.expected(case) == expected


def test_the_greedy_longest_match_differs_where_the_cases_say() -> None:
    """The chapter's tokenizer (Hugging Face's rule) finds no spelling of 'hugs' and 3 pieces
    of 'thereafter'; the random words hold another word where it is not the fewest."""
    for case in cases_of("ch06.q1"):
        words, vocab = case.args
        greedy = [greedy_longest_match(word, set(vocab), "[UNK]") for word in words]
        fewest = get_question("ch06.q1").expected(case)
        differs = greedy != fewest
        named = any(note in case.description for note in (ch06.NOT_GREEDY, ch06.NOT_FIRST_FOUND))
        assert differs == (named or "random" in case.description), case.description


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


def brute_force_answers(
    start: Tensor, end: Tensor, allowed: Tensor, threshold: float
) -> list[tuple[float, float, int, int]]:
    """For each row: the best span's score, the null score, and the answer, by trying every
    span i <= j of allowed positions."""
    rows = []
    for b in range(start.shape[0]):
        score, i, j = max(
            (float(start[b, i] + end[b, j]), i, j)
            for i in range(start.shape[1])
            for j in range(i, start.shape[1])
            if allowed[b, i] and allowed[b, j]
        )
        null = float(start[b, 0] + end[b, 0])
        rows.append((score, null, *((i, j) if score > null + threshold else (0, 0))))
    return rows


def test_answer_or_null_equals_brute_force_over_all_spans() -> None:
    question = get_question("ch06.q5")
    for case in cases_of("ch06.q5"):
        rows = brute_force_answers(*case.args)
        expected = (torch.tensor([r[2] for r in rows]), torch.tensor([r[3] for r in rows]))
        torch.testing.assert_close(question.expected(case), expected, rtol=0, atol=0)


def test_no_span_ties_and_only_the_named_row_is_on_the_threshold() -> None:
    """The best span of each row beats the second by the planted lead or a random gap, and its
    score is 0.25 or more from the null score plus the threshold, except in the first row of the
    case that tests the strict comparison, where the two are equal (quarters, exact in float)."""
    for case in cases_of("ch06.q5"):
        start, end, allowed, threshold = case.args
        for b, (score, null, _, _) in enumerate(brute_force_answers(*case.args)):
            spans = sorted(
                float(start[b, i] + end[b, j])
                for i in range(start.shape[1])
                for j in range(i, start.shape[1])
                if allowed[b, i] and allowed[b, j]
            )
            assert spans[-1] - spans[-2] > 1e-3
            if ch06.STRICTLY in case.description and b == 0:
                assert score == null + threshold
            else:
                assert abs(score - null - threshold) >= 0.25


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


def sgd_probe(train_x, train_y, test_x, test_y, num_classes, steps, lr):
    """The probe as torch trains it: nn.Linear from zero, F.cross_entropy (which skips -100),
    torch.optim.SGD; accuracies over the positions not labelled -100."""
    probe = torch.nn.Linear(train_x.shape[-1], num_classes, dtype=torch.float64)
    torch.nn.init.zeros_(probe.weight)
    torch.nn.init.zeros_(probe.bias)
    optimizer = torch.optim.SGD(probe.parameters(), lr=lr)
    for _ in range(steps):
        optimizer.zero_grad()
        F.cross_entropy(probe(train_x).flatten(0, 1), train_y.flatten()).backward()
        optimizer.step()
    with torch.no_grad():
        return tuple(
            float((probe(x).argmax(-1) == y)[y != -100].double().mean())
            for x, y in ((train_x, train_y), (test_x, test_y))
        )


def test_probe_equals_torch_sgd_on_a_linear_layer() -> None:
    question = get_question("ch06.q7")
    for case in cases_of("ch06.q7"):
        assert question.expected(case) == sgd_probe(*case.args)


def test_probe_predictions_are_far_from_ties_so_float32_answers_pass() -> None:
    """The two best classes of every labelled position differ by 1e-3 or more, so that a
    probe trained in float32 predicts the same tags (and the check's one position of slack is
    for other roundings)."""
    for case in cases_of("ch06.q7"):
        train_x, train_y, test_x, test_y, num_classes, steps, lr = case.args
        weight, bias = ch06._probe_fit(train_x, train_y, num_classes, steps, lr)
        for x, y in ((train_x, train_y), (test_x, test_y)):
            top = (x[y != -100] @ weight + bias).topk(2, dim=-1).values
            assert float((top[:, 0] - top[:, 1]).min()) > 1e-3
    assert_full_marks("ch06.q7", {"probe_accuracy": probe_in_float32})


def test_the_probe_learns_the_tags_and_only_memorises_the_control_task() -> None:
    """The finding of the experiment: high held-out accuracy where the vectors encode the tags,
    chance where the tags are random, although the probe fits both training sets."""
    real, control = cases_of("ch06.q7")[:2]
    assert real.description.startswith("2 tags the vectors encode")
    assert control.description.startswith("control task")
    real_train, real_test = get_question("ch06.q7").expected(real)
    control_train, control_test = get_question("ch06.q7").expected(control)
    assert real_train >= 0.95 and real_test >= 0.8
    assert control_train >= 0.95 and control_test <= 0.65


# Classic mistakes lose most of the points -----------------------------------------------------


def fewest_pieces_with(mistake: str) -> Callable[..., Any]:
    """The fewest pieces with one mistake: the chapter's greedy longest match, the first
    spelling found by longest pieces first with backtracking, ties to the shorter first piece
    (a dynamic programme from the start), a word with no spelling dropped, no '##' on the
    continuations, or '##' on the first piece too."""

    def first_found(word: str, known: set[str], start: int, backtrack: bool) -> list[str] | None:
        if start == len(word):
            return []
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in known:
                rest = first_found(word, known, end, backtrack)
                if rest is not None:
                    return [piece, *rest]
                if not backtrack:
                    return None
        return None

    def from_the_start(word: str, known: set[str]) -> list[str] | None:
        first, rest = {"no ##": ("", ""), "## first": ("##", "##")}.get(mistake, ("", "##"))
        best: list[list[str] | None] = [[]] + [None] * len(word)
        for end in range(1, len(word) + 1):
            for start in range(end):
                piece = (rest if start else first) + word[start:end]
                before = best[start]
                shorter = best[end] is None or len(before or []) + 1 < len(best[end] or [])
                if piece in known and before is not None and shorter:
                    best[end] = [*before, piece]
        return best[-1]

    def answer(words: list[str], vocab: list[str]) -> list[list[str]]:
        known, spelled = set(vocab), []
        for word in words:
            if mistake in ("greedy", "backtracking"):
                pieces = first_found(word, known, 0, mistake == "backtracking")
            elif mistake == "dropped":
                found = spellings(word, known)
                pieces = min(found, key=lambda p: [len(p), *(-len(x) for x in p)], default=None)
            else:
                pieces = from_the_start(word, known)
            if pieces is not None or mistake != "dropped":
                spelled.append(pieces or ["[UNK]"])
        return spelled

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


def answer_or_null_with(mistake: str) -> Callable[..., Any]:
    """The answer or no answer with one mistake: the best start and end taken apart, allowed
    ignored, [CLS] allowed as a position of a span, the chapter's limit of 30 tokens, >= for >,
    the threshold added to the span's score, or the threshold ignored."""

    def answer(start: Tensor, end: Tensor, allowed: Tensor, threshold: float):
        length = start.shape[1]
        if mistake == "independent":
            best_start = start.masked_fill(~allowed, -torch.inf).max(1)
            best_end = end.masked_fill(~allowed, -torch.inf).max(1)
            score, i, j = best_start.values + best_end.values, best_start.indices, best_end.indices
        else:
            ends = allowed.clone()
            ends[:, 0] |= mistake == "[CLS] allowed"
            first, last = torch.arange(length)[:, None], torch.arange(length)[None, :]
            limit = 30 if mistake == "limit 30" else length
            valid = (last >= first) & (last < first + limit)
            if mistake != "allowed ignored":
                valid = valid & ends[:, :, None] & ends[:, None, :]
            valid[:, 0, 0] = False  # the null "span" is not a span
            scores = (start[:, :, None] + end[:, None, :]).masked_fill(~valid, -torch.inf)
            score, best = scores.flatten(1).max(1)
            i, j = best // length, best % length
        null = start[:, 0] + end[:, 0]
        if mistake == ">=":
            answered = score >= null + threshold
        elif mistake == "threshold on the span":
            answered = score + threshold > null
        elif mistake == "threshold ignored":
            answered = score > null
        else:
            answered = score > null + threshold
        return torch.where(answered, i, 0), torch.where(answered, j, 0)

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


def probe_with(mistake: str, dtype: torch.dtype = torch.float64) -> Callable[..., Any]:
    """The probe with one mistake: no bias, the accuracy over every position (-100 counted as
    wrong), the -100 positions trained as tag 0, or the loss averaged over every position;
    computed in ``dtype``."""

    def answer(train_x, train_y, test_x, test_y, num_classes, steps, lr):
        train_x, test_x = train_x.to(dtype), test_x.to(dtype)
        x, y = train_x.flatten(0, 1), train_y.flatten()
        if mistake == "-100 as tag 0":
            y = y.clamp(min=0)
        keep = y != -100
        targets = F.one_hot(y[keep], num_classes).to(dtype)
        count = len(y) if mistake == "mean over every position" else int(keep.sum())
        weight = torch.zeros(x.shape[1], num_classes, dtype=dtype)
        bias = torch.zeros(num_classes, dtype=dtype)
        for _ in range(steps):
            error = (torch.softmax(x[keep] @ weight + bias, -1) - targets) / count
            weight = weight - lr * x[keep].T @ error
            bias = bias - (0 if mistake == "no bias" else lr * error.sum(0))

        def accuracy(features: Tensor, tags: Tensor) -> float:
            right = (features @ weight + bias).argmax(-1) == tags
            if mistake == "accuracy over every position":
                return float(right.double().mean())
            return float(right[tags != -100].double().mean())

        return accuracy(train_x, train_y), accuracy(test_x, test_y)

    return answer


#: A right answer computed in float32 throughout.
probe_in_float32 = probe_with("none", torch.float32)


@pytest.mark.parametrize(
    ("question_id", "wrong_answer", "at_most"),
    [
        ("ch06.q1", fewest_pieces_with("no ##"), 0.3),
        ("ch06.q1", fewest_pieces_with("## first"), 0.0),
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
        ("ch06.q5", answer_or_null_with("allowed ignored"), 0.0),
        ("ch06.q6", parameter_count_with("per head"), 0.15),
        ("ch06.q6", parameter_count_with("no pooler"), 0.0),
        ("ch06.q6", parameter_count_with("no LayerNorm"), 0.0),
        ("ch06.q6", parameter_count_with("no biases"), 0.0),
        ("ch06.q6", parameter_count_with("word embeddings only"), 0.0),
        ("ch06.q7", probe_with("accuracy over every position"), 0.2),
        ("ch06.q7", probe_with("-100 as tag 0"), 0.2),
    ],
)
def test_a_classic_mistake_loses_most_points(
    question_id: str, wrong_answer: Callable[..., Any], at_most: float
) -> None:
    assert_loses_most_points(question_id, wrong_answer, at_most)


@pytest.mark.parametrize(
    ("question_id", "wrong_answer", "words"),
    [
        ("ch06.q1", fewest_pieces_with("no ##"), "'##' marks continuations only"),
        ("ch06.q1", fewest_pieces_with("## first"), "'##' marks continuations only"),
        ("ch06.q2", pair_input_with("only B"), "A is the longer one"),
        ("ch06.q2", pair_input_with("odd token"), "odd token"),
        ("ch06.q3", masking_with("<="), "boundaries"),
        ("ch06.q4", merges_with("unweighted"), "weighted by word frequency"),
        ("ch06.q5", answer_or_null_with("allowed ignored"), "the question and the padding"),
        ("ch06.q6", parameter_count_with("untied"), "tied"),
    ],
)
def test_a_boundary_mistake_fails_the_case_that_names_it(
    question_id: str, wrong_answer: Callable[..., Any], words: str
) -> None:
    assert_fails_the_case_named(question_id, wrong_answer, words)


#: The notes of the cases that catch one mistake each, by question.
NOTES = {
    "ch06.q1": [ch06.NOT_GREEDY, ch06.NOT_FIRST_FOUND, ch06.TIE_TO_LONGER, ch06.UNK_IN_PLACE],
    "ch06.q5": [
        ch06.END_AFTER_START,
        ch06.STRICTLY,
        ch06.ABOVE_THRESHOLD,
        ch06.BELOW_THRESHOLD,
        ch06.NO_LENGTH_LIMIT,
        ch06.CLS_NO_POSITION,
    ],
    "ch06.q7": [ch06.MOSTLY_UNLABELLED, ch06.UNBALANCED],
}


@pytest.mark.parametrize(
    ("question_id", "wrong_answer", "its_notes"),
    [
        ("ch06.q1", fewest_pieces_with("greedy"), [ch06.NOT_GREEDY, ch06.NOT_FIRST_FOUND]),
        ("ch06.q1", fewest_pieces_with("backtracking"), [ch06.NOT_FIRST_FOUND]),
        ("ch06.q1", fewest_pieces_with("ties to the shorter first piece"), [ch06.TIE_TO_LONGER]),
        ("ch06.q1", fewest_pieces_with("dropped"), [ch06.UNK_IN_PLACE]),
        ("ch06.q5", answer_or_null_with("independent"), [ch06.END_AFTER_START]),
        ("ch06.q5", answer_or_null_with(">="), [ch06.STRICTLY]),
        (
            "ch06.q5",
            answer_or_null_with("threshold on the span"),
            [ch06.ABOVE_THRESHOLD, ch06.BELOW_THRESHOLD],
        ),
        (
            "ch06.q5",
            answer_or_null_with("threshold ignored"),
            [ch06.ABOVE_THRESHOLD, ch06.BELOW_THRESHOLD],
        ),
        ("ch06.q5", answer_or_null_with("limit 30"), [ch06.NO_LENGTH_LIMIT]),
        ("ch06.q5", answer_or_null_with("[CLS] allowed"), [ch06.CLS_NO_POSITION]),
        ("ch06.q7", probe_with("no bias"), [ch06.UNBALANCED]),
        ("ch06.q7", probe_with("accuracy over every position"), [ch06.MOSTLY_UNLABELLED]),
        ("ch06.q7", probe_with("-100 as tag 0"), [ch06.MOSTLY_UNLABELLED]),
        ("ch06.q7", probe_with("mean over every position"), [ch06.MOSTLY_UNLABELLED]),
    ],
)
def test_a_mistake_fails_the_cases_that_name_it_and_no_other_named_case(
    question_id: str, wrong_answer: Callable[..., Any], its_notes: list[str]
) -> None:
    """Its notes are printed (its cases fail); the notes of the other mistakes are not (their
    cases pass); cases that name no mistake may pass or fail."""
    assert_names_only_its_mistake(question_id, wrong_answer, its_notes, NOTES[question_id])


def test_masked_cases_are_mostly_padded() -> None:
    for question_id in ("ch06.q3", "ch06.q5", "ch06.q7"):
        cases = cases_of(question_id)
        padded = [
            case for case in cases if "padd" in case.description or "question" in case.description
        ]
        assert len(padded) >= 2 * (len(cases) - len(padded)) + 1, question_id
