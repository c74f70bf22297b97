"""Chapter 6, BERT: the graded questions of ``exercises/06-bert.ipynb``.

Questions 1, 3 and 5 transcribe what the chapter prints: WordPiece's greedy longest match
(graded against ``coursekit.text.wordpiece.greedy_longest_match``), the masked language model's
80 / 10 / 10 corruption (the rule of ``coursekit.pretrain.mask_tokens``, with the random draws
given) and the best answer span (``coursekit.models.best_span``). The others ask for what it only
describes: the ``[CLS] A [SEP] B [SEP]`` input with longest-first truncation (Hugging Face's rule,
``coursekit.text.wordpiece_encoding``), the first merges of WordPiece's training by the
association score (``coursekit.text.wordpiece_training``) and the number of parameters of a
BERT model (``coursekit.models.BertModel``'s shapes, summed). Tensors are float64 or integer.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import torch
from torch import Tensor

from coursekit.grading.bank.ch02 import float64_normal, torch_generator
from coursekit.grading.questions import Case, Question, register
from coursekit.models.bert import BertModel, BertPreTrainedModel
from coursekit.models.bert_heads import BertForPreTraining
from coursekit.models.bert_span import best_span, span_scores, valid_spans
from coursekit.pretrain.masking import IGNORE_INDEX, mask_tokens
from coursekit.text.wordpiece import WordPieceTokenizer, greedy_longest_match
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


# ch06.q1: WordPiece, greedy longest match first ------------------------------------------------


def _wordpiece_reference(words: list[str], vocab: list[str], max_chars: int) -> list[list[str]]:
    """The pieces of each word by ``coursekit.text.wordpiece.greedy_longest_match``: the longest
    prefix in ``vocab``, then the longest ``##`` continuation of the rest, ...; ``[UNK]`` for a
    word that cannot be spelled so or has more than ``max_chars`` characters.
    """
    known = set(vocab)
    return [greedy_longest_match(word, known, UNK, max_chars) for word in words]


#: The sources' examples and pieces that only a longest match finds.
BERT_VOCAB = [
    UNK, "the", "a", "bird", "birds", "flight", "f", "fl", "##l", "##le", "##less", "##ess",
    "##s", "scare", "s", "##c", "##crow", "##row", "milk", "mi", "##maid", "##ma", "##id",
    "un", "##aff", "##able", "##a", "##b",
]  # fmt: skip
#: (words, vocabulary, max_chars, the mistake the case catches)
WORDPIECE_SETTINGS: list[tuple[list[str], list[str], int, str]] = [
    (
        ["the", "flightless", "birds", "scarecrow", "milkmaids"],
        BERT_VOCAB,
        100,
        "the sources' words: flight ##less, scare ##crow, milk ##maid ##s",
    ),
    (
        ["flightless", "unaffable", "a", "scares", "milk"],
        BERT_VOCAB,
        100,
        "longest match first: 'f', 'fl', '##l' and '##le' are in the vocabulary too",
    ),
    (
        ["abc", "ab", "abcd", "a"],
        [UNK, "ab", "a", "##bc", "##d", "##bcd"],
        100,
        "greedy, no backtracking: 'ab' leaves 'c', which has no piece, so 'abc' is [UNK] "
        "although 'a ##bc' would spell it",
    ),
    (
        ["flightz", "birds", "xbird", "scarecrows"],
        BERT_VOCAB,
        100,
        "a word with a rest that has no piece is one [UNK], not the pieces found before it",
    ),
    (
        ["lessons", "less", "crow", "birdcrow"],
        [UNK, "less", "##less", "##ons", "crow", "bird", "##crow", "##cr", "##ow"],
        100,
        "'##' marks continuations only: the first piece is never a '##' piece, the others "
        "always are",
    ),
    (
        ["abcdefghij", "abcdefghijk", "abcde"],
        [UNK, "abcdefghij", "abcde", "##k", "##fghij", "##f"],
        10,
        "max_chars=10: a word of 10 characters is cut, one of 11 is [UNK] whatever the vocabulary",
    ),
    (
        ["xyz", "y", "zz"],
        [UNK, "##x", "##y", "##z", "x", "z"],
        100,
        "pieces of one character; '##y' alone cannot start a word",
    ),
]


def _wordpiece_cases(rng: random.Random) -> Iterator[Case]:
    for words, vocab, max_chars, about in WORDPIECE_SETTINGS:
        shuffled = rng.sample(vocab, len(vocab))  # order must not matter
        yield Case((list(words), shuffled, max_chars), description=about)


register(
    Question(
        id="ch06.q1",
        title="WordPiece: greedy longest match first",
        points=2,
        answer_name="wordpiece",
        reference=_wordpiece_reference,
        make_cases=_wordpiece_cases,
        forbidden=(greedy_longest_match, WordPieceTokenizer),
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
        generator, [12], 12, 0.4, "one sequence, no padding: labels are -100 where not chosen"
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


# ch06.q5: the best answer span -----------------------------------------------------------------


def _best_span_reference(
    start_logits: Tensor, end_logits: Tensor, allowed: Tensor, max_answer_length: int
) -> tuple[Tensor, Tensor]:
    """The span i..j of highest ``start_logits[i] + end_logits[j]`` with ``i <= j <
    i + max_answer_length`` and both ends ``allowed``, by ``coursekit.models.best_span``.
    """
    start, end, _ = best_span(start_logits, end_logits, max_answer_length, allowed)
    return start, end


def _passage_mask(question_lengths: list[int], passage_lengths: list[int], steps: int) -> Tensor:
    """True on the passage of ``[CLS] question [SEP] passage [SEP] [PAD] ...`` rows."""
    positions = torch.arange(steps)
    starts = torch.tensor(question_lengths) + 2
    ends = starts + torch.tensor(passage_lengths)
    return (positions >= starts.unsqueeze(1)) & (positions < ends.unsqueeze(1))


def _span_case(
    generator: torch.Generator,
    question_lengths: list[int],
    passage_lengths: list[int],
    max_answer_length: int,
    about: str,
) -> Case:
    """Random scores; the question, ``[CLS]`` and the padding score higher than the passage, so
    that an answer that ignores ``allowed`` picks them."""
    steps = max(q + p for q, p in zip(question_lengths, passage_lengths, strict=True)) + 3
    allowed = _passage_mask(question_lengths, passage_lengths, steps)
    shape = (len(question_lengths), steps)
    start = float64_normal(generator, *shape, scale=2.0) + 3.0 * ~allowed
    end = float64_normal(generator, *shape, scale=2.0) + 3.0 * ~allowed
    return Case(
        (start, end, allowed, max_answer_length),
        description=f"{about}; question and padding score high but are not allowed",
    )


def _span_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    yield _span_case(generator, [3, 5], [8, 6], 30, "spans within the passage")
    independent = _span_case(
        generator, [2], [9], 30, "the best end lies before the best start: j >= i"
    )
    start, end, allowed, _ = independent.args
    start[0, 9], end[0, 5] = 9.0, 9.0  # argmax start 9 (passage 4..12), argmax end 5
    yield independent
    long = _span_case(generator, [2, 3], [12, 10], 4, "max_answer_length=4: j - i + 1 <= 4")
    start, end, _, _ = long.args
    start[0, 5], end[0, 13], end[0, 8] = 8.0, 8.0, 6.0  # span 5..13 too long; 5..8 has length 4
    start[1, 7], end[1, 11], end[1, 10] = 8.0, 8.0, 5.0  # 7..11 is 5 long; 7..10 is 4
    yield long
    yield _span_case(generator, [4, 2, 3], [7, 9, 5], 1, "max_answer_length=1: start = end")
    yield _span_case(generator, [3, 6], [15, 11], 3, "max_answer_length=3")
    yield _span_case(generator, [1, 4, 2, 5], [6, 3, 8, 10], 30, "a batch of four")


register(
    Question(
        id="ch06.q5",
        title="The best answer span",
        points=1,
        answer_name="best_answer_span",
        reference=_best_span_reference,
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
