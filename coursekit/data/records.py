"""The shapes of one example (Chapter 1, Text as sequences).

Every dataset of :mod:`coursekit.data` is a plain Python ``list`` of one of these records, or of
``str`` for language-model corpora. A list already is a ``torch.utils.data.Dataset`` (it has
``__len__`` and ``__getitem__``), and named tuples unpack like the ``(x, y)`` pairs that
``DataLoader`` and the collate functions of :mod:`coursekit.text` expect.
"""

from __future__ import annotations

from typing import NamedTuple


class Pair(NamedTuple):
    """A translation-like example: a source sentence ``x`` and its target sentence ``y``.

    Used by sequence-to-sequence models (Chapter 4, Seq2seq and attention), which learn
    ``p(y | x) = prod_t p(y_t | y_<t, x)``.
    """

    source: str
    target: str


class Labelled(NamedTuple):
    """A classification example: a text and its class ``label`` in ``{0, ..., C - 1}``.

    For sentiment, ``label = 1`` means positive and ``0`` negative (Chapter 3, LSTM and GRU).
    """

    text: str
    label: int


class SequencePair(NamedTuple):
    """A token-id sequence task: ``target = f(source)``, e.g. copy, reverse or sort.

    Ids count from :data:`coursekit.data.synthetic.FIRST_TOKEN_ID`; the smaller ids are the
    reserved specials ``pad = 0``, ``sos = 1``, ``eos = 2`` (Chapter 5, Transformers).
    """

    source: list[int]
    target: list[int]


class AlignedPair(NamedTuple):
    """A :class:`Pair` with its true word alignment (Chapter 4, Seq2seq and attention).

    ``alignment[i]`` lists the source token positions that target token ``i`` aligns with
    (empty for a token that translates nothing, like "and"). Which tokenizer the positions
    count in is stated by the dataset that makes the pairs (see
    :mod:`coursekit.data.alignment`).
    """

    source: str
    target: str
    alignment: list[list[int]]
