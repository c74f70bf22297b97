"""The registry: names, descriptions, and clear errors on bad names, splits and options."""

from __future__ import annotations

import pytest

from coursekit.data import DatasetInfo, describe, download, load, names

GENERATED = [
    "contrast_span",
    "copy",
    "dates",
    "docs_corpus",
    "ner",
    "nli",
    "numbers",
    "reverse",
    "review_corpus",
    "sentiment",
    "sort",
    "story_qa",
]
DOWNLOADED = ["eng_fra", "imdb", "tiny_shakespeare", "wikitext2"]


def test_names_lists_every_dataset_sorted():
    assert names() == sorted(GENERATED + DOWNLOADED)


@pytest.mark.parametrize("name", GENERATED + DOWNLOADED)
def test_describe_gives_what_the_command_line_prints(name):
    info = describe(name)
    assert isinstance(info, DatasetInfo)
    assert info.name == name
    assert info.description and "\n" not in info.description
    assert info.kind == ("generated" if name in GENERATED else "download")
    assert {"train", "valid", "test"} <= set(info.splits)
    assert (info.resource is None) == (name in GENERATED)
    assert set(info.defaults) == {option.name for option in info.options}
    summary = info.summary()
    assert summary.startswith(f"{name} ({info.kind})")
    assert all(f"{option.name}=" in summary for option in info.options)


def test_generated_datasets_have_a_default_size_per_split():
    for name in GENERATED:
        info = describe(name)
        if "n" in info.defaults:
            assert set(info.sizes) == set(info.splits)
            assert len(load(name, "valid")) == info.sizes["valid"]


def test_unknown_name_lists_the_valid_ones_and_suggests_one():
    with pytest.raises(ValueError, match="unknown dataset 'numbrs'") as failure:
        load("numbrs")
    assert "'numbers'" in str(failure.value)
    assert "Did you mean 'numbers'?" in str(failure.value)
    with pytest.raises(ValueError, match="unknown dataset"):
        describe("nope")


def test_unknown_split_lists_the_valid_ones():
    with pytest.raises(ValueError, match=r"no split 'hard'.*\['train', 'valid', 'test'\]"):
        load("numbers", "hard")


def test_unknown_option_lists_the_valid_ones():
    with pytest.raises(ValueError, match="no option 'max_len'") as failure:
        load("numbers", max_len=3)
    assert "numbers_per_example" in str(failure.value)


def test_generated_datasets_need_no_download():
    with pytest.raises(ValueError, match="needs no download"):
        download("copy")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"n": -1}, "n must be a non-negative integer"),
        ({"n": 2.5}, "n must be a non-negative integer"),
        ({"seed": "zero"}, "seed must be an integer"),
    ],
)
def test_bad_option_values_say_what_was_wrong(options, message):
    with pytest.raises(ValueError, match=message):
        load("copy", **options)
