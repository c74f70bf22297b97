"""coursekit's Transformer-XL equals Hugging Face's Transfo-XL (transformers 4.37.2, the last
version that has it), live: ``TransfoXLLMHeadModel(TransfoXLConfig(..., cutoffs=[],
adaptive=False))`` from small random configurations, in float64, over three consecutive
segments: prediction scores, memories and the gradient of every parameter; greedy generation
with memories gives Hugging Face's continuation.

Comparison in float64. Two things of Hugging Face's code are set right inside these tests only:
- its attention masks the scores after casting them to float32
  (``attn_score.float().masked_fill(mask, finfo(float64).min)``), which overflows in float64;
  ``RelPartialLearnableMultiHeadAttn.forward`` is recompiled from its own source with the cast
  removed (nothing else changes);
- its model is built with float64 as the default dtype, so that the frequencies of its
  positional embedding (a buffer computed at construction) are float64, and then ``.double()``
  (its shared biases are created as float32 whatever the default dtype).
Hugging Face starts from ``mem_len`` zero memories when given none; coursekit from no memory (as
the paper's code): both starts are compared, ours with ``init_mems`` against theirs with none,
and ours with none against theirs with empty memories.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
import torch
from hf_parity import assert_same_segments
from torch import Tensor, nn

from coursekit.generate import generate
from coursekit.models.transformer_xl.model import HF_NAMES, TransfoXLLMHeadModel, TransfoXLModel

VOCAB = 29
FLOAT32_MASKING = "attn_score.float().masked_fill("

# (n_layer, n_head, d_head, d_model, d_inner, mem_len, clamp_len, same_length, pre_lnorm,
#  untie_r, tie_word_embeddings)
CONFIGURATIONS = [
    (1, 1, 4, 4, 6, 3, 0, False, False, True, True),
    (2, 2, 3, 8, 10, 4, 0, False, False, True, False),
    (2, 2, 4, 6, 8, 5, 2, False, False, False, True),
    (2, 3, 2, 6, 5, 4, 0, True, False, True, True),
    (3, 2, 3, 8, 7, 6, 3, True, True, False, False),
    (2, 1, 5, 4, 9, 2, 0, False, True, True, True),
    (1, 2, 3, 10, 4, 7, 4, True, False, False, False),
    (2, 2, 2, 4, 6, 3, 1, True, True, True, True),
]
SEGMENT_LENGTHS = [4, 3, 5]


@pytest.fixture
def hf(transfo_xl_api: SimpleNamespace, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The Transfo-XL API, with its attention's float32 masking removed for this test."""
    attention = transfo_xl_api.modeling.RelPartialLearnableMultiHeadAttn
    source = textwrap.dedent(inspect.getsource(attention.forward))
    assert source.count(FLOAT32_MASKING) == 2, "Hugging Face's masking code changed"
    namespace: dict[str, object] = {}
    patched = source.replace(FLOAT32_MASKING, "attn_score.masked_fill(")
    code = compile(patched, inspect.getsourcefile(attention) or "<patched>", "exec")
    exec(code, vars(transfo_xl_api.modeling), namespace)
    monkeypatch.setattr(attention, "forward", namespace["forward"])
    return transfo_xl_api


@pytest.fixture(autouse=True)
def one_thread() -> Iterator[None]:
    """One torch thread: these sizes are too small for a thread pool."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def hf_twin(hf: SimpleNamespace, model_class: type[nn.Module], case: tuple, seed: int) -> nn.Module:
    """A float64 Hugging Face model in eval mode, built from ``case``, every weight redrawn from
    U(-0.5, 0.5) so that a mixed-up parameter shows.
    """
    n_layer, n_head, d_head, d_model, d_inner, mem_len, clamp_len, same, pre, untie, tie = case
    config = hf.config(
        vocab_size=VOCAB, cutoffs=[], adaptive=False, div_val=1, d_model=d_model,
        d_embed=d_model, n_head=n_head, d_head=d_head, d_inner=d_inner, n_layer=n_layer,
        mem_len=mem_len, clamp_len=clamp_len, same_length=same, pre_lnorm=pre, untie_r=untie,
        tie_word_embeddings=tie, dropout=0.0, dropatt=0.0, eos_token_id=None,
        trainer_compatible=True,
    )  # fmt: skip
    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        model = model_class(config).double().eval()
    finally:
        torch.set_default_dtype(default)
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.copy_(torch.rand(parameter.shape, generator=generator) - 0.5)
    return model


def three_segments() -> list[dict[str, Tensor]]:
    """Three segments of different lengths of a batch of two texts."""
    generator = torch.Generator().manual_seed(len(SEGMENT_LENGTHS))
    return [
        {"input_ids": torch.randint(0, VOCAB, (2, length), generator=generator)}
        for length in SEGMENT_LENGTHS
    ]


@pytest.mark.parametrize("case", CONFIGURATIONS)
def test_lm_head_model_from_zero_memories_matches_transfo_xl(
    hf: SimpleNamespace, case: tuple
) -> None:
    theirs = hf_twin(hf, hf.lm_head_model, case, seed=CONFIGURATIONS.index(case))
    ours = TransfoXLLMHeadModel.from_hf(theirs).eval()
    assert_same_segments(ours, theirs, HF_NAMES, three_segments(), ours.init_mems(2))


@pytest.mark.parametrize("case", CONFIGURATIONS)
def test_lm_head_model_from_no_memory_matches_transfo_xl_from_empty_memories(
    hf: SimpleNamespace, case: tuple
) -> None:
    theirs = hf_twin(hf, hf.lm_head_model, case, seed=CONFIGURATIONS.index(case) + 100)
    ours = TransfoXLLMHeadModel.from_hf(theirs).eval()
    empty = [torch.zeros(0, 2, case[3], dtype=torch.float64)] * case[0]
    assert_same_segments(ours, theirs, HF_NAMES, three_segments(), None, empty)


@pytest.mark.parametrize("case", CONFIGURATIONS[:4])
def test_base_model_matches_transfo_xl(hf: SimpleNamespace, case: tuple) -> None:
    theirs = hf_twin(hf, hf.model, case, seed=CONFIGURATIONS.index(case) + 200)
    ours = TransfoXLModel.from_hf(theirs).eval()
    assert_same_segments(ours, theirs, HF_NAMES, three_segments(), ours.init_mems(2))


class StartsFromZeroMemories(nn.Module):
    """Our language model, started from Hugging Face's zero memories instead of none."""

    def __init__(self, model: TransfoXLLMHeadModel) -> None:
        super().__init__()
        self.model = model

    def forward(self, tokens: Tensor, mems: tuple[Tensor, ...] | None = None) -> tuple:
        """The model's scores and memories, from ``init_mems`` at the first call."""
        return self.model(tokens, self.model.init_mems(len(tokens)) if mems is None else mems)


@pytest.mark.parametrize("case", CONFIGURATIONS[::2])
def test_greedy_generation_with_memories_gives_transfo_xls_continuation(
    hf: SimpleNamespace, case: tuple
) -> None:
    theirs = hf_twin(hf, hf.lm_head_model, case, seed=CONFIGURATIONS.index(case) + 300)
    ours = StartsFromZeroMemories(TransfoXLLMHeadModel.from_hf(theirs))
    prompt = torch.randint(0, VOCAB, (1, 5), generator=torch.Generator().manual_seed(7))
    expected = theirs.generate(prompt, max_new_tokens=12, do_sample=False, pad_token_id=0)
    assert generate(ours, prompt[0].tolist(), 12, temperature=0) == expected[0, 5:].tolist()


def test_from_hf_refuses_the_adaptive_softmax(hf: SimpleNamespace) -> None:
    config = hf.config(
        vocab_size=VOCAB, cutoffs=[10], d_model=4, d_embed=4, n_head=1, d_head=4, d_inner=4,
        n_layer=1, div_val=1, trainer_compatible=True,
    )  # fmt: skip
    theirs = hf.lm_head_model(config)
    with pytest.raises(ValueError, match="cutoffs=\\[10\\]"):
        TransfoXLLMHeadModel.from_hf(theirs)
