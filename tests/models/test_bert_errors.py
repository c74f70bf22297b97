"""The BERT models reject wrong inputs and configurations with messages that say what to fix."""

from __future__ import annotations

import pytest
import torch

from coursekit.models.bert.config import BertConfig
from coursekit.models.bert.heads import BertForPreTraining
from coursekit.models.bert.model import BertModel

CONFIG = BertConfig(
    vocab_size=20, hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
    intermediate_size=16, max_position_embeddings=6,
)  # fmt: skip


@pytest.fixture(scope="module")
def model() -> BertModel:
    return BertModel(CONFIG)


def test_a_wrong_configuration_names_the_field() -> None:
    with pytest.raises(ValueError, match="hidden_size=10 must be divisible by num_attention_heads"):
        BertConfig(hidden_size=10, num_attention_heads=4)
    with pytest.raises(ValueError, match="hidden_dropout_prob is a dropout probability"):
        BertConfig(hidden_dropout_prob=1.5)
    with pytest.raises(ValueError, match="pad_token_id=30 must be an id of the vocabulary"):
        BertConfig(vocab_size=30, pad_token_id=30)
    with pytest.raises(TypeError, match="config must be a coursekit BertConfig"):
        BertModel({"hidden_size": 8})


@pytest.mark.parametrize(
    "inputs, message",
    [
        ({}, "pass exactly one of input_ids and inputs_embeds"),
        ({"input_ids": torch.zeros(4, dtype=torch.long)}, "input_ids must be an integer tensor"),
        ({"input_ids": torch.full((1, 3), 20)}, "input_ids must lie in 0 .. 19"),
        ({"input_ids": torch.zeros(1, 7, dtype=torch.long)}, "max_position_embeddings=6"),
        ({"inputs_embeds": torch.zeros(1, 3, 5)}, "inputs_embeds must be \\[B, T, 8\\]"),
        (
            {"input_ids": torch.zeros(2, 3, dtype=torch.long), "attention_mask": torch.ones(2, 4)},
            "attention_mask must have the shape of the input",
        ),
        (
            {
                "input_ids": torch.zeros(1, 3, dtype=torch.long),
                "attention_mask": torch.full((1, 3), 2),
            },
            "1 for real tokens and 0 for padding",
        ),
        (
            {
                "input_ids": torch.zeros(1, 3, dtype=torch.long),
                "token_type_ids": torch.full((1, 3), 2),
            },
            "token_type_ids must lie in 0 .. 1",
        ),
    ],
)
def test_wrong_inputs_say_what_was_expected(model: BertModel, inputs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        model(**inputs)


def test_from_hf_wants_the_transformers_class_of_the_same_name(model: BertModel) -> None:
    with pytest.raises(
        TypeError,
        match="BertForPreTraining.from_hf expects a Hugging Face BertForPreTraining, got BertModel",
    ):
        BertForPreTraining.from_hf(model)


def test_from_hf_refuses_what_is_not_implemented() -> None:
    transformers = pytest.importorskip("transformers")
    config = transformers.BertConfig(hidden_size=8, num_attention_heads=2, hidden_act="relu")
    with pytest.raises(ValueError, match="only hidden_act='gelu'"):
        BertConfig.from_hf(config)


def test_initialisation_is_berts(model: BertModel) -> None:
    weights = model.encoder.layers[0].attention.query.weight
    assert abs(float(weights.detach().std()) - CONFIG.initializer_range) < 0.01
    assert not model.encoder.layers[0].attention.query.bias.any()
    assert not model.embeddings.token_embeddings.weight[CONFIG.pad_token_id].any()
