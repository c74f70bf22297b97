"""Pretraining under ``torchrun``: shards of one batch add up to the one-process loss, and two
gloo processes on CPUs train like one process with the same global batch (Chapter 6). Dropout
is off in the comparison: each process draws its own dropout masks, which no split of one
batch can reproduce."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from coursekit.models.bert.config import BertConfig
from coursekit.models.bert.heads import BertForPreTraining
from coursekit.pretrain import PretrainingBatches, PretrainingCollator
from coursekit.pretrain.checkpoint import load_pretrained
from coursekit.pretrain.distributed import ShardedBatches, shard
from coursekit.pretrain.masking import MaskingRule
from coursekit.pretrain.objective import pretraining_loss

TINY = [
    "--vocab-size=400", "--hidden-size=16", "--num-layers=1", "--num-heads=2",
    "--intermediate-size=32", "--dropout=0", "--max-length=32", "--batch-size=8", "--max-steps=3",
    "--warmup-steps=100", "--valid-batches=1", "--record-steps=3", "--no-use-wikitext2",
    "--device=cpu", "--threads=1", "--no-progress",
]  # fmt: skip


def stream(tokenizer, batch_size: int = 6) -> PretrainingBatches:
    from coursekit.pretrain.batches import tokenize_documents
    from coursekit.pretrain.corpus import docs_corpus_documents

    documents = tokenize_documents(docs_corpus_documents("valid"), tokenizer)
    collator = PretrainingCollator(tokenizer, MaskingRule(), whole_word_masking=False)
    return PretrainingBatches(documents, collator, batch_size, steps=2, max_length=32, seed=0)


def test_shards_of_a_batch_add_up_to_its_loss() -> None:
    _, tokenizer = load_pretrained()
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=32, max_position_embeddings=32, pad_token_id=tokenizer.pad_id,
    )  # fmt: skip
    model = BertForPreTraining(config).double().eval()
    batch = next(iter(stream(tokenizer)))
    shards = [shard(batch, rank, 3) for rank in range(3)]
    assert [len(s.input_ids) for s in shards] == [2, 2, 2]
    assert all(torch.equal(s.chosen_tokens, batch.chosen_tokens) for s in shards)
    whole = pretraining_loss(model, batch)
    torch.testing.assert_close(sum(pretraining_loss(model, s) for s in shards), whole)


def test_a_batch_that_does_not_split_evenly_is_refused() -> None:
    _, tokenizer = load_pretrained()
    with pytest.raises(ValueError, match="batch of 6 pairs does not split evenly over 4"):
        ShardedBatches(stream(tokenizer), rank=0, world=4)


def first_steps(out: Path) -> dict:
    return json.loads(out.with_suffix(".json").read_text())["first_steps"]


@pytest.mark.slow
def test_two_gloo_processes_train_like_one_with_the_same_global_batch(tmp_path: Path) -> None:
    environment = {**os.environ, "OMP_NUM_THREADS": "1", "COURSEKIT_DEVICE": "cpu"}
    one = tmp_path / "one.pt"
    two = tmp_path / "two.pt"
    command = [sys.executable, "-m", "coursekit.pretrain", "bert", *TINY]
    subprocess.run(
        [*command, "--out", str(one)], check=True, capture_output=True, env=environment, timeout=300
    )
    torchrun = [
        sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
        "-m", "coursekit.pretrain", "bert", *TINY, "--out", str(two),
    ]  # fmt: skip
    result = subprocess.run(torchrun, capture_output=True, text=True, env=environment, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    single, distributed = first_steps(one), first_steps(two)
    assert distributed["losses"] == pytest.approx(single["losses"], rel=1e-5)
    for name, norm in single["update_norms"].items():
        assert distributed["update_norms"][name] == pytest.approx(norm, rel=1e-4, abs=1e-9), name
    metadata = json.loads(two.with_suffix(".json").read_text())
    assert metadata["processes"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "one.json",
        "one.pt",
        "two.json",
        "two.pt",
    ]
