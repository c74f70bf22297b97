"""Chapter 6, BERT: the graded questions of ``exercises/06-bert.ipynb``.

Questions 3 and 4 transcribe what the chapter prints: the masked language model's 80 / 10 / 10
corruption (the rule of ``coursekit.pretrain.mask_tokens``, with the random draws given) and the
first merges of WordPiece's training by the association score
(``coursekit.text.wordpiece_training``). Questions 1 and 5 ask for variants it does not print:
WordPiece's spelling with the fewest pieces, where the chapter's tokenizer takes the longest
piece first, and BERT's rule for SQuAD 2.0, the best span of any length against the null score
of ``[CLS]``, where the chapter decodes a span of bounded length. Question 2 asks for the
``[CLS] A [SEP] B [SEP]`` input with longest-first truncation, which the chapter only describes
(Hugging Face's rule, ``coursekit.text.wordpiece_encoding``), question 6 for the number of
parameters of a BERT model (``coursekit.models.BertModel``'s shapes, summed), and question 7 is
an experiment: the training and held-out accuracy of a linear probe on frozen vectors, for tags
the vectors encode and for a control task of random tags. Tensors are float64 or integer.

A case built to catch one mistake says so in its description. In questions 1, 5 and 7 the bank's
tests check that the other mistakes these cases target pass it, so that a note is printed only
for its mistake.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import torch
from torch import Tensor

from coursekit.grading.bank.draws import float64_normal, torch_generator
from coursekit.grading.questions import Case, Question, register
from coursekit.models.bert.heads import BertForPreTraining
from coursekit.models.bert.model import BertModel, BertPreTrainedModel
from coursekit.models.bert.span import best_span, span_scores, valid_spans
from coursekit.pretrain.masking import IGNORE_INDEX, mask_tokens
from coursekit.text.wordpiece import WordPieceTokenizer
from coursekit.text.wordpiece_encoding import bert_input, longest_first_lengths, truncate_pair
from coursekit.text.wordpiece_training import (
    WordPieceLearner,
    merge_in,
    merged_symbol,
    pair_score,
    spell,
    train_wordpiece,
)

UNK = "[UNK]"


# ch06.q1: WordPiece with the fewest pieces ------------------------------------------------------


def _fewest_pieces_reference(words: list[str], vocab: list[str]) -> list[list[str]]:
    """Each word spelled with the fewest pieces of ``vocab`` (the first piece plain, the others
    ``##`` continuations); among spellings with that many pieces, the one whose first piece is
    longest, then whose second is longest, ...; ``[UNK]`` for a word that has no spelling.

    ``fewest[i]`` is the best spelling of ``word[i:]`` as continuations (the whole word at
    ``i = 0``), filled from the end; trying the ends ``e`` from the longest piece down and
    keeping a strict improvement only settles the ties as said.
    """
    known = set(vocab)
    spelled = []
    for word in words:
        fewest: list[list[str] | None] = [None] * len(word) + [[]]
        for start in range(len(word) - 1, -1, -1):
            for end in range(len(word), start, -1):
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                rest = fewest[end]
                if piece in known and rest is not None:
                    best = fewest[start]
                    if best is None or len(rest) + 1 < len(best):
                        fewest[start] = [piece, *rest]
        spelled.append(fewest[0] or [UNK])
    return spelled


#: The sources' examples and pieces that only a longest match finds.
BERT_VOCAB = [
    UNK, "the", "a", "bird", "birds", "flight", "f", "fl", "##l", "##le", "##less", "##ess",
    "##s", "scare", "s", "##c", "##crow", "##row", "milk", "mi", "##maid", "##ma", "##id",
    "un", "##aff", "##able", "##a", "##b",
]  # fmt: skip
#: The notes of the cases that catch one mistake each (the bank's tests use them).
NOT_GREEDY = "fewest, not greedy"
NOT_FIRST_FOUND = "fewest, not the first spelling found"
TIE_TO_LONGER = "a tie of two 2-piece spellings goes to the longer first piece"
UNK_IN_PLACE = "a word with no spelling is the single piece [UNK], in its place"
#: (words, vocabulary, what the case exercises)
FEWEST_PIECES_SETTINGS: list[tuple[list[str], list[str], str]] = [
    (
        ["the", "flightless", "birds", "scarecrow", "milkmaids", "unaffable"],
        BERT_VOCAB,
        "the sources' words: flight ##less, scare ##crow, milk ##maid ##s",
    ),
    (
        ["hugs", "hug", "hut"],
        [UNK, "hug", "hu", "##gs", "##t", "##g"],
        f"{NOT_GREEDY}: the longest first piece 'hug' leaves 's', which has no piece, yet "
        "'hu ##gs' spells 'hugs'",
    ),
    (
        ["thereafter", "there", "after"],
        [UNK, "there", "the", "##af", "##ter", "##reafter", "##a", "##f", "after", "##re"],
        f"{NOT_FIRST_FOUND}: longest pieces first give 'there ##af ##ter', 3 pieces; "
        "'the ##reafter' has 2",
    ),
    (
        ["rainbows", "rainbow", "bows"],
        [UNK, "rain", "rainbow", "##bows", "##bow", "##s", "bows", "bow"],
        f"{TIE_TO_LONGER}: 'rainbow ##s', not 'rain ##bows'",
    ),
    (
        ["the", "qwerty", "birds", "flightz"],
        BERT_VOCAB,
        f"{UNK_IN_PLACE} in the list",
    ),
    (
        ["xyz", "y", "zz", "xyzzy"],
        [UNK, "##x", "##y", "##z", "x", "z", "##zy"],
        "pieces of one character; '##' marks continuations only: the first piece is never a "
        "'##' piece",
    ),
]
#: A random vocabulary over two letters, so that most words have many spellings.
RANDOM_LETTERS, RANDOM_WORDS = "ab", 20


def _random_fewest_pieces_case(rng: random.Random) -> Case:
    """Random starts and continuations of 1 to 4 letters over ``RANDOM_LETTERS``; each word
    joins 2 to 4 of them, so that it has a spelling (often several)."""

    def text() -> str:
        return "".join(rng.choice(RANDOM_LETTERS) for _ in range(rng.randint(1, 4)))

    starts = sorted({text() for _ in range(6)})
    continuations = sorted({text() for _ in range(8)})
    words = [
        rng.choice(starts) + "".join(rng.choice(continuations) for _ in range(rng.randint(1, 3)))
        for _ in range(RANDOM_WORDS)
    ]
    vocab = [UNK, *starts, *(f"##{piece}" for piece in continuations)]
    return Case(
        (words, rng.sample(vocab, len(vocab))),
        description=f"{RANDOM_WORDS} random words over the letters {RANDOM_LETTERS}",
    )


def _fewest_pieces_cases(rng: random.Random) -> Iterator[Case]:
    for words, vocab, about in FEWEST_PIECES_SETTINGS:
        shuffled = rng.sample(vocab, len(vocab))  # order must not matter
        yield Case((list(words), shuffled), description=about)
    yield _random_fewest_pieces_case(rng)


register(
    Question(
        id="ch06.q1",
        title="WordPiece with the fewest pieces",
        points=2,
        answer_name="fewest_pieces",
        reference=_fewest_pieces_reference,
        make_cases=_fewest_pieces_cases,
    )
)


# ch06.q2: [CLS] A [SEP] B [SEP], segment ids and longest-first truncation ----------------------


def _pair_input_reference(
    tokens_a: list[str], tokens_b: list[str] | None, max_length: int
) -> tuple[list[str], list[int]]:
    """``[CLS] A [SEP]`` (segment 0) and ``B [SEP]`` (segment 1), the texts first cut so that
    the whole has at most ``max_length`` tokens: the end of A alone, or longest-first for a
    pair, by ``coursekit.text.wordpiece_encoding`` (Hugging Face ``tokenizers``' rule).
    """
    kept_a, kept_b = truncate_pair(tokens_a, tokens_b, max_length)
    return bert_input(kept_a, kept_b, "[CLS]", "[SEP]")


def _words(rng: random.Random, count: int, prefix: str) -> list[str]:
    """``count`` distinct tokens ``prefix0, prefix1, ...`` shuffled, so a cut shows where it
    happened."""
    return [f"{prefix}{index}" for index in rng.sample(range(100), count)]


#: (length of A, of B (None: a single text), max_length, the mistake the case catches)
PAIR_SETTINGS: list[tuple[int, int | None, int, str]] = [
    (4, 5, 20, "a pair that fits: [CLS] A [SEP] is segment 0, B and the last [SEP] segment 1"),
    (6, None, 16, "a single text that fits: [CLS] A [SEP], all segment 0"),
    (14, None, 10, "a single text too long: keep its first max_length - 2 tokens"),
    (3, 20, 16, "a short question, a long passage: only the passage is cut, to 16 - 3 - 3"),
    (12, 4, 12, "A is the longer one: A is cut, B kept"),
    (9, 7, 12, "both longer than half the budget of 9: the longer text keeps the odd token"),
    (7, 7, 14, "equal lengths, odd budget 11: B keeps the odd token"),
    (5, 7, 14, "one token over max_length with the three specials: B, the longer, loses it"),
    (30, 25, 20, "both far too long: 8 and 9 tokens of the budget of 17, the odd one to A"),
]


def _pair_input_cases(rng: random.Random) -> Iterator[Case]:
    for length_a, length_b, max_length, about in PAIR_SETTINGS:
        tokens_b = None if length_b is None else _words(rng, length_b, "b")
        yield Case(
            (_words(rng, length_a, "a"), tokens_b, max_length),
            description=f"{about} (|A|={length_a}, |B|={length_b}, max_length={max_length})",
        )


register(
    Question(
        id="ch06.q2",
        title="BERT's input: [CLS] A [SEP] B [SEP], segments and truncation",
        points=2,
        answer_name="bert_pair_input",
        reference=_pair_input_reference,
        make_cases=_pair_input_cases,
        forbidden=(truncate_pair, bert_input, longest_first_lengths, WordPieceTokenizer),
        output_names=("tokens", "token_type_ids"),
    )
)


# ch06.q3: the masked language model's 80 / 10 / 10 corruption ----------------------------------

PAD_ID, CLS_ID, SEP_ID, MASK_ID = 0, 2, 3, 4
FIRST_WORD_ID, VOCAB_SIZE = 5, 40


#: BERT's thresholds (``MaskingRule()``): chosen below 0.15; then [MASK] below 0.8, a random
#: token below 0.8 + 0.1 (written 0.9: the float 0.8 + 0.1 is a hair above it), else kept.
SELECT_BELOW, MASK_BELOW, RANDOM_BELOW = 0.15, 0.8, 0.9


def _masking_reference(
    input_ids: Tensor,
    maskable: Tensor,
    select_draws: Tensor,
    replace_draws: Tensor,
    random_ids: Tensor,
    mask_id: int,
) -> tuple[Tensor, Tensor]:
    """The rule of ``coursekit.pretrain.mask_tokens`` with its draws given: a maskable token is
    chosen when ``select_draws < 0.15``; a chosen token becomes ``mask_id`` when
    ``replace_draws < 0.8``, ``random_ids`` when ``0.8 <= replace_draws < 0.9`` and stays
    itself otherwise; labels hold the original token where chosen and -100 elsewhere.
    """
    chosen = (select_draws < SELECT_BELOW) & maskable
    labels = torch.where(chosen, input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    is_random = (replace_draws >= MASK_BELOW) & (replace_draws < RANDOM_BELOW)
    replaced = torch.where(
        replace_draws < MASK_BELOW, torch.full_like(input_ids, mask_id), input_ids
    )
    replaced = torch.where(is_random, random_ids, replaced)
    return torch.where(chosen, replaced, input_ids), labels


def _batch_of_ids(generator: torch.Generator, lengths: list[int], steps: int) -> Tensor:
    """``[CLS] w ... w [SEP] [PAD] ...`` rows of ``lengths`` real tokens each (specials
    included), ``[B, steps]``."""
    ids = torch.randint(FIRST_WORD_ID, VOCAB_SIZE, (len(lengths), steps), generator=generator)
    for row, length in enumerate(lengths):
        ids[row, 0], ids[row, length - 1] = CLS_ID, SEP_ID
        ids[row, length:] = PAD_ID
    return ids


def _masking_case(
    generator: torch.Generator, lengths: list[int], steps: int, chosen_share: float, about: str
) -> Case:
    """Select draws below 0.15 at ``chosen_share`` of the positions (picked at random, the
    specials and the padding among them: only ``maskable`` saves those) and in [0.15, 1)
    elsewhere; replace draws uniform in [0, 1); random replacements from the word ids."""
    input_ids = _batch_of_ids(generator, lengths, steps)
    maskable = (input_ids != PAD_ID) & (input_ids != CLS_ID) & (input_ids != SEP_ID)
    shape = input_ids.shape
    picked = torch.randperm(input_ids.numel(), generator=generator)[
        : round(chosen_share * input_ids.numel())
    ]
    below = torch.zeros(input_ids.numel(), dtype=torch.bool)
    below[picked] = True
    below = below.view(shape)
    uniform = torch.rand(shape, generator=generator, dtype=torch.float64)
    select = torch.where(below, 0.15 * uniform, 0.15 + 0.85 * uniform)
    replace = torch.rand(shape, generator=generator, dtype=torch.float64)
    random_ids = torch.randint(FIRST_WORD_ID, VOCAB_SIZE, shape, generator=generator)
    return Case((input_ids, maskable, select, replace, random_ids, MASK_ID), description=about)


def _masking_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    yield _masking_case(
        generator,
        [12],
        12,
        0.4,
        "one sequence, no padding: [CLS] and [SEP] are never chosen; labels are -100 where not "
        "chosen",
    )
    yield _masking_case(
        generator,
        [9, 5, 12],
        12,
        0.5,
        "padded batch: [CLS], [SEP] and [PAD] drawn below 0.15 stay as they are (only maskable "
        "tokens are chosen)",
    )
    boundary = _masking_case(
        generator,
        [10, 7],
        10,
        0.3,
        "draws on the boundaries: select 0.15 is not chosen; replace 0.8 is random, 0.9 unchanged",
    )
    _, _, select, replace, _, _ = boundary.args
    select[0, 1:4], replace[0, 1:4] = 0.05, torch.tensor([0.8, 0.9, 0.8], dtype=torch.float64)
    select[1, 2], select[1, 3] = 0.15, 0.1499
    yield boundary
    yield _masking_case(
        generator,
        [6, 11, 3, 8],
        11,
        1.0,
        "padded batch, every real token chosen: 80 / 10 / 10 of them [MASK] / random / kept",
    )
    yield _masking_case(
        generator,
        [14, 9],
        14,
        0.6,
        "padded batch: labels hold the ORIGINAL token, also where a random one replaced it",
    )
    yield _masking_case(
        generator, [7, 4], 7, 0.0, "padded batch, no token chosen: all labels -100, ids unchanged"
    )
    yield _masking_case(generator, [5, 5, 2], 6, 0.5, "padded batch with an empty [CLS] [SEP] row")


register(
    Question(
        id="ch06.q3",
        title="The masked language model's 80 / 10 / 10 corruption",
        points=2,
        answer_name="mask_for_mlm",
        reference=_masking_reference,
        make_cases=_masking_cases,
        forbidden=(mask_tokens,),
        output_names=("corrupted", "labels"),
    )
)


# ch06.q4: the first merges of WordPiece training ------------------------------------------------


def _merges_reference(word_counts: dict[str, int], num_merges: int) -> list[str]:
    """The symbols of the first ``num_merges`` merges of ``coursekit.text.wordpiece_training``'s
    learner (every pair counted at least once is a candidate): each merges the adjacent pair of
    highest ``count(ab) / (count(a) count(b))``, ties to the first pair in string order.
    """
    learner = WordPieceLearner(Counter(word_counts), min_pair_count=1)
    merges = []
    for _ in range(num_merges):
        pair = learner.best_pair()
        if pair is None:
            break
        learner.merge(pair)
        merges.append(merged_symbol(*pair))
    return merges


#: (word counts, merges, the mistake the case catches)
MERGE_SETTINGS: list[tuple[dict[str, int], int, str]] = [
    (
        {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5},
        3,
        "the first merge is ##g ##s (score 1/20), not the most frequent pair ##u ##g (BPE); "
        "then ties at 1/36 go to the first pair in string order",
    ),
    (
        {"low": 5, "lower": 2, "newest": 6, "widest": 3},
        6,
        "frequent letters score low: count(ab) / (count(a) count(b)), not count(ab)",
    ),
    (
        {"cb": 2, "abaa": 20, "ac": 8, "baa": 8},
        3,
        "counts weighted by word frequency ('abaa' occurs 20 times), not by distinct words",
    ),
    (
        {"word": 3, "wordy": 2, "sword": 1, "rd": 1},
        5,
        "continuations keep one '##': ##r + ##d -> ##rd, w + ##o -> wo",
    ),
    (
        {"aaaa": 2, "aa": 1, "baaa": 1},
        4,
        "a repeated pair in one word: counted at each occurrence, merged left to right",
    ),
    (
        {"xy": 2, "yx": 2},
        10,
        "fewer pairs than merges asked for: stop when no adjacent pair is left",
    ),
    (
        {"tent": 4, "net": 4, "ten": 3, "nett": 1},
        5,
        "counts recomputed after every merge",
    ),
]


def _merge_cases(rng: random.Random) -> Iterator[Case]:
    for word_counts, num_merges, about in MERGE_SETTINGS:
        words = list(word_counts)
        rng.shuffle(words)  # the order of the dictionary must not matter
        yield Case(({word: word_counts[word] for word in words}, num_merges), description=about)


register(
    Question(
        id="ch06.q4",
        title="The first merges of WordPiece training",
        points=2,
        answer_name="wordpiece_merges",
        reference=_merges_reference,
        make_cases=_merge_cases,
        forbidden=(WordPieceLearner, train_wordpiece, pair_score, merge_in, spell, merged_symbol),
    )
)


# ch06.q5: the best span or no answer (SQuAD 2.0) ---------------------------------------------


def _best_non_null_span(
    start_logits: Tensor, end_logits: Tensor, allowed: Tensor
) -> tuple[Tensor, Tensor, Tensor]:
    """``(score, start, end)`` of the best span i..j with ``i <= j`` and both ends allowed, of any
    length, ``[B]`` each, in O(T): the best start up to each end is a running maximum."""
    starts = start_logits.masked_fill(~allowed, -torch.inf)
    best_start, best_start_at = starts.cummax(dim=1)  # max over i <= j of start_logits[i]
    score, end = (best_start + end_logits.masked_fill(~allowed, -torch.inf)).max(dim=1)
    return score, best_start_at.gather(1, end.unsqueeze(1)).squeeze(1), end


def _answer_or_null_reference(
    start_logits: Tensor, end_logits: Tensor, allowed: Tensor, threshold: float
) -> tuple[Tensor, Tensor]:
    """BERT's rule for SQuAD 2.0: the best non-null span i..j (``i <= j``, both ends allowed,
    no length limit) when its score beats the null score of ``[CLS]`` (position 0) by more than
    ``threshold``, ``start_logits[i] + end_logits[j] > start_logits[0] + end_logits[0] +
    threshold``; otherwise no answer, ``(0, 0)``."""
    score, start, end = _best_non_null_span(start_logits, end_logits, allowed)
    null = start_logits[:, 0] + end_logits[:, 0]
    answer = score > null + threshold
    return torch.where(answer, start, 0), torch.where(answer, end, 0)


def _passage_mask(question_lengths: list[int], passage_lengths: list[int], steps: int) -> Tensor:
    """True on the passage of ``[CLS] question [SEP] passage [SEP] [PAD] ...`` rows."""
    positions = torch.arange(steps)
    starts = torch.tensor(question_lengths) + 2
    ends = starts + torch.tensor(passage_lengths)
    return (positions >= starts.unsqueeze(1)) & (positions < ends.unsqueeze(1))


#: The notes of the cases that catch one mistake each (the bank's tests use them).
END_AFTER_START = "the best end lies before the best start"
STRICTLY = "a span must beat the null score plus the threshold strictly"
ABOVE_THRESHOLD = "a span scoring between s_null and s_null + threshold is no answer"
BELOW_THRESHOLD = "a span scoring between s_null + threshold and s_null is an answer"
NO_LENGTH_LIMIT = "no length limit"
CLS_NO_POSITION = "[CLS] is no position of a span"
#: Added to the scores of the question, [SEP] and the padding, so that ignoring ``allowed`` shows.
NOT_ALLOWED_BONUS = 6.0
#: How far a planted best start (end) scores above every other allowed start (end); unequal,
#: so that the planted start with the best other end never ties the best other start with the
#: planted end.
START_LEAD, END_LEAD = 2.0, 2.5
#: The score of [CLS] as a start, low, so that a span from [CLS] scores low (but in one case).
CLS_START = -6.0


class _SpanRows:
    """Scores of ``[CLS] question [SEP] passage [SEP] [PAD] ...`` rows, built row by row:
    random scores, planted best spans, and a null score set against the best span."""

    def __init__(
        self,
        generator: torch.Generator,
        question_lengths: list[int],
        passage_lengths: list[int],
        quarters: bool = False,
    ) -> None:
        steps = max(q + p for q, p in zip(question_lengths, passage_lengths, strict=True)) + 3
        self.allowed = _passage_mask(question_lengths, passage_lengths, steps)
        shape = (len(question_lengths), steps)
        self.start = float64_normal(generator, *shape, scale=2.0)
        self.end = float64_normal(generator, *shape, scale=2.0)
        if quarters:  # multiples of 1/4: every sum is exact, so a tie is a tie
            self.start, self.end = (self.start * 4).round() / 4, (self.end * 4).round() / 4
        self.start += NOT_ALLOWED_BONUS * ~self.allowed
        self.end += NOT_ALLOWED_BONUS * ~self.allowed
        self.start[:, 0] = CLS_START

    def plant(self, row: int, start: int, end: int) -> None:
        """Make ``start`` the best allowed start of ``row`` and ``end`` its best allowed end."""
        allowed = self.allowed[row]
        self.start[row, start] = self.start[row][allowed].max() + START_LEAD
        self.end[row, end] = self.end[row][allowed].max() + END_LEAD

    def set_null(self, row: int, span_minus_null: float) -> None:
        """Set ``end_logits[0]`` so that the best span scores ``span_minus_null`` above the null
        score of ``row``."""
        score, _, _ = _best_non_null_span(self.start, self.end, self.allowed)
        self.end[row, 0] = score[row] - span_minus_null - self.start[row, 0]

    def case(self, threshold: float, about: str) -> Case:
        return Case(
            (self.start, self.end, self.allowed, threshold),
            description=f"{about}; threshold={threshold:g}; the question and the padding score "
            "high",
        )


def _span_rows(
    generator: torch.Generator,
    question_lengths: list[int],
    passage_lengths: list[int],
    margins: list[float],
    spans: list[tuple[int, int] | None] | None = None,
    quarters: bool = False,
) -> _SpanRows:
    """Rows whose best span (planted at ``spans`` where given, passage positions counted from
    the passage's first token) scores ``margins`` above the null score."""
    rows = _SpanRows(generator, question_lengths, passage_lengths, quarters)
    for row, span in enumerate(spans or []):
        if span is not None:
            first = question_lengths[row] + 2
            rows.plant(row, first + span[0], first + span[1])
    for row, margin in enumerate(margins):
        rows.set_null(row, margin)
    return rows


def _span_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    margins = [round(rng.uniform(1.0, 2.0), 2) for _ in range(4)]
    yield _span_rows(generator, [3, 5], [8, 6], margins[:2]).case(
        0.0, "answerable questions: the best span beats the null score"
    )
    yield _span_rows(generator, [4, 2, 6], [7, 9, 5], [-m for m in margins[1:]]).case(
        0.0, "unanswerable questions: the null score beats every span"
    )
    yield _span_rows(generator, [2, 3], [9, 8], [1.0, 1.0], [(5, 1), (6, 2)]).case(
        0.0, f"{END_AFTER_START}: j >= i"
    )
    yield _span_rows(
        generator, [3, 4, 2], [6, 8, 7], [0.0, 0.5, -0.5], [(1, 3), (0, 5), (2, 2)], True
    ).case(0.0, f"{STRICTLY}: in the first row they are equal")
    yield _span_rows(generator, [2, 4], [8, 7], [0.75, 2.5], [(2, 4), (1, 1)]).case(
        1.5, ABOVE_THRESHOLD
    )
    yield _span_rows(generator, [3, 2], [7, 9], [-0.5, -2.0], [(0, 2), (3, 6)]).case(
        -1.0, BELOW_THRESHOLD
    )
    yield _span_rows(generator, [4, 3], [50, 12], [1.0, 1.5], [(2, 41), (1, 7)]).case(
        0.0, f"{NO_LENGTH_LIMIT}: the best span of the first row is 40 tokens long"
    )
    cls = _span_rows(generator, [3, 2], [8, 6], [], [(2, 5), (1, 3)])
    for row in range(2):  # a span from [CLS] to the best end would beat every answer
        cls.start[row, 0] = cls.start[row][cls.allowed[row]].max() + START_LEAD
        cls.set_null(row, 1.0)
    yield cls.case(0.0, f"{CLS_NO_POSITION}: it scores high as a start, yet no span runs from it")
    signs = [rng.choice([-1.0, 1.0]) for _ in range(4)]
    yield _span_rows(
        generator, [1, 4, 2, 5], [6, 3, 8, 10], [s * m for s, m in zip(signs, margins, strict=True)]
    ).case(0.0, "a batch of four, answerable or not")


register(
    Question(
        id="ch06.q5",
        title="The best span or no answer (SQuAD 2.0)",
        points=2,
        answer_name="answer_or_null",
        reference=_answer_or_null_reference,
        make_cases=_span_cases,
        forbidden=(best_span, span_scores, valid_spans),
        output_names=("start", "end"),
    )
)


# ch06.q6: the number of parameters of BERT ----------------------------------------------------


def _parameter_count_reference(
    vocab_size: int,
    hidden_size: int,
    num_layers: int,
    num_heads: int,
    intermediate_size: int,
    max_positions: int,
    type_vocab_size: int,
    pretraining_heads: bool,
) -> int:
    """The number of values in the parameters of ``coursekit.models.BertModel`` (with its
    pooler) or, with ``pretraining_heads``, of ``BertForPreTraining``, summed over their shapes
    (the bank's tests count them on both models and on Hugging Face's):

    - embeddings: token ``[V, H]``, position ``[P, H]``, segment ``[S, H]``, LayerNorm ``2H``;
    - each of the L layers: W^Q, W^K, W^V and W^O ``[H, H]`` with biases ``[H]``, W_1 ``[I, H]``
      and ``b_1 [I]``, W_2 ``[H, I]`` and ``b_2 [H]``, two LayerNorms ``2H`` each (the A heads
      split H, they add nothing);
    - pooler ``[H, H]`` and ``[H]``;
    - pretraining heads: the transform ``[H, H]``, ``[H]`` and its LayerNorm ``2H``, the output
      layer's bias ``[V]`` (its matrix is the token embedding, counted once), NSP ``[2, H]`` and
      ``[2]``.
    """
    H, inner, V = hidden_size, intermediate_size, vocab_size  # noqa: N806 - the book's letters
    embeddings = (V + max_positions + type_vocab_size) * H + 2 * H
    layer = 4 * (H * H + H) + (inner * H + inner) + (H * inner + H) + 2 * (2 * H)
    pooler = H * H + H
    heads = (H * H + H) + 2 * H + V + (2 * H + 2) if pretraining_heads else 0
    return embeddings + num_layers * layer + pooler + heads


#: (V, H, L, A, intermediate, positions, segments, heads, what the case exercises)
BERT_SIZES = [
    (30522, 768, 12, 12, 3072, 512, 2, False, "BERT-BASE: about 110M"),
    (30522, 1024, 24, 16, 4096, 512, 2, False, "BERT-LARGE: about 340M"),
    (30522, 768, 12, 12, 3072, 512, 2, True, "BERT-BASE with its pretraining heads"),
    (1000, 64, 2, 1, 256, 128, 2, False, "one head"),
    (1000, 64, 2, 8, 256, 128, 2, False, "the same model with 8 heads: the same count"),
    (5000, 96, 3, 4, 200, 64, 3, True, "intermediate size not 4H, three segments, with heads"),
    (800, 32, 4, 2, 128, 40, 1, True, "one segment; the output layer's matrix is E, tied"),
]


def _parameter_count_cases(rng: random.Random) -> Iterator[Case]:
    for *sizes, about in BERT_SIZES:
        yield Case(tuple(sizes), description=about)


register(
    Question(
        id="ch06.q6",
        title="The number of parameters of BERT",
        points=1,
        answer_name="bert_parameter_count",
        reference=_parameter_count_reference,
        make_cases=_parameter_count_cases,
        forbidden=(BertPreTrainedModel, BertModel, BertForPreTraining),
    )
)


# ch06.q7: a probe on frozen vectors, and its control (an experiment) ---------------------------


def _probe_fit(
    features: Tensor, labels: Tensor, num_classes: int, steps: int, lr: float
) -> tuple[Tensor, Tensor]:
    """``W [H, C]`` and ``b [C]`` after ``steps`` steps of full-batch gradient descent from zero
    on the mean cross-entropy of the labelled positions (label != -100) of ``features [N, T, H]``.
    The gradient of the mean cross-entropy of softmax(x W + b) is ``x^T (P - Y) / n``."""
    labelled = labels != IGNORE_INDEX
    x, targets = features[labelled], labels[labelled]  # [n, H], [n]
    one_hot = torch.nn.functional.one_hot(targets, num_classes).to(x.dtype)
    weight = torch.zeros(x.shape[1], num_classes, dtype=x.dtype)
    bias = torch.zeros(num_classes, dtype=x.dtype)
    for _ in range(steps):
        error = (torch.softmax(x @ weight + bias, dim=-1) - one_hot) / len(targets)
        weight, bias = weight - lr * x.T @ error, bias - lr * error.sum(0)
    return weight, bias


def _probe_accuracy(weight: Tensor, bias: Tensor, features: Tensor, labels: Tensor) -> float:
    """The share of the labelled positions whose highest-scoring class is the label."""
    labelled = labels != IGNORE_INDEX
    guesses = (features[labelled] @ weight + bias).argmax(dim=-1)
    return float((guesses == labels[labelled]).double().mean())


def _probe_reference(
    train_features: Tensor,
    train_labels: Tensor,
    test_features: Tensor,
    test_labels: Tensor,
    num_classes: int,
    steps: int,
    lr: float,
) -> tuple[float, float]:
    """The training and held-out accuracy of a linear probe (softmax regression, zero start,
    full-batch gradient descent on the mean cross-entropy of the labelled positions)."""
    weight, bias = _probe_fit(train_features, train_labels, num_classes, steps, lr)
    return (
        _probe_accuracy(weight, bias, train_features, train_labels),
        _probe_accuracy(weight, bias, test_features, test_labels),
    )


#: The notes of the cases that catch one mistake each (the bank's tests use them).
MOSTLY_UNLABELLED = "most positions are labelled -100"
UNBALANCED = "unbalanced tags"


def _tag_directions(
    generator: torch.Generator, size: int, tag_shares: list[float], spread: float, mirrored: bool
) -> Tensor:
    """One direction of length ``spread`` per tag, ``[C, H]``; the second the first negated when
    ``mirrored``; the first, 'O', the origin when the shares are unbalanced."""
    directions = float64_normal(generator, len(tag_shares), size)
    directions = spread * directions / directions.norm(dim=1, keepdim=True)
    if mirrored:
        directions[1] = -directions[0]
    elif len(set(tag_shares)) > 1:
        directions[0] = 0.0
    return directions


def _noise_scales(generator: torch.Generator, size: int) -> Tensor:
    """The standard deviation of the noise of each of the H dimensions, from 1/4 to 4 on a log
    scale (frozen vectors are far from isotropic)."""
    return 4.0 ** (2 * torch.rand(size, generator=generator, dtype=torch.float64) - 1)


def _tagged_vectors(
    generator: torch.Generator,
    directions: Tensor,
    scales: Tensor,
    sentences: int,
    steps: int,
    tag_shares: list[float],
    labelled_share: float,
    mirrored: bool,
    random_tags: bool,
) -> tuple[Tensor, Tensor]:
    """Frozen vectors ``[N, T, H]`` and tags ``[N, T]``: the direction of each position's tag
    plus noise of standard deviations ``scales [H]``; ``-100`` on the positions not labelled.
    ``mirrored``: the second half of the sentences is the first half negated, tags 0 and 1
    swapped, so that the bias of a probe of two tags stays 0 (a probe without a bias passes
    such a case). ``random_tags``: the tags are drawn again, independent of the
    vectors (a control task)."""
    shares = torch.tensor(tag_shares, dtype=torch.float64)

    def draw_tags() -> Tensor:
        tags = torch.multinomial(shares, sentences * steps, True, generator=generator)
        return tags.view(sentences, steps)

    labels = draw_tags()
    noise = float64_normal(generator, sentences, steps, directions.shape[1]) * scales
    features = directions[labels] + noise
    if random_tags:
        labels = draw_tags()
    unlabelled = torch.rand(sentences, steps, generator=generator) >= labelled_share
    labels = labels.masked_fill(unlabelled, IGNORE_INDEX)
    if mirrored:
        half = sentences // 2
        features[half:] = -features[:half]
        first = labels[:half]
        labels[half:] = torch.where(first == IGNORE_INDEX, first, 1 - first)
    return features, labels


#: (N sentences, T, H, tag shares, labelled share, spread, mirrored, random tags, steps, lr,
#: what the case exercises); the held-out set has as many sentences as the training set.
PROBE_SETTINGS: list[
    tuple[int, int, int, list[float], float, float, bool, bool, int, float, str]
] = [
    (
        12, 10, 16, [0.5, 0.5], 0.5, 1.0, True, False, 50, 0.5,
        "2 tags the vectors encode, padded sentences (half the positions labelled)",
    ),
    (
        8, 10, 64, [0.5, 0.5], 0.6, 1.0, True, True, 200, 0.5,
        "control task: random tags, independent of the vectors; the probe learns its training "
        "positions by heart, not the held-out ones (padded sentences)",
    ),
    (
        32, 12, 16, [0.5, 0.5], 0.3, 1.0, True, False, 20, 0.5,
        f"{MOSTLY_UNLABELLED} (padding, [CLS], [SEP], continuation pieces): they count neither "
        "in the loss, a mean over the labelled positions, nor in the accuracy",
    ),
    (
        10, 8, 16, [0.7, 0.1, 0.1, 0.1], 1.0, 1.5, False, False, 100, 0.5,
        f"{UNBALANCED}, 70 % 'O', every position labelled: the probe's bias learns how common "
        "each tag is",
    ),
    (
        16, 9, 24, [0.25, 0.25, 0.25, 0.25], 0.6, 2.0, False, False, 80, 0.3,
        "4 tags, padded sentences",
    ),
]  # fmt: skip


def _probe_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    for (
        sentences, steps, size, shares, labelled, spread, mirrored, random_tags, gd_steps, lr,
        about,
    ) in PROBE_SETTINGS:  # fmt: skip
        directions = _tag_directions(generator, size, shares, spread, mirrored)
        scales = _noise_scales(generator, size)
        train, test = (
            _tagged_vectors(
                generator,
                directions,
                scales,
                sentences,
                steps,
                shares,
                labelled,
                mirrored,
                random_tags,
            )
            for _ in range(2)
        )
        positions = min(int((labels != IGNORE_INDEX).sum()) for _, labels in (train, test))
        yield Case(
            (*train, *test, len(shares), gd_steps, lr),
            description=f"{about}; {gd_steps} steps, lr={lr:g}",
            rtol=0.0,
            atol=1.5 / positions,  # one position either way
        )


register(
    Question(
        id="ch06.q7",
        title="A probe on frozen vectors, and its control",
        points=2,
        answer_name="probe_accuracy",
        reference=_probe_reference,
        make_cases=_probe_cases,
        output_names=("train_accuracy", "test_accuracy"),
    )
)
