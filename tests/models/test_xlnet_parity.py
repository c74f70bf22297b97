"""XLNet equals Hugging Face's ``XLNetModel`` and ``XLNetLMHeadModel`` (transformers 5.x in the
main suite, Colab's 4.57.1 in ``make test-colab``), forward and backward, in float64, over random
small configurations and inputs: two consecutive segments (the second reads the memories of the
first), with and without ``perm_mask``, ``target_mapping``, ``token_type_ids`` and
``attention_mask``.

Hugging Face builds XLNet's relative encodings in float32 whatever the model's dtype: inside
these tests only, ``XLNetModel.relative_positional_encoding`` is replaced by the same
computation in float64 (same distances klen .. -qlen + 1, same frequencies 1 / 10000^(2i/d)), so
that the comparison holds to float64 tolerances. Every weight is redrawn from U(-0.5, 0.5) so
that a mixed-up parameter shows.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import torch
from hf_parity import assert_same_segments
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import Tensor, nn
from transformers import XLNetConfig
from transformers import XLNetLMHeadModel as HFXLNetLMHeadModel
from transformers import XLNetModel as HFXLNetModel
from transformers.models.xlnet import modeling_xlnet

from coursekit.models.xlnet.model import HF_NAMES, XLNetLMHeadModel, XLNetModel

VOCAB = 23


def float64_relative_encoding(
    self: HFXLNetModel, qlen: int, klen: int, bsz: int | None = None, device: Any = None
) -> Tensor:
    """Hugging Face's ``relative_positional_encoding`` for ``attn_type="bi"`` without bi_data,
    computed in float64 instead of float32.
    """
    frequencies = torch.arange(0, self.d_model, 2, dtype=torch.float64, device=device)
    inverse_frequencies = 1 / torch.pow(10000, frequencies / self.d_model)
    distances = torch.arange(klen, -qlen, -1, dtype=torch.float64, device=device)
    if self.clamp_len > 0:
        distances = distances.clamp(-self.clamp_len, self.clamp_len)
    return self.positional_embedding(distances, inverse_frequencies, bsz)


@pytest.fixture(autouse=True)
def hf_encodings_in_float64(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Hugging Face's relative encodings in float64 for the duration of each test."""
    monkeypatch.setattr(
        modeling_xlnet.XLNetModel, "relative_positional_encoding", float64_relative_encoding
    )
    yield


def hf_twin(hf_class: type[nn.Module], config: XLNetConfig, seed: int) -> nn.Module:
    """A float64 Hugging Face model in eval mode with every weight drawn from U(-0.5, 0.5)."""
    model = hf_class(config).double().eval()
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.copy_(torch.rand(parameter.shape, generator=generator) - 0.5)
    return model


@st.composite
def configurations(draw: st.DrawFn) -> XLNetConfig:
    """A small XLNetConfig with dropout off (d_head = d_model / n_head, as XLNetConfig requires)."""
    n_head = draw(st.sampled_from([1, 2]))
    return XLNetConfig(
        vocab_size=VOCAB,
        d_model=n_head * draw(st.sampled_from([2, 4])),
        n_layer=draw(st.integers(1, 2)),
        n_head=n_head,
        d_inner=draw(st.sampled_from([3, 8])),
        ff_activation=draw(st.sampled_from(["gelu", "relu"])),
        mem_len=draw(st.sampled_from([None, 3])),
        reuse_len=draw(st.sampled_from([None, 2])),
        clamp_len=draw(st.sampled_from([-1, 2])),
        dropout=0.0,
        tie_word_embeddings=draw(st.booleans()),
    )


@st.composite
def segment_inputs(draw: st.DrawFn, batch_size: int) -> dict[str, Tensor]:
    """Token ids and a random subset of XLNet's other inputs for one segment."""
    length = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**16))
    generator = torch.Generator().manual_seed(seed)
    inputs = {"input_ids": torch.randint(0, VOCAB, (batch_size, length), generator=generator)}
    if draw(st.booleans()):
        kept = torch.rand(batch_size, length, generator=generator) > 0.3
        inputs["attention_mask"] = kept.double()
    if draw(st.booleans()):
        inputs["perm_mask"] = torch.rand(batch_size, length, length, generator=generator) < 0.4
        inputs["perm_mask"] = inputs["perm_mask"].double()
    if draw(st.booleans()):
        predictions = draw(st.integers(1, length))
        positions = torch.rand(batch_size, length, generator=generator).argsort(-1)
        mapping = nn.functional.one_hot(positions[:, :predictions], length)
        inputs["target_mapping"] = mapping.double()
    if draw(st.booleans()):
        inputs["token_type_ids"] = torch.randint(0, 3, (batch_size, length), generator=generator)
    return inputs


MODELS = [(HFXLNetLMHeadModel, XLNetLMHeadModel), (HFXLNetModel, XLNetModel)]


@settings(max_examples=50, deadline=None)
@given(
    data=st.data(),
    config=configurations(),
    batch_size=st.integers(1, 2),
    classes=st.sampled_from(MODELS),
)
def test_xlnet_matches_hugging_face_over_two_segments(
    data: st.DataObject,
    config: XLNetConfig,
    batch_size: int,
    classes: tuple[type[nn.Module], type[nn.Module]],
) -> None:
    hf_class, our_class = classes
    theirs = hf_twin(hf_class, config, seed=data.draw(st.integers(0, 100)))
    ours = our_class.from_hf(theirs).eval()
    segments = [{**data.draw(segment_inputs(batch_size)), "use_mems": True} for _ in range(2)]
    assert_same_segments(ours, theirs, HF_NAMES, segments)


def test_memories_follow_hugging_face_defaults_in_training_and_evaluation() -> None:
    config = XLNetConfig(vocab_size=VOCAB, d_model=4, n_layer=1, n_head=2, d_inner=4, dropout=0.0)
    theirs = hf_twin(HFXLNetModel, config, seed=0)
    ours = XLNetModel.from_hf(theirs)
    tokens = torch.randint(0, VOCAB, (1, 3))
    for mode in (True, False):
        ours.train(mode)
        theirs.train(mode)
        assert (ours(tokens).mems is None) == (theirs(tokens).mems is None)
    assert ours.eval()(tokens).mems is not None and ours.train()(tokens).mems is None


def test_from_hf_refuses_what_it_does_not_implement() -> None:
    theirs = HFXLNetModel(
        XLNetConfig(vocab_size=VOCAB, d_model=4, n_layer=1, n_head=2, d_inner=4, attn_type="uni")
    )
    with pytest.raises(ValueError, match="attn_type='bi'"):
        XLNetModel.from_hf(theirs)
    with pytest.raises(TypeError, match="expects a Hugging Face XLNetLMHeadModel"):
        XLNetLMHeadModel.from_hf(theirs)
