"""The BERT checkpoint shipped in coursekit/checkpoints: at most 10 MB, its SHA-256 and log in
the metadata; the command recorded there replays the run's first steps (losses, and the norm of
each parameter's change) within a tolerance, as floating-point results differ between CPUs; and the model, loaded afresh, beats the baselines on
held-out documents: the unigram guess for the masked language model, 50 % for next sentence
prediction."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shlex
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from coursekit.data.downloads import sha256_of
from coursekit.pretrain.batches import PretrainingCollator, tokenize_documents
from coursekit.pretrain.bert_pretraining import PretrainingSettings, held_out_evaluation
from coursekit.pretrain.checkpoint import PRETRAINED_BERT, load_pretrained, read_metadata
from coursekit.pretrain.corpus import pretraining_corpus, wikitext2_is_cached
from coursekit.pretrain.masking import MaskingRule


@pytest.fixture(scope="module")
def metadata() -> dict:
    return read_metadata(PRETRAINED_BERT)


def test_the_checkpoint_is_small_and_matches_its_metadata(metadata: dict) -> None:
    size = PRETRAINED_BERT.stat().st_size
    assert size <= 10 * 2**20
    assert metadata["size_bytes"] == size
    assert metadata["sha256"] == sha256_of(PRETRAINED_BERT)
    assert metadata["command"].startswith("python -m coursekit.pretrain bert")
    assert len(metadata["log"]) == metadata["settings"]["epochs"]


def test_the_recorded_command_replays_the_first_steps(metadata: dict, tmp_path: Path) -> None:
    if "wikitext2" in metadata["corpus"] and not wikitext2_is_cached():
        pytest.skip("the checkpoint was trained with WikiText-2, which is not cached here")
    recorded = metadata["first_steps"]
    arguments = [word for word in shlex.split(metadata["command"])[4:] if word != "--resume"]
    out = tmp_path / "replay.pt"
    replay = [
        *arguments, "--max-steps", str(recorded["steps"]), "--valid-batches", "1",
        "--out", str(out), "--checkpoint", str(tmp_path / "fit.pt"), "--device", "cpu",
        "--threads", "1", "--no-progress",
    ]  # fmt: skip
    if "wikitext2" not in metadata["corpus"]:
        replay.append("--no-use-wikitext2")
    environment = {**os.environ, "OMP_NUM_THREADS": "1", "COURSEKIT_DEVICE": "cpu"}
    subprocess.run(
        [sys.executable, "-m", "coursekit.pretrain", "bert", *replay],
        check=True, capture_output=True, timeout=300, env=environment,
    )  # fmt: skip
    replayed = json.loads(out.with_suffix(".json").read_text())["first_steps"]
    assert replayed["steps"] == recorded["steps"]
    assert replayed["losses"] == pytest.approx(recorded["losses"], rel=1e-4)
    assert replayed["update_norms"].keys() == recorded["update_norms"].keys()
    for name, norm in recorded["update_norms"].items():
        assert replayed["update_norms"][name] == pytest.approx(norm, rel=1e-3, abs=1e-9), name


def beats_chance(accuracy: float, trials: int, sigmas: float = 3.0) -> bool:
    """Whether ``accuracy`` on ``trials`` pairs exceeds 50 % by ``sigmas`` binomial deviations."""
    return accuracy > 0.5 + sigmas * math.sqrt(0.25 / trials)


def test_the_recorded_evaluation_shows_both_tasks_beating_their_baselines(metadata: dict) -> None:
    last, held_out = metadata["log"][-1], metadata["held_out"]
    assert last["mlm_accuracy"] > 1.5 * metadata["baselines"]["mlm_unigram_accuracy"]
    assert held_out["mlm_accuracy"] > 1.5 * held_out["mlm_unigram_accuracy"]
    assert beats_chance(held_out["nsp_accuracy"], held_out["pairs"])


def test_the_loaded_model_beats_the_baselines_on_held_out_documents(metadata: dict) -> None:
    model, tokenizer = load_pretrained()
    settings = PretrainingSettings(**metadata["settings"])
    settings = dataclasses.replace(settings, use_wikitext2="wikitext2" in metadata["corpus"])
    collator = PretrainingCollator(tokenizer, MaskingRule(), settings.whole_word_masking)
    train = tokenize_documents(pretraining_corpus("train", settings.use_wikitext2), tokenizer)
    counts = Counter(token for document in train for sentence in document for token in sentence)
    scores = held_out_evaluation(model, tokenizer, collator, settings, counts)
    assert scores["mlm_accuracy"] > 1.5 * scores["mlm_unigram_accuracy"]
    assert beats_chance(scores["nsp_accuracy"], scores["pairs"])
    for name in ("mlm_accuracy", "nsp_accuracy"):  # float16 weights: a few answers may change
        assert abs(scores[name] - metadata["held_out"][name]) < 0.01
