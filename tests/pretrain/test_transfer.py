"""Chapter 6's pretraining experiment: the adjective filters, the masked-adjective measurement
(right on a model that knows the polarities, chance on the control and an untrained model),
the paired arms, and the learning-rate pilot recorded next to the checkpoints."""

from __future__ import annotations

import json

import pytest
import torch

from coursekit import data
from coursekit.data.records import Labelled
from coursekit.data.sentiment import POSITIVE
from coursekit.models.bert.heads import BertForPreTraining
from coursekit.pretrain.checkpoint import (
    REVIEWS_BERT,
    REVIEWS_CONTROL_BERT,
    TRANSFER_PILOT,
    load_pretrained,
)
from coursekit.pretrain.transfer import (
    ARMS,
    LABELLED_ADJECTIVES,
    Arm,
    Experiment,
    adjectives_in,
    avoiding,
    compare_arms,
    masked_adjective_polarity,
    masked_inputs,
    unseen_adjectives,
    using_only,
)

HELD_OUT = data.load("review_corpus", "valid", n=300)


def test_the_filters_keep_the_reviews_by_their_adjectives() -> None:
    reviews = [
        Labelled("the plot was good and the cast was awful.", 0),
        Labelled("overall, the score was really stunning.", 1),
        Labelled("the pacing was dull in the second half.", 0),
    ]
    assert adjectives_in(reviews[0].text) == {"good", "awful"}
    assert using_only(reviews, LABELLED_ADJECTIVES) == [reviews[0], reviews[2]]
    assert avoiding(reviews, LABELLED_ADJECTIVES) == [reviews[1]]
    experiment = unseen_adjectives("valid")
    assert all(adjectives_in(r.text) <= LABELLED_ADJECTIVES for r in experiment.pool)
    (tests,) = experiment.tests.values()
    assert tests and not any(adjectives_in(r.text) & LABELLED_ADJECTIVES for r in tests)


def test_each_text_masks_one_adjective_and_keeps_the_other() -> None:
    _, tokenizer = load_pretrained(REVIEWS_BERT)
    inputs, kept = masked_inputs(tokenizer, ["the plot was superb and the cast was dull."])
    assert kept == ["superb", "dull"]
    assert inputs[0][inputs[0].index("[MASK]") - 1] == "was" and "dull" in inputs[1]
    assert [tokens.count("[MASK]") for tokens in inputs] == [1, 1]
    assert "superb" not in inputs[1] and "dull" not in inputs[0]
    with pytest.raises(ValueError, match="not a review of the form"):
        masked_inputs(tokenizer, ["the plot was superb."])


def test_a_model_that_always_says_positive_is_right_half_the_time() -> None:
    model, tokenizer = load_pretrained(REVIEWS_CONTROL_BERT)
    with torch.no_grad():
        bias = model.mlm.bias
        bias[tokenizer.convert_tokens_to_ids(list(POSITIVE))] += 100.0
    required_positive = sum(
        sum(word in POSITIVE for word in text.replace(".", " ").split()) for text in HELD_OUT
    ) / (2 * len(HELD_OUT))
    assert masked_adjective_polarity(model, tokenizer, HELD_OUT) == pytest.approx(required_positive)


def test_the_pretrained_model_knows_the_polarities_and_the_controls_do_not() -> None:
    pretrained, tokenizer = load_pretrained(REVIEWS_BERT)
    control, control_tokenizer = load_pretrained(REVIEWS_CONTROL_BERT)
    torch.manual_seed(0)
    untrained = BertForPreTraining(pretrained.config)
    assert masked_adjective_polarity(pretrained, tokenizer, HELD_OUT) > 0.95
    for model, its_tokenizer in ((control, control_tokenizer), (untrained, tokenizer)):
        assert abs(masked_adjective_polarity(model, its_tokenizer, HELD_OUT) - 0.5) < 0.1


def test_arms_with_the_same_start_get_the_same_draws() -> None:
    reviews = data.load("sentiment", "train", n=200)
    experiment = Experiment("tiny", reviews, 16, {"valid": data.load("sentiment", "valid", n=50)})
    arms = [Arm("one", REVIEWS_BERT, False), Arm("two", REVIEWS_BERT, False)]
    scores = compare_arms(arms, {"one": 1e-3, "two": 1e-3}, experiment, draws=[0, 1], steps=3)
    assert len(scores["one"]["valid"]) == 2
    assert scores["one"]["valid"] == pytest.approx(scores["two"]["valid"], abs=1e-6)


def test_the_recorded_pilot_chose_each_arms_best_rate_and_replays() -> None:
    pilot = json.loads(TRANSFER_PILOT.read_text())
    assert pilot["command"] == "python -m coursekit.pretrain transfer-pilot --out " + (
        "coursekit/checkpoints/bert-reviews-pilot.json"
    )
    rates = [f"{rate:g}" for rate in pilot["learning_rates"]]
    for experiment, arms in pilot["validation_accuracy"].items():
        assert set(arms) == {arm.name for arm in ARMS}
        for arm, row in arms.items():
            assert list(row) == rates
            assert all(len(draws) == len(pilot["draws"]) for draws in row.values())
            best = max(rates, key=lambda rate: sum(row[rate]))
            assert pilot["chosen"][experiment][arm] == float(best)
    experiment = unseen_adjectives("valid")
    first = pilot["validation_accuracy"][experiment.name]["pretrained"]
    rate = pilot["learning_rates"][0]
    replay = compare_arms(ARMS[:1], {"pretrained": rate}, experiment, pilot["draws"][:1])
    (accuracy,) = replay["pretrained"]["valid"]
    assert accuracy == pytest.approx(first[f"{rate:g}"][0], abs=0.03)  # other CPUs round apart
