"""WordPiece merges by association score against frequency-based merges (Chapter 6, BERT).

:func:`coursekit.text.wordpiece_training.train_wordpiece` merges the pair of highest
``count(ab) / (count(a) count(b))``; Hugging Face ``tokenizers``' ``WordPieceTrainer`` merges
the most frequent pair (BPE's rule) and then writes the result in WordPiece's ``##`` form.
:func:`compare_wordpiece_trainers` learns one vocabulary with each from the same texts and
measures both with the same tokenizer on held-out texts: how many tokens a word costs and how
often a word cannot be spelled at all. ``tokenizers`` is a development dependency of coursekit,
imported only here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from coursekit.text.wordpiece import WordPieceTokenizer
from coursekit.text.wordpiece_training import count_words, tokens_per_word, train_wordpiece


@dataclass(frozen=True)
class VocabularyReport:
    """How a vocabulary spells held-out text: ``tokens_per_word`` (mean pieces per running
    word) and ``unknown_rate`` (share of running words that become ``[UNK]``).
    """

    trainer: str
    vocab_size: int
    tokens_per_word: float
    unknown_rate: float


def vocabulary_report(trainer: str, vocab: Sequence[str], texts: Sequence[str]) -> VocabularyReport:
    """Tokens per word and unknown rate of ``vocab`` on ``texts`` (Chapter 6, BERT)."""
    words = count_words(texts)
    tokenizer = WordPieceTokenizer(vocab)
    unknown = sum(
        count for word, count in words.items() if tokenizer.tokenize_plain(word) == ["[UNK]"]
    )
    return VocabularyReport(
        trainer, len(vocab), tokens_per_word(words, vocab), unknown / max(1, sum(words.values()))
    )


def tokenizers_wordpiece_vocab(
    texts: Sequence[str], vocab_size: int, min_frequency: int = 2
) -> list[str]:
    """The vocabulary that ``tokenizers``' ``BertWordPieceTokenizer`` learns, in id order."""
    try:
        from tokenizers import BertWordPieceTokenizer
    except ModuleNotFoundError as error:
        raise ModuleNotFoundError(
            "comparing with Hugging Face's trainer needs the tokenizers package: pip install "
            "tokenizers (it is in coursekit's dev extra)"
        ) from error
    tokenizer = BertWordPieceTokenizer()
    tokenizer.train_from_iterator(
        texts, vocab_size=vocab_size, min_frequency=min_frequency, show_progress=False
    )
    vocab = tokenizer.get_vocab()
    return sorted(vocab, key=vocab.__getitem__)


def compare_wordpiece_trainers(
    train_texts: Sequence[str],
    test_texts: Sequence[str],
    vocab_size: int,
    min_pair_count: int = 2,
) -> list[VocabularyReport]:
    """Learn a vocabulary of ``vocab_size`` by the association score (coursekit) and by
    frequency merges (``tokenizers``) on ``train_texts``; report both on ``test_texts``
    (Chapter 6, BERT).
    """
    ours = train_wordpiece(train_texts, vocab_size, min_pair_count=min_pair_count)
    theirs = tokenizers_wordpiece_vocab(train_texts, vocab_size, min_pair_count)
    return [
        vocabulary_report("coursekit: count(ab) / (count(a) count(b))", ours, test_texts),
        vocabulary_report("tokenizers: most frequent pair", theirs, test_texts),
    ]
