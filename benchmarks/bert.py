"""Rows of Chapter 6 (BERT), on CPU in float32:

- a training step (forward and backward) of ``coursekit.models.BertModel`` against
  ``transformers.BertModel`` with the same weights, once with Hugging Face's eager attention
  (softmax(Q K^T / sqrt(d_k)) V written out, as coursekit's equation path) and once with its
  SDPA attention (torch's fused kernel, which coursekit's model also uses when no attention
  weights are asked for);
- WordPiece encoding of every docs_corpus paragraph by ``coursekit.text.WordPieceTokenizer``
  (pure Python) against ``tokenizers``' ``BertWordPieceTokenizer`` (Rust), same vocabulary; the
  note gives both throughputs.

Each row first checks that both sides give the same result. A row whose reference library is
not installed is reported as skipped, with a note saying what to install.
"""

from __future__ import annotations

import importlib.util
import math

import torch

from benchmarks.registry import Row, alternating_median_times, benchmark, best_time
from coursekit.data import load
from coursekit.models.bert.model import BertModel
from coursekit.text.wordpiece import WordPieceTokenizer
from coursekit.text.wordpiece_training import train_wordpiece

# (batch, length, layers, hidden, heads, intermediate, vocabulary)
FULL_SIZES = (16, 128, 4, 256, 4, 1024, 3000)
QUICK_SIZES = (2, 16, 2, 32, 4, 64, 300)


def skipped(name: str, package: str) -> Row:
    """A row that could not run because ``package`` is missing."""
    return Row(
        name=f"{name} (skipped)",
        ours="-",
        reference=f"{package} not installed",
        ours_seconds=math.nan,
        reference_seconds=math.nan,
        notes=(f"{name}: skipped, {package} is not installed (pip install {package}; dev extra)",),
    )


def bert_training_step_row(attention: str, quick: bool) -> Row:
    """Check that both models agree, then time forward + backward of each on the same batch."""
    name = f"BertModel fwd+bwd, {attention} attention"
    if importlib.util.find_spec("transformers") is None:
        return skipped(name, "transformers")
    import transformers

    batch, length, layers, hidden, heads, intermediate, vocab = QUICK_SIZES if quick else FULL_SIZES
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=vocab, hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
        intermediate_size=intermediate, max_position_embeddings=length, hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0, attn_implementation=attention,
    )  # fmt: skip
    reference = transformers.BertModel(config).train()
    ours = BertModel.from_hf(reference)
    ids = torch.randint(vocab, (batch, length))
    mask = (torch.arange(length) < torch.randint(length // 2, length + 1, (batch, 1))).long()
    with torch.no_grad():
        expected = reference(ids, attention_mask=mask).last_hidden_state
        actual = ours(ids, attention_mask=mask).last_hidden_state
        torch.testing.assert_close(actual, expected, rtol=1e-4, atol=1e-4)

    def step(model: torch.nn.Module) -> None:
        """Forward, backward from the sum of the output, drop the gradients."""
        model(ids, attention_mask=mask).last_hidden_state.sum().backward()
        model.zero_grad(set_to_none=True)

    ours_seconds, reference_seconds = alternating_median_times(
        lambda: step(ours), lambda: step(reference), repeat=1 if quick else 10
    )
    return Row(
        name=f"{name}, B={batch} T={length} L={layers} H={hidden} A={heads}",
        ours="coursekit.models.BertModel",
        reference=f"transformers.BertModel {transformers.__version__} ({attention})",
        ours_seconds=ours_seconds,
        reference_seconds=reference_seconds,
    )


@benchmark
def bert_model_vs_transformers_eager(quick: bool) -> Row:
    """Against Hugging Face's eager attention."""
    return bert_training_step_row("eager", quick)


@benchmark
def bert_model_vs_transformers_sdpa(quick: bool) -> Row:
    """Against Hugging Face's SDPA attention."""
    return bert_training_step_row("sdpa", quick)


@benchmark
def wordpiece_vs_tokenizers(quick: bool) -> Row:
    """Encode docs_corpus paragraphs with the same vocabulary on both sides."""
    name = "WordPiece encode"
    if importlib.util.find_spec("tokenizers") is None:
        return skipped(name, "tokenizers")
    import tokenizers

    paragraphs = load("docs_corpus", "valid" if quick else "train")
    vocab = train_wordpiece(paragraphs, 500 if quick else 3000)
    ours = WordPieceTokenizer(vocab)
    reference = tokenizers.BertWordPieceTokenizer({token: i for i, token in enumerate(vocab)})
    expected = [encoding.ids for encoding in reference.encode_batch(paragraphs)]
    if [ours.encode(paragraph).ids for paragraph in paragraphs] != expected:
        raise AssertionError("coursekit's WordPiece ids differ from tokenizers'")
    repeat = 1 if quick else 5
    ours_seconds = best_time(lambda: [ours.encode(p) for p in paragraphs], repeat)
    reference_seconds = best_time(lambda: [reference.encode(p) for p in paragraphs], repeat)
    characters = sum(len(paragraph) for paragraph in paragraphs)
    return Row(
        name=f"{name}, {len(paragraphs)} docs_corpus paragraphs ({characters} characters)",
        ours="coursekit.text.WordPieceTokenizer",
        reference=f"tokenizers.BertWordPieceTokenizer {tokenizers.__version__}",
        ours_seconds=ours_seconds,
        reference_seconds=reference_seconds,
        notes=(
            f"WordPiece: coursekit encodes {characters / ours_seconds / 1e6:.2f} M characters/s, "
            f"tokenizers {characters / reference_seconds / 1e6:.2f} M characters/s (one at a "
            "time, no batching)",
        ),
    )
