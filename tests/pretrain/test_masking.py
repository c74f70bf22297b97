"""MLM masking, checked statistically: 15 % of the real tokens chosen, of those 80 % [MASK],
10 % a random token, 10 % unchanged, each within 4 binomial standard deviations; specials and
padding never chosen; labels hold the original ids; whole-word masking chooses all the pieces
of a word or none."""

from __future__ import annotations

import math

import pytest
import torch

from coursekit.pretrain.masking import IGNORE_INDEX, MaskingRule, mask_tokens

PAD, CLS, SEP, MASK = 0, 1, 2, 3
RANDOM_IDS = torch.arange(4, 54)  # 50 ordinary tokens
BATCH, LENGTH = 300, 80


def within_four_sigma(successes: int, trials: int, probability: float) -> None:
    """``successes / trials`` is within 4 binomial standard deviations of ``probability``."""
    sigma = math.sqrt(probability * (1 - probability) / trials)
    assert abs(successes / trials - probability) <= 4 * sigma, (successes, trials, probability)


@pytest.fixture(scope="module")
def batch() -> tuple[torch.Tensor, torch.Tensor]:
    """Padded [CLS] ... [SEP] ... [SEP] rows of ordinary tokens, and where masking may act."""
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(4, 54, (BATCH, LENGTH), generator=generator)
    lengths = torch.randint(10, LENGTH + 1, (BATCH,), generator=generator)
    ids[:, 0] = CLS
    ids[torch.arange(BATCH), lengths - 1] = SEP
    ids[:, 5] = SEP
    ids[torch.arange(LENGTH) >= lengths[:, None]] = PAD
    return ids, ids >= 4


def test_fifteen_percent_of_real_tokens_are_chosen_80_10_10(batch) -> None:
    ids, maskable = batch
    corrupted, labels = mask_tokens(
        ids, maskable, MASK, RANDOM_IDS, torch.Generator().manual_seed(1)
    )
    chosen = labels != IGNORE_INDEX
    assert not (chosen & ~maskable).any()
    assert torch.equal(labels[chosen], ids[chosen])
    assert torch.equal(corrupted[~chosen], ids[~chosen])
    within_four_sigma(int(chosen.sum()), int(maskable.sum()), 0.15)
    n = int(chosen.sum())
    became_mask = int((corrupted[chosen] == MASK).sum())
    changed = int(((corrupted[chosen] != MASK) & (corrupted[chosen] != ids[chosen])).sum())
    # a random replacement equals the original with probability 1/50, then it looks unchanged
    within_four_sigma(became_mask, n, 0.8)
    within_four_sigma(changed, n, 0.1 * (1 - 1 / 50))
    within_four_sigma(n - became_mask - changed, n, 0.1 + 0.1 / 50)
    replacements = corrupted[chosen & (corrupted != MASK) & (corrupted != ids)]
    assert set(replacements.tolist()) <= set(RANDOM_IDS.tolist())
    assert len(set(replacements.tolist())) > 40


def test_another_rule_changes_the_rates(batch) -> None:
    ids, maskable = batch
    rule = MaskingRule(select=0.4, mask=0.5, random=0.0)
    corrupted, labels = mask_tokens(
        ids, maskable, MASK, RANDOM_IDS, torch.Generator().manual_seed(2), rule
    )
    chosen = labels != IGNORE_INDEX
    within_four_sigma(int(chosen.sum()), int(maskable.sum()), 0.4)
    within_four_sigma(int((corrupted[chosen] == MASK).sum()), int(chosen.sum()), 0.5)
    assert torch.equal(corrupted[chosen & (corrupted != MASK)], ids[chosen & (corrupted != MASK)])


def test_whole_word_masking_chooses_every_piece_of_a_word_or_none(batch) -> None:
    ids, maskable = batch
    word_starts = torch.rand(ids.shape, generator=torch.Generator().manual_seed(3)) < 0.6
    word_starts[:, 0] = True
    word_starts |= ~maskable  # specials start words
    _, labels = mask_tokens(
        ids, maskable, MASK, RANDOM_IDS, torch.Generator().manual_seed(4), word_starts=word_starts
    )
    chosen = labels != IGNORE_INDEX
    word_ids = word_starts.long().cumsum(dim=1)
    words = chosen_words = 0
    for row in range(BATCH):
        for word in word_ids[row].unique():
            in_word = (word_ids[row] == word) & maskable[row]
            if in_word.any():
                decisions = chosen[row][in_word]
                assert decisions.all() or not decisions.any()
                words += 1
                chosen_words += int(decisions.all())
    within_four_sigma(chosen_words, words, 0.15)


def test_bad_arguments_are_rejected(batch) -> None:
    ids, maskable = batch
    generator = torch.Generator()
    with pytest.raises(ValueError, match="maskable must be a BoolTensor"):
        mask_tokens(ids, maskable.long(), MASK, RANDOM_IDS, generator)
    with pytest.raises(ValueError, match="random_ids must be a non-empty"):
        mask_tokens(ids, maskable, MASK, RANDOM_IDS[:0], generator)
    with pytest.raises(ValueError, match="mask \\+ random must be <= 1"):
        MaskingRule(mask=0.9, random=0.2)
