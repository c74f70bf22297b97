"""WordPiece: words cut into the longest pieces of a vocabulary (Chapter 6, BERT).

BERT reads subword units. Its vocabulary holds whole words (``the``), word beginnings
(``flight``) and continuations marked with ``##`` (``##less``), so that a word missing from the
vocabulary is still spelled with known pieces: ``flightless -> flight ##less``. A word is cut
greedily, longest match first: take the longest prefix that is in the vocabulary, then the
longest ``##``-continuation of the rest, and so on; a word that cannot be spelled at all, or
that is longer than ``max_input_chars_per_word`` characters, becomes ``[UNK]``.

:class:`WordPieceTokenizer` chains BERT's pre-tokenisation
(:mod:`coursekit.text.wordpiece_pretokenizer`), this matcher and the ``[CLS] A [SEP] B [SEP]``
input format (:mod:`coursekit.text.wordpiece_encoding`). It gives the same ids as Hugging Face
``tokenizers``' ``BertWordPieceTokenizer`` built from the same vocabulary, including its
handling of special tokens written in the text (``"a [MASK] b"`` keeps ``[MASK]`` whole).
Vocabularies are learned by :func:`coursekit.text.wordpiece_training.train_wordpiece`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from coursekit.arguments import require_positive_int
from coursekit.text.wordpiece_encoding import Encoding, bert_input, truncate_pair
from coursekit.text.wordpiece_pretokenizer import pre_tokenize

CONTINUATION = "##"
CLS_TOKEN, SEP_TOKEN, PAD_TOKEN, MASK_TOKEN = "[CLS]", "[SEP]", "[PAD]", "[MASK]"


def greedy_longest_match(
    word: str, vocab: Collection[str], unk_token: str, max_input_chars_per_word: int = 100
) -> list[str]:
    """Cut ``word`` into the longest vocabulary pieces, left to right (Chapter 6, BERT):

        piece_1 = longest prefix w[0:e_1] in V,
        piece_k = "##" + longest w[e_{k-1}:e_k] in V,

    e.g. ``"unaffable" -> ["un", "##aff", "##able"]``; ``[unk_token]`` when some rest has
    no piece in V or the word has more than ``max_input_chars_per_word`` characters.
    """
    if len(word) > max_input_chars_per_word:
        return [unk_token]
    pieces: list[str] = []
    start = 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else CONTINUATION + word[start:end]
            if piece in vocab:
                pieces.append(piece)
                start = end
                break
        else:
            return [unk_token]
    return pieces


class WordPieceTokenizer:
    """BERT's tokenizer: pre-tokenisation, then :func:`greedy_longest_match` on every word
    (Chapter 6, BERT).

    ``vocab`` is a list of tokens (id = position) or a mapping token -> id; it must hold
    ``unk_token`` and, for :meth:`encode`, ``[CLS]`` and ``[SEP]``. ``lowercase`` lowercases the
    text; ``strip_accents`` removes accents (None: when lowercasing, as BERT-uncased does).
    Special tokens of the vocabulary (``[CLS] [SEP] [PAD] [MASK]`` and ``unk_token``) written in
    the text are kept whole.
    """

    def __init__(
        self,
        vocab: Mapping[str, int] | Sequence[str],
        lowercase: bool = True,
        strip_accents: bool | None = None,
        unk_token: str = "[UNK]",
        max_input_chars_per_word: int = 100,
    ) -> None:
        self.vocab = require_vocab(vocab, unk_token)
        self.id_to_token_list = [""] * (max(self.vocab.values()) + 1)
        for token, index in self.vocab.items():
            self.id_to_token_list[index] = token
        self.lowercase = lowercase
        self.strip_accents = lowercase if strip_accents is None else strip_accents
        self.unk_token = unk_token
        self.max_input_chars_per_word = require_positive_int(
            "max_input_chars_per_word", max_input_chars_per_word
        )
        specials = [unk_token, SEP_TOKEN, CLS_TOKEN, PAD_TOKEN, MASK_TOKEN]
        self.special_tokens = [token for token in specials if token in self.vocab]
        longest_first = sorted(self.special_tokens, key=len, reverse=True)
        self.special_pattern = re.compile("|".join(map(re.escape, longest_first)))

    def __len__(self) -> int:
        return len(self.vocab)

    def __repr__(self) -> str:
        return (
            f"WordPieceTokenizer(vocab_size={len(self)}, lowercase={self.lowercase}, "
            f"strip_accents={self.strip_accents})"
        )

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], **options: Any) -> WordPieceTokenizer:
        """Read a BERT ``vocab.txt`` (one token per line, id = line number)."""
        tokens = Path(path).read_text(encoding="utf-8").split("\n")
        return cls(tokens[:-1] if tokens and tokens[-1] == "" else tokens, **options)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the vocabulary as a BERT ``vocab.txt``, one token per line in id order."""
        target = Path(path)
        target.write_text("".join(f"{token}\n" for token in self.id_to_token_list), "utf-8")
        return target

    def tokenize(self, text: str) -> list[str]:
        """The WordPiece tokens of ``text``, no ``[CLS]``/``[SEP]`` added:
        ``"The flightless birds" -> ["the", "flight", "##less", "birds"]`` (Chapter 6).
        """
        require_text("text", text)
        tokens: list[str] = []
        position = 0
        for special in self.special_pattern.finditer(text) if self.special_tokens else ():
            tokens += self.tokenize_plain(text[position : special.start()])
            tokens.append(special.group())
            position = special.end()
        return tokens + self.tokenize_plain(text[position:])

    def tokenize_plain(self, text: str) -> list[str]:
        """WordPiece pieces of every pre-tokenised word of ``text`` (no special tokens in it)."""
        words = pre_tokenize(text, self.lowercase, self.strip_accents)
        return [
            piece
            for word in words
            for piece in greedy_longest_match(
                word, self.vocab, self.unk_token, self.max_input_chars_per_word
            )
        ]

    def encode(
        self,
        text: str,
        pair: str | None = None,
        truncation: bool = False,
        max_length: int = 512,
    ) -> Encoding:
        """``[CLS] A [SEP]`` or ``[CLS] A [SEP] B [SEP]`` with segment ids 0 for ``[CLS] A
        [SEP]`` and 1 for ``B [SEP]`` (Chapter 6, BERT). With ``truncation``, the texts are cut
        longest-first so that the whole input has at most ``max_length`` tokens.
        """
        for token in (CLS_TOKEN, SEP_TOKEN):
            if token not in self.vocab:
                raise ValueError(f"encode needs {token} in the vocabulary; add it to vocab")
        tokens_a = self.tokenize(text)
        tokens_b = None if pair is None else self.tokenize(pair)
        if truncation:
            tokens_a, tokens_b = truncate_pair(tokens_a, tokens_b, max_length)
        tokens, type_ids = bert_input(tokens_a, tokens_b, CLS_TOKEN, SEP_TOKEN)
        return Encoding(self.convert_tokens_to_ids(tokens), tokens, type_ids, [1] * len(tokens))

    def convert_tokens_to_ids(self, tokens: Sequence[str]) -> list[int]:
        """The id of every token (unknown tokens get the id of ``unk_token``)."""
        unk_id = self.vocab[self.unk_token]
        return [self.vocab.get(token, unk_id) for token in tokens]

    def convert_ids_to_tokens(self, ids: Sequence[int]) -> list[str]:
        """The token of every id."""
        for index in ids:
            if not 0 <= index < len(self.id_to_token_list):
                raise ValueError(
                    f"token ids must lie in 0 .. {len(self.id_to_token_list) - 1}, got {index}"
                )
        return [self.id_to_token_list[index] for index in ids]

    def token_to_id(self, token: str) -> int | None:
        """The id of ``token``, None if it is not in the vocabulary."""
        return self.vocab.get(token)

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        """Tokens joined by spaces, ``##`` continuations glued to the piece before them:
        ``[the, flight, ##less] -> "the flightless"``.
        """
        tokens = self.convert_ids_to_tokens(ids)
        if skip_special_tokens:
            tokens = [token for token in tokens if token not in self.special_tokens]
        return " ".join(tokens).replace(f" {CONTINUATION}", "")

    @property
    def pad_id(self) -> int:
        """The id of ``[PAD]``."""
        return self.special_id(PAD_TOKEN)

    @property
    def mask_id(self) -> int:
        """The id of ``[MASK]``."""
        return self.special_id(MASK_TOKEN)

    @property
    def cls_id(self) -> int:
        """The id of ``[CLS]``."""
        return self.special_id(CLS_TOKEN)

    @property
    def sep_id(self) -> int:
        """The id of ``[SEP]``."""
        return self.special_id(SEP_TOKEN)

    @property
    def special_ids(self) -> list[int]:
        """The ids of the special tokens the vocabulary holds."""
        return [self.vocab[token] for token in self.special_tokens]

    def special_id(self, token: str) -> int:
        """The id of a special token, with an error naming it when the vocabulary lacks it."""
        if token not in self.vocab:
            raise ValueError(f"the vocabulary has no {token} token; add it to vocab")
        return self.vocab[token]


def require_text(name: str, text: object) -> None:
    """A text argument must be a ``str``."""
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a str, got {type(text).__name__}: {text!r:.60}")


def require_vocab(vocab: Mapping[str, int] | Sequence[str], unk_token: str) -> dict[str, int]:
    """The vocabulary as a dict token -> id: distinct tokens, distinct ids >= 0, with the
    unknown token in it.
    """
    if isinstance(vocab, str) or not isinstance(vocab, (Mapping, Sequence)):
        raise TypeError(
            f"vocab must be a list of tokens or a dict token -> id, got {type(vocab).__name__}; "
            "read a vocab.txt with WordPieceTokenizer.from_file(path)"
        )
    mapping = dict(vocab) if isinstance(vocab, Mapping) else {}
    if not isinstance(vocab, Mapping):
        for index, token in enumerate(vocab):
            if token in mapping:
                raise ValueError(
                    f"the vocabulary lists {token!r} twice (ids {mapping[token]}, {index})"
                )
            mapping[token] = index
    ids = list(mapping.values())
    if not ids or len(set(ids)) != len(ids) or min(ids) < 0:
        raise ValueError("vocab must map its tokens to distinct ids >= 0 and not be empty")
    if unk_token not in mapping:
        raise ValueError(
            f"the unknown token {unk_token!r} is not in the vocabulary: add it, or pass the "
            "vocabulary's own unknown token as unk_token"
        )
    return mapping
