"""The bootstrap over documents of next sentence prediction's accuracy (Chapter 6, BERT): on
constructed outcomes its interval is a point where every document agrees and wide where the
documents disagree; a resample weights each document by its pairs; the per-pair outcomes are
those of the pairs ``PretrainingBatches`` draws from the same seed."""

from __future__ import annotations

import pytest
import torch

from coursekit.data import load
from coursekit.models.bert.config import BertConfig
from coursekit.models.bert.heads import BertForPreTraining
from coursekit.pretrain.batches import PretrainingBatches, PretrainingCollator, tokenize_documents
from coursekit.pretrain.bert_pretraining import (
    HELD_OUT_BATCHES,
    PretrainingSettings,
    held_out_evaluation,
    streams_for,
)
from coursekit.pretrain.bootstrap import (
    PairOutcomes,
    bootstrap_accuracy,
    held_out_nsp_outcomes,
    nsp_outcomes,
    percentile_interval,
)
from coursekit.pretrain.corpus import docs_corpus_documents
from coursekit.pretrain.masking import MaskingRule
from coursekit.pretrain.nsp import document_sentence_pair, sentence_pair
from coursekit.pretrain.objective import pretraining_accuracies
from coursekit.text.wordpiece import WordPieceTokenizer
from coursekit.text.wordpiece_training import train_wordpiece

Small = tuple[BertForPreTraining, WordPieceTokenizer, PretrainingCollator]


def outcomes(per_document: list[list[bool]]) -> PairOutcomes:
    """Pair outcomes from one list of right / wrong answers per document."""
    correct = [answer for answers in per_document for answer in answers]
    documents = [index for index, answers in enumerate(per_document) for _ in answers]
    return PairOutcomes(torch.tensor(correct), torch.tensor(documents))


def test_every_document_right_gives_an_interval_at_one() -> None:
    accuracies = bootstrap_accuracy(outcomes([[True] * 40] * 12), resamples=1000, seed=0)
    assert accuracies.shape == (1000,) and accuracies.dtype == torch.float64
    assert percentile_interval(accuracies) == (1.0, 1.0)


def test_documents_that_disagree_give_a_wide_interval_around_one_half() -> None:
    split = outcomes([[True] * 40] * 6 + [[False] * 40] * 6)
    assert split.accuracy == 0.5 and split.num_documents == 12
    accuracies = bootstrap_accuracy(split, resamples=1000, seed=0)
    low, high = percentile_interval(accuracies)
    # each resample is (documents drawn from the right half) / 12, Binomial(12, 1/2) / 12
    assert low <= 0.3 and high >= 0.7
    assert abs(accuracies.mean().item() - 0.5) < 0.02
    # 480 independent pairs at 50 % would give about 0.5 +- 0.045: documents are not pairs
    assert high - low > 4 * 1.96 * (0.25 / 480) ** 0.5


def test_a_resample_weights_each_document_by_its_pairs() -> None:
    # one document of 3 right pairs, one of 1 wrong pair: a resample drawing each once is 3/4
    accuracies = bootstrap_accuracy(outcomes([[True] * 3, [False]]), resamples=2000, seed=1)
    assert set(accuracies.tolist()) == {0.0, 0.75, 1.0}
    assert abs((accuracies == 0.75).double().mean().item() - 0.5) < 0.05


def test_document_ids_need_not_be_contiguous() -> None:
    sparse = PairOutcomes(torch.tensor([True, False, True]), torch.tensor([7, 7, 40]))
    assert sparse.num_documents == 2
    assert set(bootstrap_accuracy(sparse, resamples=200).tolist()) <= {0.5, 2 / 3, 1.0}


def test_the_same_seed_draws_the_same_resamples() -> None:
    mixed = outcomes([[True, False], [True], [False, False, True]])
    assert torch.equal(bootstrap_accuracy(mixed, 50, seed=3), bootstrap_accuracy(mixed, 50, seed=3))


def test_malformed_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="1-D tensors of one length"):
        PairOutcomes(torch.tensor([True, False]), torch.tensor([0]))
    with pytest.raises(ValueError, match="no pairs"):
        PairOutcomes(torch.tensor([], dtype=torch.bool), torch.tensor([], dtype=torch.long))
    with pytest.raises(ValueError, match="resamples"):
        bootstrap_accuracy(outcomes([[True]]), resamples=0)
    with pytest.raises(ValueError, match="level"):
        percentile_interval(torch.tensor([0.5]), level=1.0)


def test_document_sentence_pair_makes_the_draws_of_sentence_pair() -> None:
    tokenizer = WordPieceTokenizer(train_wordpiece(load("docs_corpus", "valid"), 300))
    documents = tokenize_documents(docs_corpus_documents("valid"), tokenizer)
    ours, theirs = torch.Generator().manual_seed(4), torch.Generator().manual_seed(4)
    for _ in range(50):
        index, pair = document_sentence_pair(documents, 48, ours)
        assert pair == sentence_pair(documents, 48, theirs)
        assert 0 <= index < len(documents) and pair.segment_a[0] in sum(documents[index], [])


@pytest.fixture(scope="module")
def small() -> Small:
    """A random BERT of one layer, a 300-token vocabulary and its collator."""
    tokenizer = WordPieceTokenizer(train_wordpiece(load("docs_corpus", "valid"), 300))
    collator = PretrainingCollator(tokenizer, MaskingRule(), whole_word_masking=False)
    torch.manual_seed(0)
    model = BertForPreTraining(
        BertConfig(
            vocab_size=300, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
            intermediate_size=32, max_position_embeddings=48, pad_token_id=tokenizer.pad_id,
        )
    )  # fmt: skip
    return model, tokenizer, collator


def test_nsp_outcomes_are_those_of_the_pretraining_batches(small: Small) -> None:
    model, tokenizer, collator = small
    documents = tokenize_documents(docs_corpus_documents("valid"), tokenizer)
    result = nsp_outcomes(model, documents, collator, batch_size=8, steps=3, max_length=48, seed=5)
    batches = PretrainingBatches(documents, collator, 8, 3, 48, seed=5)
    assert result.correct.shape == result.documents.shape == (24,)
    assert result.accuracy == pretraining_accuracies(model, batches)["nsp_accuracy"]
    assert set(result.documents.tolist()) <= set(range(len(documents)))


def test_held_out_outcomes_are_those_of_the_held_out_evaluation(small: Small) -> None:
    model, tokenizer, collator = small
    settings = PretrainingSettings(batch_size=8, max_length=48, use_wikitext2=False)
    outcomes = held_out_nsp_outcomes(model, tokenizer, collator, settings)
    evaluation = held_out_evaluation(model, streams_for(settings, tokenizer), settings)
    assert len(outcomes.correct) == evaluation["pairs"] == HELD_OUT_BATCHES * 8
    assert outcomes.accuracy == evaluation["nsp_accuracy"]
