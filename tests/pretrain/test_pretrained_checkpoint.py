"""The BERT checkpoints shipped in coursekit/checkpoints: each at most 10 MB, its SHA-256, log
and corpus SHA-256 in the metadata; the generator still produces that corpus; the command
recorded there replays the run's first steps (losses, and the norm of each parameter's change)
within a tolerance, as floating-point results differ between CPUs; and each model, loaded
afresh, beats the baselines on held-out texts: the unigram guess for the masked language
model, 50 % for next sentence prediction."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from coursekit.data.downloads import sha256_of
from coursekit.pretrain.bert_pretraining import (
    PretrainingSettings,
    build_tokenizer,
    held_out_evaluation,
    streams_for,
)
from coursekit.pretrain.checkpoint import (
    PRETRAINED_BERT,
    REVIEWS_BERT,
    REVIEWS_CONTROL_BERT,
    load_pretrained,
    read_metadata,
)
from coursekit.pretrain.corpus import wikitext2_is_cached

CHECKPOINTS = [PRETRAINED_BERT, REVIEWS_BERT, REVIEWS_CONTROL_BERT]


@pytest.fixture(scope="module", params=CHECKPOINTS, ids=lambda path: path.stem)
def checkpoint(request: pytest.FixtureRequest) -> tuple[Path, dict]:
    return request.param, read_metadata(request.param)


def settings_of(metadata: dict) -> PretrainingSettings:
    settings = PretrainingSettings(**metadata["settings"])
    return dataclasses.replace(settings, use_wikitext2="wikitext2" in metadata["corpus"])


def test_the_checkpoint_is_small_and_matches_its_metadata(checkpoint: tuple[Path, dict]) -> None:
    path, metadata = checkpoint
    size = path.stat().st_size
    assert size <= 10 * 2**20
    assert metadata["size_bytes"] == size
    assert metadata["sha256"] == sha256_of(path)
    assert metadata["command"].startswith("python -m coursekit.pretrain bert")
    assert f"--out coursekit/checkpoints/{path.name}" in metadata["command"]
    assert len(metadata["log"]) == metadata["settings"]["epochs"]


def test_the_generator_still_produces_the_corpus(checkpoint: tuple[Path, dict]) -> None:
    _, metadata = checkpoint
    settings = settings_of(metadata)
    if "wikitext2" in metadata["corpus"] and not wikitext2_is_cached():
        pytest.skip("the checkpoint was trained with WikiText-2, which is not cached here")
    tokenizer = build_tokenizer(settings)
    assert streams_for(settings, tokenizer).sha256 == metadata["corpus_sha256"]
    assert len(tokenizer) == load_pretrained(checkpoint[0])[0].config.vocab_size


def test_the_recorded_command_replays_the_first_steps(
    checkpoint: tuple[Path, dict], tmp_path: Path
) -> None:
    _, metadata = checkpoint
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
    # a key bias has no gradient (softmax ignores it): its change is rounding, tiny next to the rest
    noise = 1e-6 * max(recorded["update_norms"].values())
    for name, norm in recorded["update_norms"].items():
        assert replayed["update_norms"][name] == pytest.approx(norm, rel=1e-3, abs=noise), name


def beats_chance(accuracy: float, trials: int, sigmas: float = 3.0) -> bool:
    """Whether ``accuracy`` on ``trials`` pairs exceeds 50 % by ``sigmas`` binomial deviations."""
    return accuracy > 0.5 + sigmas * math.sqrt(0.25 / trials)


def test_the_recorded_evaluation_shows_the_tasks_beating_their_baselines(
    checkpoint: tuple[Path, dict],
) -> None:
    _, metadata = checkpoint
    last, held_out = metadata["log"][-1], metadata["held_out"]
    assert last["mlm_accuracy"] > 1.5 * metadata["baselines"]["mlm_unigram_accuracy"]
    assert held_out["mlm_accuracy"] > 1.5 * held_out["mlm_unigram_accuracy"]
    if metadata["settings"]["next_sentence"]:
        assert beats_chance(held_out["nsp_accuracy"], held_out["pairs"])


def test_the_loaded_model_beats_the_baselines_on_held_out_texts(
    checkpoint: tuple[Path, dict],
) -> None:
    path, metadata = checkpoint
    if "wikitext2" in metadata["corpus"] and not wikitext2_is_cached():
        pytest.skip("the checkpoint was trained with WikiText-2, which is not cached here")
    model, tokenizer = load_pretrained(path)
    settings = settings_of(metadata)
    scores = held_out_evaluation(model, streams_for(settings, tokenizer), settings)
    assert scores["mlm_accuracy"] > 1.5 * scores["mlm_unigram_accuracy"]
    names = ["mlm_accuracy"]
    if settings.next_sentence:
        assert beats_chance(scores["nsp_accuracy"], scores["pairs"])
        names.append("nsp_accuracy")
    for name in names:  # float16 weights: a few answers may change
        assert abs(scores[name] - metadata["held_out"][name]) < 0.01
