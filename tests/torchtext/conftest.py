"""The torchtext parity lane: real torchtext 0.18 as the reference, real English text as input.

``make test-torchtext`` runs this folder in its own environment (.venv-torchtext: torch 2.3.1,
torchtext 0.18.0, numpy<2, pytest; see requirements.txt), because torchtext's C++ extension loads
with no other torch. Anywhere torchtext cannot be imported, every test here is skipped with the
reason. Test modules get torchtext only through the ``torchtext_api`` fixture, so collection never
imports it.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from pydoc_data.topics import topics
from types import SimpleNamespace

import pytest

HERE = Path(__file__).parent


def _load_torchtext() -> tuple[SimpleNamespace | None, str]:
    """torchtext's tokenizer and vocabulary API, or None and why it could not be imported."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torchtext warns on import that it is deprecated
            import torchtext

            if getattr(torchtext, "__file__", None) is None:  # only this folder, seen as a package
                return None, "torchtext is not installed in this environment"
            from torchtext.data.utils import get_tokenizer
            from torchtext.vocab import build_vocab_from_iterator
    # ImportError when it is missing; OSError when its C++ extension was built for another torch.
    except Exception as error:
        return None, f"{type(error).__name__}: {error}"
    api = SimpleNamespace(
        version=torchtext.__version__,
        get_tokenizer=get_tokenizer,
        build_vocab_from_iterator=build_vocab_from_iterator,
    )
    return api, ""


TORCHTEXT, IMPORT_ERROR = _load_torchtext()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if TORCHTEXT is not None:
        return
    skip = pytest.mark.skip(
        reason=f"torchtext 0.18 is not importable here ({IMPORT_ERROR}); run `make "
        "test-torchtext`, which builds .venv-torchtext with torch 2.3.1 and torchtext 0.18.0"
    )
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def torchtext_api() -> SimpleNamespace:
    """``get_tokenizer`` and ``build_vocab_from_iterator`` of the installed torchtext 0.18."""
    assert TORCHTEXT is not None, IMPORT_ERROR
    assert TORCHTEXT.version.startswith("0.18"), f"expected torchtext 0.18, got {TORCHTEXT.version}"
    return TORCHTEXT


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
