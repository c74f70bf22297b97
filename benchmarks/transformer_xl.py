"""Rows of Chapter 7 (Transformer-XL and XLNet), on CPU in float32:

- evaluating a long text with Transformer-XL's segment recurrence (every token read once, the
  memory holding a context of ``CONTEXT`` tokens: ``mem_len = CONTEXT`` and ``same_length``, so
  each prediction sees exactly the last ``CONTEXT`` tokens) against the vanilla evaluation with
  the same context, which shifts a window of ``CONTEXT`` tokens by one and recomputes it for
  every prediction; both with the same model (relative positions, no memory for the vanilla
  one), on one thread, and reported per predicted token;
- a training step (forward and backward) of coursekit's ``XLNetLMHeadModel`` against Hugging
  Face's with the same weights and configuration, with a sampled permutation (``perm_mask``,
  ``target_mapping``) and two segments (``token_type_ids``).

Each row first checks that both sides compute the same thing, then times them alternately
(after one untimed run each) and reports the medians.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import transformers
from torch import Tensor

from benchmarks.registry import Row, alternating_median_times, benchmark
from benchmarks.transformer import one_thread
from coursekit.models.transformer_xl.memory import Mems
from coursekit.models.transformer_xl.model import TransfoXLLMHeadModel
from coursekit.models.xlnet.model import XLNetLMHeadModel
from coursekit.models.xlnet.permutation import sample_permutation

# (context, segment length, predictions timed for the vanilla model, tokens timed for ours, d_model)
FULL_EVALUATION = (1024, 128, 8, 1024, 64)
QUICK_EVALUATION = (64, 16, 4, 64, 16)
# (batch, length, d_model, layers, heads)
FULL_XLNET = (8, 128, 128, 2, 4)
QUICK_XLNET = (2, 16, 32, 1, 2)
VOCAB = 1000


def read_in_segments(
    model: TransfoXLLMHeadModel, text: Tensor, segment: int, mems: Mems | None
) -> tuple[Tensor, Mems | None]:
    """The scores of every token of ``text [1, T]`` read segment after segment after ``mems``,
    and the memories at the end.
    """
    scores = []
    for tokens in text.split(segment, dim=1):
        segment_scores, mems = model(tokens, mems)
        scores.append(segment_scores)
    return torch.cat(scores, dim=1), mems


def window_predictions(model: TransfoXLLMHeadModel, text: Tensor, context: int) -> Tensor:
    """The vanilla evaluation: for each position p >= context - 1, the scores of the next token
    from the window of the ``context`` tokens ending at p, recomputed from scratch.
    """
    windows = [text[:, end - context : end] for end in range(context, text.shape[1] + 1)]
    return torch.cat([model(window).prediction_scores[:, -1:] for window in windows], dim=1)


@benchmark
def transformer_xl_evaluation_vs_window_recomputation(quick: bool) -> Row:
    """Tokens per second of evaluation with memory against the shifted, recomputed window."""
    context, segment, predictions, tokens, d_model = QUICK_EVALUATION if quick else FULL_EVALUATION
    torch.manual_seed(0)
    model = TransfoXLLMHeadModel(
        VOCAB, d_model=d_model, n_head=4, d_head=d_model // 4, d_inner=4 * d_model, n_layer=2,
        mem_len=context, same_length=True, dropout=0.0,
    ).eval()  # fmt: skip
    text = torch.randint(0, VOCAB, (1, context + tokens))
    with torch.no_grad(), one_thread():
        scores, mems = read_in_segments(model, text[:, :context], segment, None)
        first_window = model(text[:, :context]).prediction_scores
        torch.testing.assert_close(scores, first_window, rtol=1e-4, atol=1e-4)
        ours_seconds, reference_seconds = alternating_median_times(
            lambda: read_in_segments(model, text[:, context:], segment, mems),
            lambda: window_predictions(model, text[:, : context + predictions - 1], context),
            repeat=1 if quick else 3,
        )
    ours_per_token, reference_per_token = ours_seconds / tokens, reference_seconds / predictions
    return Row(
        name=f"Transformer-XL evaluation, context {context}, d={d_model} L=2, per token",
        ours=f"TransfoXLLMHeadModel, segments of {segment} + memory",
        reference=f"same model, window of {context} recomputed per token",
        ours_seconds=ours_per_token,
        reference_seconds=reference_per_token,
        notes=(
            f"Transformer-XL evaluation at context {context} (one thread): "
            f"{1 / ours_per_token:.0f} tokens/s with memory vs {1 / reference_per_token:.1f} "
            f"tokens/s recomputing the window, {reference_per_token / ours_per_token:.0f}x faster",
        ),
    )


def xlnet_training_step(model: torch.nn.Module, inputs: dict[str, Tensor]) -> Callable[[], None]:
    """Forward ``model`` on ``inputs``, backward from the sum of the logits, drop the gradients."""

    def step() -> None:
        model(**inputs).logits.sum().backward()
        model.zero_grad(set_to_none=True)

    return step


@benchmark
def xlnet_training_step_vs_hugging_face(quick: bool) -> Row:
    """A training step of XLNet's language model with a sampled permutation, both sides."""
    batch, length, d_model, layers, heads = QUICK_XLNET if quick else FULL_XLNET
    torch.manual_seed(0)
    config = transformers.XLNetConfig(
        vocab_size=VOCAB, d_model=d_model, n_layer=layers, n_head=heads, d_inner=4 * d_model,
        dropout=0.0, mem_len=None,
    )  # fmt: skip
    reference = transformers.XLNetLMHeadModel(config).train()
    ours = XLNetLMHeadModel.from_hf(reference).train()
    prediction = sample_permutation(batch, length, cut=length - length // 6)
    inputs = {
        "input_ids": torch.randint(0, VOCAB, (batch, length)),
        "token_type_ids": (torch.arange(length) >= length // 2).long().expand(batch, -1),
        "perm_mask": prediction.perm_mask,
        "target_mapping": prediction.target_mapping,
    }
    with torch.no_grad():
        expected = reference(**inputs).logits
        torch.testing.assert_close(ours(**inputs).logits, expected, rtol=1e-4, atol=1e-4)
    ours_seconds, reference_seconds = alternating_median_times(
        xlnet_training_step(ours, inputs),
        xlnet_training_step(reference, inputs),
        repeat=1 if quick else 5,
    )
    return Row(
        name=f"XLNetLMHeadModel fwd+bwd, B={batch} T={length} d={d_model} L={layers}",
        ours="coursekit.models.XLNetLMHeadModel",
        reference=f"transformers.XLNetLMHeadModel {transformers.__version__}",
        ours_seconds=ours_seconds,
        reference_seconds=reference_seconds,
    )
