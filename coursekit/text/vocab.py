"""The vocabulary: a bijection between tokens and integer ids (Chapter 1, Text as sequences).

:class:`Vocab` and :func:`build_vocab_from_iterator` reproduce torchtext 0.18's API and results id
for id (the torchtext lane of the tests proves it on real text). Errors are the ones torchtext
raises, ``RuntimeError``, and also the natural Python type (``KeyError``, ``IndexError``,
``ValueError``), so both styles of ``except`` work.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from coursekit.arguments import require_positive_int


class UnknownTokenError(KeyError, RuntimeError):
    """A token that is not in the vocabulary was looked up and no default index is set."""

    def __str__(self) -> str:  # KeyError would print the message in quotes
        return str(self.args[0])


class TokenIndexError(IndexError, RuntimeError):
    """An index outside ``[0, len(vocab))`` was looked up, or inserted outside ``[0, len]``."""


class DuplicateTokenError(ValueError, RuntimeError):
    """A token was added that the vocabulary already holds (ids must stay one-to-one)."""


class Vocab:
    """Map tokens to ids and back: ``stoi[itos[i]] == i`` (Chapter 1, Text as sequences).

    ``itos`` ("index to string") is the list of tokens, so token ``itos[i]`` has id ``i``;
    ``stoi`` is its inverse. Looking up a token that is not in ``stoi`` returns the default
    index when one is set (usually the id of ``"<unk>"``) and raises :class:`UnknownTokenError`
    otherwise. Save a Vocab with ``pickle`` or ``torch.save``; ``torch.load`` needs
    ``weights_only=False`` or ``torch.serialization.safe_globals([Vocab])``.
    """

    def __init__(self, tokens: Iterable[str], default_index: int | None = None) -> None:
        self._itos: list[str] = []
        self._stoi: dict[str, int] = {}
        for token in tokens:
            self.append_token(token)
        self._default_index = default_index

    def __reduce__(self) -> tuple[type[Vocab], tuple[list[str], int | None]]:
        return Vocab, (self._itos, self._default_index)

    def __len__(self) -> int:
        return len(self._itos)

    def __contains__(self, token: object) -> bool:
        return token in self._stoi

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Vocab):
            return NotImplemented
        return self._itos == other._itos and self._default_index == other._default_index

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"Vocab(size={len(self)}, default_index={self._default_index})"

    def __getitem__(self, token: str) -> int:
        """The id of ``token``: ``stoi[token]``, or the default index for an unknown token."""
        if not isinstance(token, str):
            raise TypeError(
                f"vocab[...] takes a token string, got {type(token).__name__}; "
                "use vocab.lookup_token(index) to turn an id back into its token"
            )
        index = self._stoi.get(token, self._default_index)
        if index is None:
            raise UnknownTokenError(
                f"token {token!r} is not in the vocabulary and no default index is set; "
                "call vocab.set_default_index(vocab['<unk>']) to map unknown tokens to <unk>"
            )
        return index

    def __call__(self, tokens: Iterable[str]) -> list[int]:
        """``vocab(tokens)`` is ``vocab.lookup_indices(tokens)``, as in torchtext."""
        return self.lookup_indices(tokens)

    def lookup_indices(self, tokens: Iterable[str]) -> list[int]:
        """The ids of a sequence of tokens, ``[vocab[t] for t in tokens]``."""
        return [self[token] for token in tokens]

    def lookup_token(self, index: int) -> str:
        """The token with id ``index``: ``itos[index]`` for ``0 <= index < len(vocab)``."""
        if not 0 <= index < len(self._itos):
            raise TokenIndexError(
                f"index {index} is out of range for a vocabulary of size {len(self._itos)}"
            )
        return self._itos[index]

    def lookup_tokens(self, indices: Iterable[int]) -> list[str]:
        """The tokens of a sequence of ids, ``[itos[i] for i in indices]``."""
        return [self.lookup_token(int(index)) for index in indices]

    def set_default_index(self, index: int | None) -> None:
        """Return ``index`` for unknown tokens from now on; ``None`` makes them raise again.

        As in torchtext the index is stored as given: it is not checked against the size and
        does not move when tokens are inserted before it.
        """
        self._default_index = index

    def get_default_index(self) -> int | None:
        """The index returned for unknown tokens, or ``None`` when they raise."""
        return self._default_index

    def get_itos(self) -> list[str]:
        """A copy of the id-to-token list."""
        return list(self._itos)

    def get_stoi(self) -> dict[str, int]:
        """A copy of the token-to-id dictionary."""
        return dict(self._stoi)

    def append_token(self, token: str) -> None:
        """Give ``token`` the next free id, ``len(vocab)``."""
        self.insert_token(token, len(self._itos))

    def insert_token(self, token: str, index: int) -> None:
        """Give ``token`` the id ``index`` and shift the ids of ``itos[index:]`` up by one."""
        if not 0 <= index <= len(self._itos):
            raise TokenIndexError(
                f"cannot insert at index {index}: a vocabulary of size {len(self._itos)} "
                f"accepts indices 0 to {len(self._itos)}"
            )
        if token in self._stoi:
            raise DuplicateTokenError(
                f"token {token!r} is already in the vocabulary with index {self._stoi[token]}"
            )
        self._itos.insert(index, token)
        for position in range(index, len(self._itos)):
            self._stoi[self._itos[position]] = position


def count_tokens(iterator: Iterable[Iterable[str]]) -> Counter[str]:
    """Count every token of every token list: ``count[t] = number of occurrences of t``."""
    counts: Counter[str] = Counter()
    for tokens in iterator:
        counts.update(tokens)
    return counts


def build_vocab_from_iterator(
    iterator: Iterable[Iterable[str]],
    min_freq: int = 1,
    specials: Sequence[str] | None = None,
    special_first: bool = True,
    max_tokens: int | None = None,
) -> Vocab:
    """Build a :class:`Vocab` from token lists, exactly as torchtext 0.18 does (Chapter 1).

    Rule: count the tokens; rank them by descending count, ties in code-point order of the
    token; keep the first ``max_tokens - len(specials)`` of that ranking (all when ``max_tokens``
    is None); then drop tokens counted fewer than ``min_freq`` times and tokens that are
    specials; put ``specials`` first (ids ``0..len(specials)-1``) or last. As in torchtext a
    special that occurs in the text still uses up one of the ``max_tokens`` places.

    The default index is not set: call ``vocab.set_default_index(vocab["<unk>"])``.
    """
    require_positive_int("min_freq", min_freq)
    specials = list(specials or [])
    ranked = sorted(count_tokens(iterator).items(), key=lambda item: (-item[1], item[0]))
    if max_tokens is not None:
        if max_tokens <= len(specials):
            raise ValueError(
                f"max_tokens={max_tokens} leaves no room beside the {len(specials)} specials; "
                "max_tokens counts the specials, so make it larger than len(specials)"
            )
        ranked = ranked[: max_tokens - len(specials)]
    special_set = set(specials)
    kept = [token for token, count in ranked if count >= min_freq and token not in special_set]
    return Vocab(specials + kept if special_first else kept + specials)
