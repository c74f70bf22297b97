"""One entry point for every dataset of the course: ``load(name, split, **options)``.

Each dataset registers a *builder* with a :class:`DatasetInfo` that says what it is, which splits
and options it has, and (for a real dataset) which file to download. :func:`load` checks the
split and the option names against that description before building anything, so a typo fails
at once with the list of valid choices. :func:`names`, :func:`describe` and :func:`download` are
what the ``coursekit data list|download NAME`` command shows and does.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from coursekit.arguments import require_int, require_non_negative_int
from coursekit.config import shifted
from coursekit.data.downloads import Resource, fetch

Kind = Literal["generated", "download"]
Builder = Callable[..., list[Any]]


@dataclass(frozen=True)
class Option:
    """One keyword option of a dataset, its default value and what it does."""

    name: str
    default: Any
    help: str


SIZE_OPTION = Option("n", None, "number of examples (None: the default size of the split)")
SEED_OPTION = Option("seed", 0, "seed of the private random generator")


@dataclass(frozen=True)
class DatasetInfo:
    """What :func:`describe` tells about a dataset (Chapter 1, Text as sequences).

    ``kind`` is ``"generated"`` (built on your machine from a seed, no network) or ``"download"``
    (read from ``resource``, fetched once into the cache). ``sizes`` holds the number of examples
    of each split when the option ``n`` is left at ``None``, for generated datasets.
    """

    name: str
    description: str
    kind: Kind
    splits: tuple[str, ...]
    options: tuple[Option, ...] = ()
    sizes: Mapping[str, int] = field(default_factory=dict)
    resource: Resource | None = None

    @property
    def defaults(self) -> dict[str, Any]:
        """The default value of every option, by name."""
        return {option.name: option.default for option in self.options}

    def summary(self) -> str:
        """A few lines for a terminal or a notebook: description, splits, options, source."""
        lines = [f"{self.name} ({self.kind}): {self.description}"]
        sizes = ", ".join(
            f"{split} {self.sizes[split]}" for split in self.splits if split in self.sizes
        )
        lines.append(
            f"  splits: {', '.join(self.splits)}" + (f" (default sizes: {sizes})" if sizes else "")
        )
        lines.extend(f"  {o.name}={o.default!r}: {o.help}" for o in self.options)
        if self.resource is not None:
            lines.append(f"  source: {self.resource.url} (SHA-256 {self.resource.sha256})")
        return "\n".join(lines)


@dataclass(frozen=True)
class Entry:
    """A registered dataset: its description and the function that builds one split."""

    info: DatasetInfo
    build: Builder


DATASETS: dict[str, Entry] = {}


def register(info: DatasetInfo) -> Callable[[Builder], Builder]:
    """Decorator that registers a builder under ``info.name``.

    A builder is ``build(split, **options)``; for a downloaded dataset it is
    ``build(split, path, **options)``, where ``path`` is the checked file.
    """

    def decorate(build: Builder) -> Builder:
        if info.name in DATASETS:
            raise ValueError(f"a dataset named {info.name!r} is registered already")
        DATASETS[info.name] = Entry(info, build)
        return build

    return decorate


def names() -> list[str]:
    """The names of all datasets, sorted (Chapter 1, Text as sequences)."""
    return sorted(DATASETS)


def entry(name: str) -> Entry:
    """The registered entry for ``name``; a ``ValueError`` listing the valid names otherwise."""
    if name not in DATASETS:
        close = difflib.get_close_matches(str(name), DATASETS, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise ValueError(f"unknown dataset {name!r}; choose one of {names()}.{hint}")
    return DATASETS[name]


def describe(name: str) -> DatasetInfo:
    """The :class:`DatasetInfo` of ``name``: kind, splits, options, defaults (Chapter 1)."""
    return entry(name).info


def download(name: str, *, mirror: str | None = None, progress: bool = True) -> Path:
    """Download (or find in the cache) and check the file behind a real dataset; return its path.

    See :func:`coursekit.data.downloads.fetch` (Chapter 1, Text as sequences). Generated datasets
    have nothing to download, so they raise a ``ValueError``.
    """
    info = describe(name)
    if info.resource is None:
        raise ValueError(f"{name!r} is generated on your machine and needs no download")
    return fetch(info.resource, mirror=mirror, progress=progress)


def load(name: str, split: str = "train", **options: Any) -> list[Any]:
    """Build one split of a dataset as a list of examples (Chapter 1, Text as sequences).

    ``options`` override the defaults listed by :func:`describe`; ``n=None`` means the default
    size of the split. The options every dataset shares, ``n`` (an int >= 0) and ``seed`` (an
    int), are checked here; each builder checks its own. The seed is moved by
    ``$COURSEKIT_SEED`` (0 when unset), so that a chapter's data draws change with the shift.
    Example: ``load("numbers", "test", source="de", numbers_per_example=3)``.
    """
    found = entry(name)
    info = found.info
    if split not in info.splits:
        raise ValueError(f"{name!r} has no split {split!r}; choose one of {list(info.splits)}")
    unknown = sorted(set(options) - set(info.defaults))
    if unknown:
        valid = sorted(info.defaults) or "none"
        raise ValueError(f"{name!r} has no option {', '.join(map(repr, unknown))}; valid: {valid}")
    chosen = {**info.defaults, **options}
    if "n" in chosen and chosen["n"] is None and split in info.sizes:
        chosen["n"] = info.sizes[split]
    if chosen.get("n") is not None:
        require_non_negative_int("n", chosen["n"])
    if "seed" in chosen:
        require_int("seed", chosen["seed"])
        chosen["seed"] = shifted(chosen["seed"])
    if info.resource is None:
        return found.build(split, **chosen)
    return found.build(split, download(name), **chosen)
