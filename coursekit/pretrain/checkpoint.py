"""The pretrained BERT that ships with coursekit, and how to fine-tune from it (Chapter 6, BERT).

A pretraining run is saved as two files side by side:

- ``NAME.pt``: the model's configuration, its WordPiece vocabulary and its weights in float16
  (half the bytes of float32, and plenty of precision to start fine-tuning from), read back
  with ``torch.load(weights_only=True)``;
- ``NAME.json``: what made it and how it went: the exact command, the settings, the SHA-256
  and size of ``NAME.pt``, the per-epoch log (losses, masked-LM and next-sentence accuracy),
  the baselines, the final evaluation on held-out texts, the SHA-256 of the training texts, and
  the first steps (losses, and the norm of each parameter's change) that a test replays.

:func:`load_pretrained` builds any BERT model class from it: the encoder's weights are the
pretrained ones, a new task head starts from BERT's initialisation.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
from pathlib import Path
from typing import Any, TypeVar, overload

import torch

from coursekit.data.downloads import sha256_of
from coursekit.models.bert.config import BertConfig
from coursekit.models.bert.heads import BertForPreTraining
from coursekit.models.bert.model import BertModel, BertPreTrainedModel
from coursekit.pretrain.bert_pretraining import PretrainingRun
from coursekit.text.wordpiece import WordPieceTokenizer

ModelT = TypeVar("ModelT", bound=BertPreTrainedModel)

CHECKPOINTS = Path(__file__).resolve().parents[1] / "checkpoints"
PRETRAINED_BERT = CHECKPOINTS / "bert-docs.pt"
"""The BERT pretrained with MLM + NSP on ``docs_corpus`` by ``python -m coursekit.pretrain bert``."""
REVIEWS_BERT = CHECKPOINTS / "bert-reviews.pt"
"""The BERT pretrained with MLM alone on the ``reviews`` corpus (``the X was A and the Y was B.``)."""
REVIEWS_CONTROL_BERT = CHECKPOINTS / "bert-reviews-control.pt"
"""The same recipe on ``reviews_control`` (the judgements as separate sentences)."""
TRANSFER_PILOT = CHECKPOINTS / "bert-reviews-pilot.json"
"""The learning rates of the pretraining experiment, picked on validation reviews."""


def epoch_log(run: PretrainingRun) -> list[dict[str, float]]:
    """One row per epoch: train and validation loss, masked-LM and next-sentence accuracy."""
    history = run.history
    return [
        {
            "epoch": epoch + 1,
            "train_loss": history.train_loss[epoch],
            "val_loss": history.val_loss[epoch],
            **{name: values[epoch] for name, values in history.metrics.items()},
        }
        for epoch in range(history.epochs)
    ]


def save_pretrained(
    run: PretrainingRun, path: str | os.PathLike[str], command: str, extra: dict[str, Any]
) -> dict[str, Any]:
    """Write ``path`` (config, vocabulary, float16 weights) and its metadata ``path.json``;
    returns the metadata. ``extra`` adds entries (wall time, threads, ...) to it.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    half = copy.deepcopy(run.model).half()  # the tied embedding and output matrix stay one tensor
    torch.save(
        {
            "config": run.model.config.to_dict(),
            "vocab": list(run.tokenizer.id_to_token_list),
            "state_dict": half.state_dict(),
        },
        target,
    )
    metadata = {
        "file": target.name,
        "sha256": sha256_of(target),
        "size_bytes": target.stat().st_size,
        "parameters": sum(p.numel() for p in run.model.parameters()),
        "command": command,
        "settings": dataclasses.asdict(run.settings),
        "corpus": run.corpus,
        "corpus_sha256": run.corpus_sha256,
        "log": epoch_log(run),
        "baselines": run.baselines,
        "held_out": run.held_out,
        "first_steps": dataclasses.asdict(run.first_steps),
        "torch": torch.__version__,
        **extra,
    }
    target.with_suffix(".json").write_text(json.dumps(metadata, indent=2) + "\n", "utf-8")
    return metadata


def read_metadata(path: str | os.PathLike[str] = PRETRAINED_BERT) -> dict[str, Any]:
    """The metadata written next to a checkpoint."""
    return json.loads(Path(path).with_suffix(".json").read_text("utf-8"))


def encoder_of(model: BertPreTrainedModel) -> BertModel:
    """The :class:`BertModel` inside ``model`` (``model`` itself, or its ``bert``)."""
    encoder = model if isinstance(model, BertModel) else getattr(model, "bert", None)
    if not isinstance(encoder, BertModel):
        raise TypeError(f"{type(model).__name__} holds no BertModel")
    return encoder


@overload
def load_pretrained(
    path: str | os.PathLike[str] = ..., *, model_class: type[ModelT], **config_changes: Any
) -> tuple[ModelT, WordPieceTokenizer]: ...


@overload
def load_pretrained(
    path: str | os.PathLike[str] = ..., **config_changes: Any
) -> tuple[BertForPreTraining, WordPieceTokenizer]: ...


def load_pretrained(
    path: str | os.PathLike[str] = PRETRAINED_BERT,
    model_class: type[BertPreTrainedModel] = BertForPreTraining,
    **config_changes: Any,
) -> tuple[BertPreTrainedModel, WordPieceTokenizer]:
    """A ``model_class`` whose encoder holds the pretrained weights, and the tokenizer of its
    vocabulary (Chapter 6, BERT). ``config_changes`` replace fields of the saved
    :class:`BertConfig` (``num_labels=3``, ``hidden_dropout_prob=0.0``, ...). The file's SHA-256
    is checked against its metadata. Example::

        model, tokenizer = load_pretrained(model_class=BertForSequenceClassification, num_labels=3)
    """
    target = Path(path)
    expected = read_metadata(target)["sha256"]
    if sha256_of(target) != expected:
        raise ValueError(
            f"{target} does not match the SHA-256 in its metadata ({expected}): the file is "
            "damaged or was replaced; restore it from the repository"
        )
    saved = torch.load(target, map_location="cpu", weights_only=True)
    config = dataclasses.replace(BertConfig(**saved["config"]), **config_changes)
    model = model_class(config)
    encoder = encoder_of(model)
    encoder_weights = {
        name.removeprefix("bert."): tensor
        for name, tensor in saved["state_dict"].items()
        if name.startswith("bert.")
        and (encoder.pooler is not None or not name.startswith("bert.pooler."))
    }
    encoder.load_state_dict(encoder_weights)
    if isinstance(model, BertForPreTraining):
        model.load_state_dict(saved["state_dict"])
    return model, WordPieceTokenizer(saved["vocab"])
