"""Training: the :func:`fit` loop every chapter uses, and the pieces it is made of.

:func:`fit` trains with gradient clipping, early stopping, a progress bar, a :class:`History`
of losses, metrics and gradient norms, and atomic checkpoints from which a run resumes exactly
(Chapter 1, Text as sequences). Its metrics are :class:`Metric` accumulators such as
:class:`PooledMetric`, computed in the same pass over the validation batches as the loss.
"""

from __future__ import annotations

from coursekit.runtime import evaluating, model_device, modes_restored, move_to_device
from coursekit.train.batch_metrics import Metric, PooledMetric
from coursekit.train.checkpoint import load_checkpoint, save_checkpoint
from coursekit.train.clipping import (
    clip_grad_norm,
    clip_gradients,
    global_grad_norm,
    rescale_to_norm,
)
from coursekit.train.early_stopping import EarlyStopping
from coursekit.train.evaluation import evaluate, mean_batch_loss
from coursekit.train.history import History
from coursekit.train.loop import fit
from coursekit.train.losses import label_smoothed_cross_entropy
from coursekit.train.rng import capture_rng_state, data_generators, restore_rng_state
from coursekit.train.schedules import TransformerWarmupSchedule

__all__ = [
    "EarlyStopping",
    "History",
    "Metric",
    "PooledMetric",
    "TransformerWarmupSchedule",
    "capture_rng_state",
    "clip_grad_norm",
    "clip_gradients",
    "data_generators",
    "evaluate",
    "evaluating",
    "fit",
    "global_grad_norm",
    "label_smoothed_cross_entropy",
    "load_checkpoint",
    "mean_batch_loss",
    "model_device",
    "modes_restored",
    "move_to_device",
    "rescale_to_norm",
    "restore_rng_state",
    "save_checkpoint",
]
