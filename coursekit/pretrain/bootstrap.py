"""Next sentence prediction's held-out accuracy, with a bootstrap over documents (Chapter 6,
BERT).

The held-out pairs are drawn from a dozen documents, many pairs from each, so they are not
independent trials: pairs whose segment A comes from one document share its vocabulary, its
style and how easy it is to tell from the others, and a binomial standard error over the pairs
would be too narrow. What was drawn independently is the documents, so the bootstrap resamples
them (the cluster, or block, bootstrap). With D documents, pair outcomes ``correct_i`` and
``document_i`` the document of pair i's segment A, each of R resamples

    draws D documents d_1 .. d_D uniformly with replacement,
    accuracy_r = sum_k right(d_k) / sum_k pairs(d_k),

where ``right(d)`` and ``pairs(d)`` count the right answers and the pairs of document d (a
document drawn twice counts twice). The 2.5th and 97.5th percentiles of accuracy_1 ..
accuracy_R bound a 95 % percentile interval.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from coursekit.arguments import require_positive_int
from coursekit.models.bert.heads import BertForPreTraining
from coursekit.pretrain.batches import PretrainingBatches, PretrainingCollator, tokenize_documents
from coursekit.pretrain.bert_pretraining import HELD_OUT_BATCHES, PretrainingSettings
from coursekit.pretrain.corpus import pretraining_corpus
from coursekit.pretrain.nsp import Document
from coursekit.pretrain.objective import pretraining_logits
from coursekit.runtime import evaluating, model_device, move_to_device
from coursekit.text.wordpiece import WordPieceTokenizer


@dataclass(frozen=True)
class PairOutcomes:
    """``correct [N]`` (bool: the IsNext / NotNext guess is right) and ``documents [N]``
    (long: the document of segment A) of N next-sentence pairs (Chapter 6, BERT).
    """

    correct: Tensor
    documents: Tensor

    def __post_init__(self) -> None:
        if self.correct.ndim != 1 or self.correct.shape != self.documents.shape:
            raise ValueError(
                f"correct and documents must be two 1-D tensors of one length, got shapes "
                f"{tuple(self.correct.shape)} and {tuple(self.documents.shape)}"
            )
        if len(self.correct) == 0:
            raise ValueError("no pairs: a bootstrap needs at least one pair")

    @property
    def accuracy(self) -> float:
        """The share of the pairs answered right."""
        return self.correct.double().mean().item()

    @property
    def num_documents(self) -> int:
        """How many distinct documents the pairs come from."""
        return int(self.documents.unique().numel())


@torch.no_grad()
def nsp_outcomes(
    model: BertForPreTraining,
    documents: list[Document],
    collator: PretrainingCollator,
    batch_size: int,
    steps: int,
    max_length: int,
    seed: int,
) -> PairOutcomes:
    """Pair by pair, whether ``model`` gets next sentence prediction right, and the document of
    segment A, on the very pairs and masks that ``PretrainingBatches(documents, collator,
    batch_size, steps, max_length, seed)`` draws (Chapter 6, BERT).
    """
    stream = PretrainingBatches(documents, collator, batch_size, steps, max_length, seed)
    device = model_device(model)
    correct, sources = [], []
    with evaluating(model):
        for _ in range(steps):
            batch, documents_of_pairs = stream.next_batch_with_sources()
            batch = move_to_device(batch, device)
            _, nsp_logits = pretraining_logits(model, batch)
            correct.append((nsp_logits.argmax(-1) == batch.nsp_labels).cpu())
            sources.append(documents_of_pairs)
    return PairOutcomes(torch.cat(correct), torch.cat(sources))


def held_out_nsp_outcomes(
    model: BertForPreTraining,
    tokenizer: WordPieceTokenizer,
    collator: PretrainingCollator,
    settings: PretrainingSettings,
    batches: int = HELD_OUT_BATCHES,
) -> PairOutcomes:
    """:func:`nsp_outcomes` on the pairs that
    :func:`coursekit.pretrain.bert_pretraining.held_out_evaluation` measures: ``batches``
    batches from every document the run did not train on (the valid and test splits), drawn
    from seed ``settings.seed + 2`` (Chapter 6, BERT).
    """
    corpus = [
        document
        for split in ("valid", "test")
        for document in pretraining_corpus(split, settings.use_wikitext2)
    ]
    documents = tokenize_documents(corpus, tokenizer)
    return nsp_outcomes(
        model, documents, collator, settings.batch_size, batches, settings.max_length,
        settings.seed + 2,
    )  # fmt: skip


def bootstrap_accuracy(outcomes: PairOutcomes, resamples: int = 1000, seed: int = 0) -> Tensor:
    """The accuracies ``[resamples]`` (float64) of ``resamples`` bootstrap resamples of the
    documents, each document weighted by its pairs (Chapter 6, BERT; the module docstring).
    """
    require_positive_int("resamples", resamples)
    _, document = outcomes.documents.unique(return_inverse=True)
    count = document.max().item() + 1
    right = torch.zeros(count, dtype=torch.float64).index_add_(
        0, document, outcomes.correct.double()
    )
    pairs = torch.zeros(count, dtype=torch.float64).index_add_(
        0, document, torch.ones(len(document), dtype=torch.float64)
    )
    generator = torch.Generator().manual_seed(seed)
    drawn = torch.randint(count, (resamples, count), generator=generator)
    return right[drawn].sum(1) / pairs[drawn].sum(1)


def percentile_interval(values: Tensor, level: float = 0.95) -> tuple[float, float]:
    """The ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of ``values`` (linear
    interpolation): the percentile bootstrap interval of the given level (Chapter 6, BERT).
    """
    if not 0 < level < 1:
        raise ValueError(f"level must lie strictly between 0 and 1, got {level}")
    bounds = torch.tensor([(1 - level) / 2, (1 + level) / 2], dtype=torch.float64)
    low, high = torch.quantile(values.double(), bounds).tolist()
    return low, high
