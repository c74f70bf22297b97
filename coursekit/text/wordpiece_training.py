"""Learning a WordPiece vocabulary by the association score of pairs (Chapter 6, BERT).

WordPiece grows a vocabulary from characters. Every word of the corpus starts spelled as its
characters, the first one plain and the others as continuations (``word -> w ##o ##r ##d``);
then, again and again, the pair of adjacent symbols with the highest score

    score(a, b) = count(ab) / (count(a) * count(b))

is merged into one new symbol (``w ##o -> wo``, ``##r ##d -> ##rd``), until the vocabulary has
``vocab_size`` entries. Counts are over the corpus (each word weighted by its frequency) in the
current spelling. Google never published WordPiece's trainer: Schuster and Nakajima (2012)
add the unit that most increases the likelihood of the training data under the language model,
and this score is the reconstruction of Hugging Face's course. It is an association score, the
pointwise mutual information of ``a`` and ``b`` without its logarithm (up to a factor common to
all pairs): a pair scores high when its parts occur together far more often than chance, not
merely when it is frequent (BPE's criterion, and the one Hugging Face ``tokenizers``' WordPiece
trainer uses). It is not the likelihood gain: under a unigram model of the symbols, merging
``a b`` raises the log-likelihood of a corpus of N symbols by about
``count(ab) * log(count(ab) * N / (count(a) * count(b)))``, frequency times PMI, so a rare pair
of rare symbols can outscore a frequent pair whose merge gains far more likelihood.
"""

from __future__ import annotations

import heapq
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

from coursekit.arguments import require_positive_int
from coursekit.text.wordpiece import CONTINUATION, greedy_longest_match
from coursekit.text.wordpiece_pretokenizer import pre_tokenize

SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
Pair = tuple[str, str]


def pair_score(pair_count: int, first_count: int, second_count: int) -> float:
    """The association score ``score(a, b) = count(ab) / (count(a) * count(b))``
    (Chapter 6, BERT).
    """
    return pair_count / (first_count * second_count)


def merged_symbol(first: str, second: str) -> str:
    """The symbol of a merged pair: ``("w", "##o") -> "wo"``, ``("##r", "##d") -> "##rd"``."""
    return first + second.removeprefix(CONTINUATION)


def spell(word: str) -> list[str]:
    """A word as its characters, all but the first marked as continuations: ``w ##o ##r ##d``."""
    return [word[0], *(CONTINUATION + char for char in word[1:])]


def merge_in(symbols: list[str], first: str, second: str) -> list[str]:
    """``symbols`` with every adjacent ``first second`` (left to right) replaced by their merge."""
    merged: list[str] = []
    index = 0
    while index < len(symbols):
        if index + 1 < len(symbols) and symbols[index] == first and symbols[index + 1] == second:
            merged.append(merged_symbol(first, second))
            index += 2
        else:
            merged.append(symbols[index])
            index += 1
    return merged


class WordPieceLearner:
    """The state of WordPiece training: the spelling of every distinct word, the counts of
    symbols and of adjacent pairs, and a max-heap of pair scores (Chapter 6, BERT).

    Only the words that contain the merged pair are re-spelled, and only the scores that a merge
    changes are pushed again; a heap entry whose score is no longer the pair's current score is
    stale and skipped.
    """

    def __init__(self, word_counts: Counter[str], min_pair_count: int) -> None:
        self.frequencies = list(word_counts.values())
        self.spellings = [spell(word) for word in word_counts]
        self.min_pair_count = min_pair_count
        self.symbol_counts: Counter[str] = Counter()
        self.pair_counts: Counter[Pair] = Counter()
        self.words_with_pair: defaultdict[Pair, set[int]] = defaultdict(set)
        self.pairs_with_symbol: defaultdict[str, set[Pair]] = defaultdict(set)
        for index in range(len(self.spellings)):
            self.count_word(index, sign=1)
        self.heap: list[tuple[float, str, str]] = []
        for pair in self.pair_counts:
            self.push(pair)

    def alphabet(self) -> list[str]:
        """Every symbol of the initial spelling, sorted."""
        return sorted(self.symbol_counts)

    def count_word(self, index: int, sign: int) -> None:
        """Add (``sign=1``) or remove (``sign=-1``) the symbols and pairs of word ``index``."""
        symbols, frequency = self.spellings[index], self.frequencies[index]
        for symbol in symbols:
            self.symbol_counts[symbol] += sign * frequency
        for pair in zip(symbols[:-1], symbols[1:], strict=True):
            self.pair_counts[pair] += sign * frequency
            if sign > 0:
                self.words_with_pair[pair].add(index)
                self.pairs_with_symbol[pair[0]].add(pair)
                self.pairs_with_symbol[pair[1]].add(pair)

    def score(self, pair: Pair) -> float:
        """The current association score of ``pair``."""
        first, second = pair
        counts = self.pair_counts[pair], self.symbol_counts[first], self.symbol_counts[second]
        return pair_score(*counts)

    def push(self, pair: Pair) -> None:
        """Put the pair's current score on the heap if the pair is frequent enough."""
        if self.pair_counts[pair] >= self.min_pair_count:
            heapq.heappush(self.heap, (-self.score(pair), *pair))

    def best_pair(self) -> Pair | None:
        """The pair of highest score (ties: the alphabetically first), None when none is left."""
        while self.heap:
            negative_score, first, second = heapq.heappop(self.heap)
            pair = (first, second)
            if self.pair_counts[pair] >= self.min_pair_count and -negative_score == self.score(
                pair
            ):
                return pair
        return None

    def merge(self, pair: Pair) -> None:
        """Merge ``pair`` in every word that contains it and push the scores that changed: those
        of the pairs holding ``a``, ``b`` or ``ab``, the only symbols whose counts moved.
        """
        first, second = pair
        changed_symbols = {first, second, merged_symbol(first, second)}
        for index in sorted(self.words_with_pair.pop(pair)):
            self.count_word(index, sign=-1)
            self.spellings[index] = merge_in(self.spellings[index], first, second)
            self.count_word(index, sign=1)
        for symbol in changed_symbols:
            for touched in self.pairs_with_symbol[symbol]:
                self.push(touched)


def count_words(
    texts: Iterable[str], lowercase: bool = True, strip_accents: bool | None = None
) -> Counter[str]:
    """How often every word of BERT's pre-tokenisation occurs in ``texts``."""
    strip = lowercase if strip_accents is None else strip_accents
    return Counter(word for text in texts for word in pre_tokenize(text, lowercase, strip))


def train_wordpiece(
    texts: Iterable[str],
    vocab_size: int,
    *,
    lowercase: bool = True,
    strip_accents: bool | None = None,
    min_pair_count: int = 2,
    special_tokens: Sequence[str] = SPECIAL_TOKENS,
) -> list[str]:
    """Learn a WordPiece vocabulary of at most ``vocab_size`` tokens (Chapter 6, BERT).

    Starting from the special tokens and every character (first and ``##`` forms), merge
    the adjacent pair of highest ``score(a, b) = count(ab) / (count(a) count(b))`` until
    the vocabulary is full or no pair occurs ``min_pair_count`` times. Returns the tokens
    in id order: specials, alphabet, then merges in the order they were made; pass it to
    :class:`coursekit.text.wordpiece.WordPieceTokenizer`.
    """
    word_counts = count_words(texts, lowercase, strip_accents)
    require_training_arguments(vocab_size, min_pair_count, special_tokens, word_counts)
    learner = WordPieceLearner(word_counts, min_pair_count)
    vocab = list(dict.fromkeys([*special_tokens, *learner.alphabet()]))
    known = set(vocab)
    while len(vocab) < vocab_size:
        pair = learner.best_pair()
        if pair is None:
            break
        learner.merge(pair)
        symbol = merged_symbol(*pair)
        if symbol not in known:
            vocab.append(symbol)
            known.add(symbol)
    return vocab


def tokens_per_word(words: Counter[str], vocab: Sequence[str], unk_token: str = "[UNK]") -> float:
    """The mean number of WordPiece tokens per running word under ``vocab`` (Chapter 6)."""
    known = set(vocab)
    pieces = sum(
        count * len(greedy_longest_match(word, known, unk_token)) for word, count in words.items()
    )
    return pieces / max(1, sum(words.values()))


def require_training_arguments(
    vocab_size: int, min_pair_count: int, special_tokens: Sequence[str], words: Counter[str]
) -> None:
    """Reject sizes that are not positive integers and an empty corpus."""
    for name, value in (("vocab_size", vocab_size), ("min_pair_count", min_pair_count)):
        require_positive_int(name, value)
    if vocab_size <= len(special_tokens):
        raise ValueError(
            f"vocab_size={vocab_size} leaves no room next to the {len(special_tokens)} special "
            "tokens: ask for a larger vocabulary"
        )
    if not words:
        raise ValueError("the texts hold no word to learn from: pass a non-empty corpus")
