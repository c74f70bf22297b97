"""The text classifiers of Chapter 3: padding never matters, torch parity, bag-of-words."""

from __future__ import annotations

import itertools

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence
from torch.utils.data import DataLoader

from coursekit.models.recurrent.classifier import BagOfWordsClassifier, RecurrentClassifier
from coursekit.text import ClassificationBatch, ClassificationCollate, build_vocab_from_iterator
from coursekit.train import fit

VOCAB, EMBEDDING, HIDDEN, CLASSES, PAD = 13, 4, 6, 3, 0
LENGTHS = [6, 3, 1, 4]
TORCH_LAYERS = {"rnn": nn.RNN, "lstm": nn.LSTM, "gru": nn.GRU}
SETTINGS = list(itertools.product(["rnn", "lstm", "gru"], [False, True], [1, 2]))


def make_classifier(cell: str, bidirectional: bool, num_layers: int) -> RecurrentClassifier:
    torch.manual_seed(0)
    model = RecurrentClassifier(
        VOCAB, EMBEDDING, HIDDEN, CLASSES, cell, num_layers, bidirectional, pad_index=PAD
    )
    return model.double().eval()


def make_bag_of_words() -> BagOfWordsClassifier:
    torch.manual_seed(0)
    return BagOfWordsClassifier(VOCAB, CLASSES, embedding_dim=EMBEDDING, pad_index=PAD).double()


def padded_batch(fill: str = "pad", seed: int = 2) -> tuple[torch.Tensor, torch.Tensor]:
    """Texts of ``LENGTHS`` made of ids 1..12, padded with PAD (``fill="pad"``) or random ids."""
    generator = torch.Generator().manual_seed(seed)
    tokens = torch.randint(1, VOCAB, (len(LENGTHS), max(LENGTHS)), generator=generator)
    filler = torch.randint(0, VOCAB, tokens.shape, generator=generator)
    if fill == "pad":
        filler.fill_(PAD)
    lengths = torch.tensor(LENGTHS)
    is_padding = torch.arange(max(LENGTHS)) >= lengths.unsqueeze(1)
    return torch.where(is_padding, filler, tokens), lengths


def assert_padding_is_ignored(model: nn.Module) -> None:
    tokens, lengths = padded_batch("pad")
    logits = model(tokens, lengths)
    assert logits.shape == (len(LENGTHS), CLASSES)
    garbage_tokens, _ = padded_batch("random")
    torch.testing.assert_close(model(garbage_tokens, lengths), logits)
    for row, length in enumerate(LENGTHS):
        alone = model(tokens[row : row + 1, :length], torch.tensor([length]))
        torch.testing.assert_close(alone[0], logits[row])


@pytest.mark.parametrize(("cell", "bidirectional", "num_layers"), SETTINGS)
def test_a_padded_text_gets_the_prediction_it_gets_alone(
    cell: str, bidirectional: bool, num_layers: int
) -> None:
    assert_padding_is_ignored(make_classifier(cell, bidirectional, num_layers))


@pytest.mark.parametrize(("cell", "bidirectional", "num_layers"), SETTINGS)
def test_equals_torch_nn_on_packed_sequences_with_the_same_weights(
    cell: str, bidirectional: bool, num_layers: int
) -> None:
    model = make_classifier(cell, bidirectional, num_layers)
    reference = TORCH_LAYERS[cell](
        EMBEDDING, HIDDEN, num_layers, batch_first=True, bidirectional=bidirectional
    ).double()
    reference.load_state_dict(model.recurrent.state_dict())
    tokens, lengths = padded_batch()
    packed = pack_padded_sequence(
        model.embedding(tokens), lengths, batch_first=True, enforce_sorted=False
    )
    _, state = reference(packed)
    final_hidden = state[0] if cell == "lstm" else state
    directions = 2 if bidirectional else 1
    features = torch.cat(list(final_hidden[-directions:]), dim=-1)  # forward ; backward
    torch.testing.assert_close(model(tokens, lengths), model.output(features))


def test_lengths_may_be_a_list_of_ints() -> None:
    model = make_classifier("gru", True, 1)
    tokens, lengths = padded_batch()
    torch.testing.assert_close(model(tokens, LENGTHS), model(tokens, lengths))


def test_bag_of_words_ignores_padding() -> None:
    assert_padding_is_ignored(make_bag_of_words())


def test_bag_of_words_ignores_word_order() -> None:
    model = make_bag_of_words()
    tokens, lengths = padded_batch()
    shuffled = tokens.clone()
    for row, length in enumerate(LENGTHS):
        order = torch.randperm(length, generator=torch.Generator().manual_seed(row))
        shuffled[row, :length] = tokens[row, order]
    assert not torch.equal(shuffled, tokens)
    torch.testing.assert_close(model(shuffled, lengths), model(tokens, lengths))


def test_bag_of_words_equals_torch_embedding_bag_mean() -> None:
    model = make_bag_of_words()
    tokens, lengths = padded_batch()
    bag = nn.EmbeddingBag(VOCAB, EMBEDDING, mode="mean").double()
    bag.weight.data.copy_(model.embedding.weight.data)
    words = torch.cat([tokens[row, :length] for row, length in enumerate(LENGTHS)])
    offsets = torch.tensor([0, *itertools.accumulate(LENGTHS)][:-1])
    torch.testing.assert_close(model(tokens, lengths), model.output(bag(words, offsets)))


@pytest.mark.parametrize(
    ("lengths", "message"),
    [
        ([3, 3], "one entry per sequence"),
        ([3, 3, 0, 1], "between 1 and the padded length T=6"),
        ([7, 3, 1, 4], "between 1 and the padded length T=6"),
    ],
)
@pytest.mark.parametrize("model", [make_classifier("lstm", False, 1), make_bag_of_words()])
def test_bad_lengths_are_explained(model: nn.Module, lengths: list[int], message: str) -> None:
    tokens, _ = padded_batch()
    with pytest.raises(ValueError, match=message):
        model(tokens, lengths)


@pytest.mark.parametrize("kind", ["recurrent", "bag_of_words"])
def test_trains_with_fit_on_classification_batches(kind: str) -> None:
    texts = ["good fun film", "a good film", "bad dull film", "a bad film", "fun", "dull"]
    labels = [1, 1, 0, 0, 1, 0]
    vocab = build_vocab_from_iterator((text.split() for text in texts), specials=["<pad>"])
    collate = ClassificationCollate(str.split, vocab, pad_index=vocab["<pad>"])
    loader = DataLoader(list(zip(texts, labels, strict=True)), batch_size=3, collate_fn=collate)
    torch.manual_seed(0)
    if kind == "recurrent":
        model = RecurrentClassifier(len(vocab), 8, 8, 2, bidirectional=True)
    else:
        model = BagOfWordsClassifier(len(vocab), 2, embedding_dim=8)

    def loss_fn(model: nn.Module, batch: ClassificationBatch) -> torch.Tensor:
        return F.cross_entropy(model(batch.tokens, batch.lengths), batch.labels)

    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    history = fit(model, loader, loss_fn=loss_fn, optimizer=optimizer, epochs=10, progress=False)
    assert history.train_loss[-1] < 0.1 * history.train_loss[0]
    batch = collate(list(zip(texts, labels, strict=True)))
    predictions = model.eval()(batch.tokens, batch.lengths).argmax(dim=-1)
    assert predictions.tolist() == labels
