"""Shards of a class that must all come back: ``coursekit grade --shard I/N`` and ``--merge``.

Beside its gradebook ``shard-2.csv``, each shard writes ``shard-2.csv.shard.json``: the
assignment, ``I`` and ``N``, the students it graded and a fingerprint of the whole class's ids.
:func:`require_complete_shards` reads them before a merge and refuses, naming what is wrong, a
set of gradebooks that lacks a shard (its job failed, or its file was not collected), holds one
twice, mixes classes, assignments or shard counts, or holds a gradebook cut short. So a failed
shard is reported, never silently missing from the merged gradebook. See the book's Exercises
page.
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from coursekit.grading.instructor.gradebook import write_atomically

MANIFEST_SUFFIX = ".shard.json"


@dataclass(frozen=True)
class ShardManifest:
    """What shard ``index`` of ``count`` graded, and of which class (``fingerprint``)."""

    assignment: str
    index: int
    count: int
    fingerprint: str
    students: list[str]


def manifest_path(gradebook: Path) -> Path:
    """``shard-2.csv`` -> ``shard-2.csv.shard.json``."""
    return gradebook.with_name(gradebook.name + MANIFEST_SUFFIX)


def class_fingerprint(students: Iterable[str]) -> str:
    """A hash of the class's student ids, the same whatever their order."""
    return hashlib.sha256("\n".join(sorted(students)).encode()).hexdigest()[:16]


def write_manifest(gradebook: Path, manifest: ShardManifest) -> None:
    """Write ``manifest`` beside ``gradebook``."""
    write_atomically(manifest_path(gradebook), json.dumps(asdict(manifest), indent=1) + "\n")


def require_complete_shards(gradebooks: Sequence[Path]) -> None:
    """Raise ``ValueError`` unless ``gradebooks`` are every shard of one run, once each (see the
    module docstring). Gradebooks without manifests (not made by ``--shard``) pass unchecked."""
    manifests = [(path, _read_manifest(path)) for path in gradebooks]
    if all(manifest is None for _, manifest in manifests):
        return
    unmarked = [str(path) for path, manifest in manifests if manifest is None]
    if unmarked:
        raise ValueError(
            f"{', '.join(unmarked)} did not come from coursekit grade --shard (no "
            f"{MANIFEST_SUFFIX} beside it); merge the shards of one run only"
        )
    present = [(path, manifest) for path, manifest in manifests if manifest is not None]
    first_path, first = present[0]
    by_index: dict[int, Path] = {}
    for path, manifest in present:
        for what in ("assignment", "count", "fingerprint"):
            if getattr(manifest, what) != getattr(first, what):
                raise ValueError(
                    f"{path} and {first_path} come from different runs (their {what} differs); "
                    f"merge the shards of one run only"
                )
        if manifest.index in by_index:
            raise ValueError(
                f"shard {manifest.index}/{manifest.count} appears in more than one input "
                f"({by_index[manifest.index]} and {path})"
            )
        by_index[manifest.index] = path
        _require_rows(path, manifest)
    missing = [index for index in range(1, first.count + 1) if index not in by_index]
    if missing:
        shards = ", ".join(f"{index}/{first.count}" for index in missing)
        raise ValueError(
            f"shard {shards} of {first.assignment} is missing: no gradebook of it among the "
            f"inputs (its job failed, or its CSV was not collected); grade it again with "
            f"--shard {missing[0]}/{first.count} and merge all {first.count}"
        )


def _read_manifest(gradebook: Path) -> ShardManifest | None:
    path = manifest_path(gradebook)
    if not path.is_file():
        return None
    try:
        return ShardManifest(**json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, TypeError) as error:
        raise ValueError(f"{path} is not a shard manifest of coursekit grade ({error})") from None


def _require_rows(gradebook: Path, manifest: ShardManifest) -> None:
    with gradebook.open(newline="", encoding="utf-8") as handle:
        students = [row[0] for row in list(csv.reader(handle))[1:] if row]
    if sorted(students) != sorted(manifest.students):
        raise ValueError(
            f"{gradebook} does not hold the {len(manifest.students)} students its shard graded "
            f"(it has {len(students)}): the file was cut short or edited; grade shard "
            f"{manifest.index}/{manifest.count} again"
        )
