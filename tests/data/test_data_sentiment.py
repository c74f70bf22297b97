"""``sentiment``: the grammar's rules hold, and bag-of-words fails exactly where it should."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest
import torch

from coursekit.data import Labelled, load

# A lexicon written here, independently of the module's word lists.
CLEARLY_POSITIVE = {"superb", "wonderful", "excellent"}
CLEARLY_NEGATIVE = {"awful", "terrible", "dreadful"}
CONTRAST_OR_NEGATION = re.compile(r"\bnot\b|\bbut\b|\balthough\b|\beven though\b")


def tokens(text: str) -> list[str]:
    return re.findall(r"[\w']+|[^\w\s]", text)


def polarity_of(clause: str) -> int | None:
    """1 / 0 for a clause with one clearly polar word, flipped by "not"; None if unclear."""
    words = set(tokens(clause))
    positive, negative = words & CLEARLY_POSITIVE, words & CLEARLY_NEGATIVE
    if len(positive) + len(negative) != 1:
        return None
    return int(bool(positive)) ^ int("not" in words)


def test_labels_are_binary_and_balanced():
    labels = [review.label for review in load("sentiment", "train")]
    assert set(labels) == {0, 1}
    assert 0.45 < sum(labels) / len(labels) < 0.55


def test_plain_reviews_have_no_negation_or_contrast_and_follow_their_adjectives():
    checked = 0
    for review in load("sentiment", "test", plain_fraction=1.0):
        assert not CONTRAST_OR_NEGATION.search(review.text)
        expected = polarity_of(review.text)
        if expected is not None:
            assert review.label == expected, review
            checked += 1
    assert checked > 50


def test_but_lets_the_second_clause_decide():
    checked = 0
    for review in load("sentiment", "train", plain_fraction=0.0):
        before, but, after = review.text.partition(", but ")
        if but and polarity_of(after) is not None and polarity_of(before) is not None:
            assert review.label == polarity_of(after), review
            checked += 1
    assert checked > 10


def test_a_single_negated_clause_flips_its_adjective():
    checked = 0
    for review in load("sentiment", "train", plain_fraction=0.0):
        single_clause = not re.search(r"\band\b|\bbut\b|\balthough\b|\beven though\b", review.text)
        if single_clause and polarity_of(review.text) is not None:
            assert "not" in tokens(review.text)
            assert review.label == polarity_of(review.text), review
            checked += 1
    assert checked > 10


def test_hard_split_is_made_of_mirror_pairs():
    groups: dict[tuple[str, ...], list[Labelled]] = defaultdict(list)
    hard = load("sentiment", "hard")
    for review in hard:
        assert CONTRAST_OR_NEGATION.search(review.text)
        groups[tuple(sorted(tokens(review.text)))].append(review)
    assert len(groups) == len(hard) // 2
    for pair in groups.values():
        assert len(pair) == 2
        assert pair[0].text != pair[1].text
        assert {pair[0].label, pair[1].label} == {0, 1}


def bag_of_words_features(reviews: list[Labelled], vocabulary: dict[str, int]) -> torch.Tensor:
    rows, columns = [], []
    for row, review in enumerate(reviews):
        for token in tokens(review.text):
            if token in vocabulary:
                rows.append(row)
                columns.append(vocabulary[token])
    counts = torch.zeros(len(reviews), len(vocabulary))
    ones = torch.ones(len(rows))
    return counts.index_put_((torch.tensor(rows), torch.tensor(columns)), ones, accumulate=True)


def accuracy(weights: torch.nn.Linear, reviews: list[Labelled], vocab: dict[str, int]) -> float:
    with torch.no_grad():
        logits = weights(bag_of_words_features(reviews, vocab)).squeeze(1)
    labels = torch.tensor([review.label for review in reviews])
    return ((logits > 0).long() == labels).float().mean().item()


@pytest.fixture(scope="module")
def bag_of_words_classifier() -> tuple[torch.nn.Linear, dict[str, int]]:
    """Logistic regression on word counts, trained on the (mixed) train split."""
    train = load("sentiment", "train")
    vocabulary = {w: i for i, w in enumerate(sorted({t for r in train for t in tokens(r.text)}))}
    features = bag_of_words_features(train, vocabulary)
    labels = torch.tensor([float(review.label) for review in train])
    generator = torch.Generator().manual_seed(0)
    model = torch.nn.Linear(len(vocabulary), 1)
    torch.nn.init.normal_(model.weight, std=0.01, generator=generator)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
    for _ in range(100):
        optimizer.zero_grad()
        loss = torch.nn.functional.binary_cross_entropy_with_logits(
            model(features).squeeze(1), labels
        )
        loss.backward()
        optimizer.step()
    return model, vocabulary


def test_bag_of_words_does_well_on_plain_reviews(bag_of_words_classifier):
    model, vocabulary = bag_of_words_classifier
    assert accuracy(model, load("sentiment", "test", plain_fraction=1.0), vocabulary) > 0.85


def test_bag_of_words_is_at_chance_on_the_hard_split(bag_of_words_classifier):
    model, vocabulary = bag_of_words_classifier
    hard_accuracy = accuracy(model, load("sentiment", "hard"), vocabulary)
    assert hard_accuracy < 0.65
    assert hard_accuracy == pytest.approx(0.5)  # mirror pairs: exactly one of each is right


def test_plain_fraction_is_checked():
    with pytest.raises(ValueError, match="plain_fraction must be a number between 0 and 1"):
        load("sentiment", plain_fraction=1.5)
