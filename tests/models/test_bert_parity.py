"""coursekit's BERT models equal Hugging Face ``transformers``' (eager attention; 5.x in the main
suite, Colab's 4.57.1 in ``make test-colab``) in float64: every output field, every hidden state
and attention map, and the gradients of the inputs (``inputs_embeds``) and of every parameter
matched by name, for BertModel (with and without pooler), BertForPreTraining, BertForMaskedLM,
BertForSequenceClassification, BertForTokenClassification and BertForQuestionAnswering, copied with
``from_hf``. Random small configurations (layers, heads, head size, feed-forward size, vocabulary,
positions, segments), padding in ``attention_mask``, segments in ``token_type_ids`` (or none), ids
or input embeddings. Dropout is 0; both sides run in training mode.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from recurrent_twins import one_torch_thread  # noqa: F401 (autouse fixture)
from transformer_twins import check_outputs_and_gradients, torch_twin

from coursekit.models.bert.config import BertConfig
from coursekit.models.bert.heads import BertForMaskedLM, BertForPreTraining
from coursekit.models.bert.model import BERT_HF_NAMES, BertModel
from coursekit.models.bert.tasks import (
    BertForQuestionAnswering,
    BertForSequenceClassification,
    BertForTokenClassification,
)

transformers = pytest.importorskip("transformers")

MODELS = (
    BertModel,
    BertForPreTraining,
    BertForMaskedLM,
    BertForSequenceClassification,
    BertForTokenClassification,
    BertForQuestionAnswering,
)
FIELDS = (
    "last_hidden_state", "pooler_output", "prediction_logits", "seq_relationship_logits",
    "logits", "start_logits", "end_logits",
)  # fmt: skip


@st.composite
def hf_configs(draw: st.DrawFn, model_class: type) -> object:
    """A small random ``transformers.BertConfig`` with dropout 0 and eager attention."""
    heads = draw(st.sampled_from([1, 2, 4]))
    return transformers.BertConfig(
        vocab_size=draw(st.integers(8, 60)),
        hidden_size=heads * draw(st.sampled_from([2, 4])),
        num_hidden_layers=draw(st.integers(1, 3)),
        num_attention_heads=heads,
        intermediate_size=draw(st.integers(3, 20)),
        max_position_embeddings=draw(st.integers(10, 24)),
        type_vocab_size=draw(st.integers(1, 3)),
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        pad_token_id=draw(st.integers(0, 7)),
        num_labels=2 if model_class is BertForQuestionAnswering else draw(st.integers(2, 5)),
        attn_implementation="eager",
    )


def hf_twin(model_class: type, config: object, seed: int) -> torch.nn.Module:
    """The ``transformers`` model of ``model_class``'s name, in float64 with random weights."""
    if model_class is BertModel:
        hf_model = transformers.BertModel(config, add_pooling_layer=seed % 2 == 0)
    else:
        hf_model = getattr(transformers, model_class.hf_class_name)(config)
    return torch_twin(hf_model, seed)


def random_inputs(draw: st.DrawFn, config: object, hf_model: torch.nn.Module) -> dict:
    """ids or input embeddings, a padding mask (every row keeps a token), maybe segments."""
    batch = draw(st.integers(1, 3))
    length = draw(st.integers(1, config.max_position_embeddings))
    generator = torch.Generator().manual_seed(draw(st.integers(0, 2**16)))
    ids = torch.randint(config.vocab_size, (batch, length), generator=generator)
    lengths = torch.randint(1, length + 1, (batch,), generator=generator)
    inputs = {}
    if draw(st.booleans()):
        inputs["attention_mask"] = (torch.arange(length) < lengths[:, None]).long()
    if draw(st.booleans()):
        inputs["token_type_ids"] = torch.randint(
            config.type_vocab_size, (batch, length), generator=generator
        )
    if draw(st.booleans()):
        embeddings = hf_model.get_input_embeddings()(ids).detach()
        inputs["inputs_embeds"] = embeddings.requires_grad_()
    else:
        inputs["input_ids"] = ids
    return inputs


def outputs_of(output: object, hidden: bool, attentions: bool) -> list[torch.Tensor | None]:
    """The output fields, then every hidden state and attention map, in a fixed order."""
    tensors = [getattr(output, name, None) for name in FIELDS]
    if hidden:
        tensors += list(output.hidden_states)
    if attentions:
        tensors += list(output.attentions)
    return tensors


@pytest.mark.parametrize("model_class", MODELS, ids=lambda cls: cls.__name__)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_outputs_and_gradients_equal_transformers(model_class: type, data: st.DataObject) -> None:
    config = data.draw(hf_configs(model_class))
    theirs = hf_twin(model_class, config, data.draw(st.integers(0, 1000)))
    ours = model_class.from_hf(theirs)
    inputs = random_inputs(data.draw, config, theirs)
    hidden, attentions = data.draw(st.booleans()), data.draw(st.booleans())
    their_output = theirs(**inputs, output_hidden_states=hidden, output_attentions=attentions)
    our_output = ours(**inputs, output_hidden_states=hidden, output_attentions=attentions)
    assert (our_output.hidden_states is None) != hidden
    assert (our_output.attentions is None) != attentions
    if hidden:
        assert len(our_output.hidden_states) == config.num_hidden_layers + 1
    differentiable = [inputs["inputs_embeds"]] if "inputs_embeds" in inputs else []
    check_outputs_and_gradients(
        ours,
        theirs,
        outputs_of(our_output, hidden, attentions),
        outputs_of(their_output, hidden, attentions),
        differentiable,
        hf_names=BERT_HF_NAMES,
    )


def small_config(**changes: object) -> object:
    """A two-layer ``transformers.BertConfig`` without dropout."""
    sizes = {"vocab_size": 40, "hidden_size": 12, "num_attention_heads": 3, "intermediate_size": 20}
    return transformers.BertConfig(
        num_hidden_layers=2, max_position_embeddings=16, hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0, **{**sizes, **changes},
    )  # fmt: skip


def test_a_fully_padded_row_gives_what_transformers_gives() -> None:
    config = small_config(vocab_size=30, attn_implementation="eager")
    theirs = torch_twin(transformers.BertModel(config), seed=3)
    ours = BertModel.from_hf(theirs)
    ids = torch.randint(30, (2, 5), generator=torch.Generator().manual_seed(0))
    mask = torch.tensor([[0, 0, 0, 0, 0], [1, 1, 1, 0, 0]])
    expected = theirs(ids, attention_mask=mask, output_attentions=True)
    actual = ours(ids, attention_mask=mask, output_attentions=True)
    torch.testing.assert_close(actual.last_hidden_state, expected.last_hidden_state)
    torch.testing.assert_close(actual.attentions[0], expected.attentions[0])


def test_the_fused_attention_path_equals_transformers_sdpa() -> None:
    config = small_config(attn_implementation="sdpa")
    theirs = torch_twin(transformers.BertForPreTraining(config), seed=5)
    ours = BertForPreTraining.from_hf(theirs)
    ids = torch.randint(40, (3, 9), generator=torch.Generator().manual_seed(1))
    mask = (torch.arange(9) < torch.tensor([[9], [4], [1]])).long()
    expected, actual = theirs(ids, attention_mask=mask), ours(ids, attention_mask=mask)
    torch.testing.assert_close(actual.prediction_logits, expected.prediction_logits)
    torch.testing.assert_close(actual.seq_relationship_logits, expected.seq_relationship_logits)


def test_from_hf_reads_the_config_and_keeps_weights_tied() -> None:
    config = transformers.BertConfig(
        vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=4,
        intermediate_size=32, max_position_embeddings=20, type_vocab_size=3, pad_token_id=2,
    )  # fmt: skip
    ours = BertForMaskedLM.from_hf(transformers.BertForMaskedLM(config).eval())
    assert ours.config == BertConfig(
        vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=4,
        intermediate_size=32, max_position_embeddings=20, type_vocab_size=3, pad_token_id=2,
    )  # fmt: skip
    assert not ours.training and ours.bert.pooler is None
    decoder = ours.mlm.decoder
    assert decoder.weight is ours.bert.embeddings.token_embeddings.weight
    assert decoder.bias is ours.mlm.bias
