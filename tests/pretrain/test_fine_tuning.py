"""Fine-tuning plumbing (Chapter 6): the four input formats, batches, scores, and the paired
set-up of a pretrained-vs-scratch comparison (same output layer, same batches)."""

from __future__ import annotations

import torch

from coursekit import data
from coursekit.data.ner import TAGS
from coursekit.models.bert.config import BertConfig
from coursekit.pretrain.checkpoint import PRETRAINED_BERT, load_pretrained
from coursekit.pretrain.fine_tuning import TASKS, entities, entity_f1, fine_tune, score, task_model
from coursekit.pretrain.masking import IGNORE_INDEX
from coursekit.pretrain.task_inputs import collate

_, TOKENIZER = load_pretrained()


def test_every_answer_span_points_at_the_answer_tokens() -> None:
    stories = data.load("story_qa", "train", n=60, max_sentences=4)
    for story in stories:
        ids, segments, (first, last) = TASKS["story_qa"].encode(TOKENIZER, story)
        assert segments[first] == segments[last] == 1
        assert ids[first : last + 1] == TOKENIZER.convert_tokens_to_ids(
            TOKENIZER.tokenize(story.answer)
        )


def test_tags_sit_on_the_first_piece_of_each_word() -> None:
    for sentence in data.load("ner", "train", n=40):
        ids, _, tags = TASKS["ner"].encode(TOKENIZER, sentence)
        assert len(ids) == len(tags) and tags[0] == tags[-1] == IGNORE_INDEX
        assert [t for t in tags if t != IGNORE_INDEX] == [TAGS.index(t) for t in sentence.tags]
        first_pieces = [i for i, t in enumerate(tags) if t != IGNORE_INDEX]
        for position, word in zip(first_pieces, sentence.words, strict=True):
            assert ids[position] == TOKENIZER.convert_tokens_to_ids(TOKENIZER.tokenize(word))[0]


def test_collate_pads_ids_segments_and_tags() -> None:
    sentences = data.load("ner", "train", n=5)
    encoded = [TASKS["ner"].encode(TOKENIZER, s) for s in sentences]
    batch = collate(encoded, TOKENIZER.pad_id)
    longest = max(len(ids) for ids, _, _ in encoded)
    assert batch.input_ids.shape == batch.targets.shape == (5, longest)
    for row, (ids, _, tags) in enumerate(encoded):
        assert batch.attention_mask[row].sum() == len(ids)
        assert (batch.input_ids[row, len(ids) :] == TOKENIZER.pad_id).all()
        assert (batch.targets[row, len(tags) :] == IGNORE_INDEX).all()
    labels = collate([TASKS["nli"].encode(TOKENIZER, p) for p in data.load("nli", "train", n=4)], 0)
    assert labels.targets.shape == (4,)


def test_entities_follow_conll() -> None:
    assert entities(["B-PER", "I-PER", "O", "B-LOC"]) == {(0, 2, "PER"), (3, 4, "LOC")}
    assert entities(["I-ORG", "I-ORG", "B-ORG"]) == {(0, 2, "ORG"), (2, 3, "ORG")}
    assert entities(["B-PER", "I-LOC"]) == {(0, 1, "PER"), (1, 2, "LOC")}


def test_entity_f1_counts_entities_not_tokens() -> None:
    ids = {tag: TAGS.index(tag) for tag in TAGS}
    target = torch.tensor([[IGNORE_INDEX, ids["B-PER"], ids["I-PER"], ids["O"], IGNORE_INDEX]])
    half_right = torch.tensor([[0, ids["B-PER"], ids["O"], ids["O"], 0]])
    assert entity_f1(target.clamp(min=0), target) == 1.0
    assert entity_f1(half_right, target) == 0.0  # the one entity found has the wrong end


def test_both_arms_start_from_the_same_output_layer() -> None:
    task = TASKS["sentiment"]
    pretrained = task_model(task, BertConfig(), PRETRAINED_BERT, seed=3)
    scratch = task_model(task, pretrained.config, None, seed=3)
    torch.testing.assert_close(scratch.classifier.state_dict(), pretrained.classifier.state_dict())
    saved, _ = load_pretrained()
    torch.testing.assert_close(
        pretrained.bert.encoder.state_dict(), saved.bert.encoder.state_dict()
    )
    assert not torch.allclose(
        scratch.bert.embeddings.token_embeddings.weight,
        pretrained.bert.embeddings.token_embeddings.weight,
    )


def test_fine_tuning_learns_a_training_set_and_repeats_from_its_seed() -> None:
    torch.set_num_threads(1)
    task = TASKS["sentiment"]
    reviews = data.load("sentiment", "train", n=32, plain_fraction=1.0)
    examples = [task.encode(TOKENIZER, review) for review in reviews]
    runs = []
    for _ in range(2):
        model = task_model(task, BertConfig(), PRETRAINED_BERT, seed=0)
        before = score(model, examples, TOKENIZER.pad_id, TOKENIZER.sep_id)
        fine_tune(model, examples, TOKENIZER.pad_id, learning_rate=1e-3, steps=60, seed=0)
        runs.append(model)
    assert score(runs[0], examples, TOKENIZER.pad_id, TOKENIZER.sep_id) >= max(0.9, before + 0.2)
    torch.testing.assert_close(runs[0].state_dict(), runs[1].state_dict(), rtol=1e-6, atol=1e-8)
