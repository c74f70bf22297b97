"""BERT's pretraining objective and how to measure it (Chapter 6, BERT).

The loss adds the two tasks' cross-entropies, the masked language model's over the chosen
positions only and next sentence prediction's over the pairs:

    L = -(1/|M|) sum_{t in M} log p(x_t | corrupted input) - (1/B) sum_b log p(is_next_b | [CLS]).

Only the chosen positions M (15 % of the tokens) are predicted, so the output layer runs on
those rows alone, not on every position. The accuracies have baselines: always guessing the
most frequent token of the training data (the unigram guess) for the masked language model,
and 50 % for next sentence prediction. A masked language model alone (RoBERTa's choice) trains
on ``L_MLM`` and is measured by its masked-token accuracy only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import torch
import torch.nn.functional as F
from torch import Tensor

from coursekit.models.bert.heads import BertForPreTraining
from coursekit.pretrain.batches import PretrainingBatch
from coursekit.pretrain.masking import IGNORE_INDEX
from coursekit.runtime import evaluating, model_device, move_to_device
from coursekit.train import PooledMetric


def pretraining_logits(model: BertForPreTraining, batch: PretrainingBatch) -> tuple[Tensor, Tensor]:
    """The MLM logits ``[|M|, V]`` at the chosen positions M and the NSP logits ``[B, 2]``."""
    encoded = model.bert(batch.input_ids, batch.attention_mask, batch.token_type_ids)
    chosen = batch.mlm_labels != IGNORE_INDEX
    mlm_logits = model.mlm(encoded.last_hidden_state[chosen])
    return mlm_logits, model.nsp(encoded.pooler_output)


def masked_lm_loss(model: BertForPreTraining, batch: PretrainingBatch) -> Tensor:
    """``L_MLM``: the cross-entropy of the chosen tokens, summed and divided by the batch's
    count of chosen tokens (so that shards of one batch add up to the loss of the whole)."""
    encoded = model.bert(batch.input_ids, batch.attention_mask, batch.token_type_ids)
    chosen = batch.mlm_labels != IGNORE_INDEX
    mlm_logits = model.mlm(encoded.last_hidden_state[chosen])
    return F.cross_entropy(mlm_logits, batch.mlm_labels[chosen], reduction="sum") / (
        batch.chosen_tokens
    )


def pretraining_loss(model: BertForPreTraining, batch: PretrainingBatch) -> Tensor:
    """``L = L_MLM + L_NSP``: the mean cross-entropy of the chosen tokens plus that of the
    IsNext / NotNext labels (Chapter 6, BERT), each a sum divided by the batch's count, so
    that shards of one batch add up to the loss of the whole.
    """
    mlm_logits, nsp_logits = pretraining_logits(model, batch)
    targets = batch.mlm_labels[batch.mlm_labels != IGNORE_INDEX]
    mlm_sum = F.cross_entropy(mlm_logits, targets, reduction="sum")
    nsp_sum = F.cross_entropy(nsp_logits, batch.nsp_labels, reduction="sum")
    return mlm_sum / batch.chosen_tokens + nsp_sum / batch.pairs


def masked_token_counts(mlm_logits: Tensor, batch: PretrainingBatch) -> tuple[Tensor, int]:
    """(chosen tokens whose original the logits rank first, chosen tokens)."""
    targets = batch.mlm_labels[batch.mlm_labels != IGNORE_INDEX]
    return (mlm_logits.argmax(-1) == targets).sum(), len(targets)


def next_sentence_counts(nsp_logits: Tensor, batch: PretrainingBatch) -> tuple[Tensor, int]:
    """(pairs whose IsNext / NotNext label the logits get right, pairs)."""
    return (nsp_logits.argmax(-1) == batch.nsp_labels).sum(), len(batch.nsp_labels)


def mlm_counts(model: BertForPreTraining, batch: PretrainingBatch) -> tuple[Tensor, int]:
    """(chosen tokens whose original the model ranks first, chosen tokens) of one batch."""
    return masked_token_counts(pretraining_logits(model, batch)[0], batch)


def nsp_counts(model: BertForPreTraining, batch: PretrainingBatch) -> tuple[Tensor, int]:
    """(pairs whose IsNext / NotNext label the model gets right, pairs) of one batch."""
    return next_sentence_counts(pretraining_logits(model, batch)[1], batch)


def pretraining_metrics(next_sentence: bool = True) -> dict[str, PooledMetric]:
    """``mlm_accuracy`` and (with next sentence prediction) ``nsp_accuracy`` as metrics of
    :func:`coursekit.train.fit`."""
    metrics = {"mlm_accuracy": PooledMetric(mlm_counts)}
    if next_sentence:
        metrics["nsp_accuracy"] = PooledMetric(nsp_counts)
    return metrics


@torch.no_grad()
def pretraining_accuracies(
    model: BertForPreTraining, batches: Iterable[PretrainingBatch], next_sentence: bool = True
) -> dict[str, float]:
    """``mlm_accuracy`` (share of chosen tokens predicted right) and, with next sentence
    prediction, ``nsp_accuracy`` (share of pairs classified right) over ``batches``
    (Chapter 6, BERT).
    """
    device = model_device(model)
    right, total = Counter[str](), Counter[str]()
    with evaluating(model):
        for batch in batches:
            batch = move_to_device(batch, device)
            mlm_logits, nsp_logits = pretraining_logits(model, batch)  # one pass for both
            counts = {"mlm_accuracy": masked_token_counts(mlm_logits, batch)}
            if next_sentence:
                counts["nsp_accuracy"] = next_sentence_counts(nsp_logits, batch)
            for name, (hits, count) in counts.items():
                right[name] += int(hits)
                total[name] += count
    return {name: right[name] / max(1, total[name]) for name in total}


def unigram_baseline_accuracy(
    token_counts: Counter[int], batches: Iterable[PretrainingBatch]
) -> float:
    """The masked-LM accuracy of always guessing the most frequent token of ``token_counts``
    (the training data's unigram distribution), on the chosen tokens of ``batches``.
    """
    most_frequent = token_counts.most_common(1)[0][0]
    right = total = 0
    for batch in batches:
        targets = batch.mlm_labels[batch.mlm_labels != IGNORE_INDEX]
        right += int((targets == most_frequent).sum())
        total += len(targets)
    return right / max(1, total)
