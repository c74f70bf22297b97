"""The legacy lane: the libraries the course's sources used that today's torch no longer runs,
as references for coursekit, live.

``make test-legacy`` runs this folder in its own environment (.venv-legacy, built from
requirements.txt: torch 2.3.1, torchtext 0.18.0, transformers 4.37.2, numpy<2), because
torchtext's C++ extension loads with no other torch and Transfo-XL left transformers in version
5. coursekit is installed there without its dependencies, so what these tests import runs on
torch 2.3. Each reference reaches the tests only through a fixture, ``torchtext_api`` or
``transfo_xl``, so collection never imports it; anywhere a reference cannot be imported (the main
environment), every test that needs it is skipped with the reason.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pydoc_data.topics import topics
from types import SimpleNamespace

import pytest

LANE = "run `make test-legacy`, which builds .venv-legacy from tests/legacy/requirements.txt"


def torchtext_reference() -> SimpleNamespace:
    """torchtext's tokenizer and vocabulary API."""
    import torchtext
    from torchtext.data.utils import get_tokenizer
    from torchtext.vocab import build_vocab_from_iterator

    return SimpleNamespace(
        version=torchtext.__version__,
        get_tokenizer=get_tokenizer,
        build_vocab_from_iterator=build_vocab_from_iterator,
    )


def transfo_xl_reference() -> SimpleNamespace:
    """Hugging Face's Transfo-XL classes and modelling module (transformers <= 4.x)."""
    import transformers
    from transformers import TransfoXLConfig, TransfoXLLMHeadModel, TransfoXLModel
    from transformers.models.deprecated.transfo_xl import modeling_transfo_xl

    return SimpleNamespace(
        version=transformers.__version__,
        config=TransfoXLConfig,
        lm_head_model=TransfoXLLMHeadModel,
        model=TransfoXLModel,
        modeling=modeling_transfo_xl,
    )


def imported(reference: Callable[[], SimpleNamespace]) -> tuple[SimpleNamespace | None, str]:
    """``(reference(), "")``, or ``(None, why)`` when it cannot be imported: ImportError when a
    library is missing (or too new, as transformers 5 for Transfo-XL), OSError when torchtext's
    C++ extension was built for another torch. Deprecation warnings on import are silenced.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return reference(), ""
    except Exception as error:
        return None, f"{type(error).__name__}: {error}"


REFERENCES = {
    "torchtext_api": ("torchtext 0.18", imported(torchtext_reference)),
    "transfo_xl_api": ("transformers 4.37 (Transfo-XL)", imported(transfo_xl_reference)),
}
"""Each reference by the fixture that hands it out: its name, and (the API or None, the error)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip every test whose fixtures need a reference that cannot be imported here."""
    for item in items:
        for fixture, (name, (api, error)) in REFERENCES.items():
            if api is None and fixture in getattr(item, "fixturenames", ()):
                item.add_marker(
                    pytest.mark.skip(reason=f"{name} is not importable ({error}); {LANE}")
                )


@pytest.fixture(scope="session")
def torchtext_api() -> SimpleNamespace:
    """``get_tokenizer`` and ``build_vocab_from_iterator`` of the installed torchtext 0.18."""
    api, error = REFERENCES["torchtext_api"][1]
    assert api is not None, error
    assert api.version.startswith("0.18"), f"expected torchtext 0.18, got {api.version}"
    return api


@pytest.fixture(scope="session")
def transfo_xl_api() -> SimpleNamespace:
    """Hugging Face's ``TransfoXLConfig``, ``TransfoXLModel``, ``TransfoXLLMHeadModel`` and their
    modelling module, from transformers 4.37.
    """
    api, error = REFERENCES["transfo_xl_api"][1]
    assert api is not None, error
    assert api.version == "4.37.2", f"expected transformers 4.37.2, got {api.version}"
    return api


@pytest.fixture(scope="session")
def docs_lines() -> list[str]:
    """Python's own documentation topics (``pydoc_data.topics``), one string per line."""
    lines = [line for name in sorted(topics) for line in topics[name].splitlines()]
    assert len(lines) > 5000, "pydoc_data.topics looks truncated"
    return lines


@pytest.fixture(scope="session")
def docs_tokens(docs_lines: list[str], torchtext_api: SimpleNamespace) -> list[list[str]]:
    """The documentation lines tokenized by torchtext's basic_english tokenizer."""
    tokenize = torchtext_api.get_tokenizer("basic_english")
    return [tokenize(line) for line in docs_lines]
