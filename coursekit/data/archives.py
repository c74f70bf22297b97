"""Safe, atomic extraction of downloaded archives (``.tar.gz``, ``.tgz``, ``.tar``, ``.zip``).

An archive names its members with paths, and a hostile one can name ``../../.bashrc`` or
``/etc/passwd`` ("path traversal"), or hide a link that points outside. :func:`extract_archive`
writes only regular files and folders, and only at paths that stay inside the destination;
anything else stops the extraction with a ``ValueError``. It extracts into a temporary folder
and renames it into place, so a folder next to the archive is either complete or absent.
The folder remembers which archive it came from (size and modification time), so replacing the
archive (a new download) replaces the folder too.
"""

from __future__ import annotations

import os
import shutil
import tarfile
import tempfile
import zipfile
from pathlib import Path, PurePosixPath
from typing import IO

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".zip")
COMPLETE_MARKER = ".complete"


def extraction_dir(archive: Path) -> Path:
    """Where ``archive`` is extracted: next to it, named without the suffix (``a.tar.gz -> a``)."""
    for suffix in ARCHIVE_SUFFIXES:
        if archive.name.endswith(suffix):
            return archive.with_name(archive.name[: -len(suffix)])
    raise ValueError(f"{archive.name} is not an archive this package reads {ARCHIVE_SUFFIXES}")


def safe_member_path(root: Path, name: str) -> Path:
    """The path of member ``name`` under ``root``; a ``ValueError`` if it would leave ``root``."""
    member = PurePosixPath(name.replace("\\", "/"))
    first = member.parts[0] if member.parts else ""
    if member.is_absolute() or ".." in member.parts or first.endswith(":"):
        raise ValueError(f"unsafe archive member {name!r}: it points outside the extraction folder")
    target = root.joinpath(*member.parts)
    resolved_root = root.resolve()
    if resolved_root != target.resolve() and resolved_root not in target.resolve().parents:
        raise ValueError(f"unsafe archive member {name!r}: it resolves outside {root}")
    return target


def write_member(stream: IO[bytes], target: Path) -> None:
    """Copy one member's bytes to ``target``, creating its folders."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "wb") as out:
        shutil.copyfileobj(stream, out)


def extract_tar(archive: Path, root: Path) -> None:
    """Extract the regular files and folders of a tar archive; refuse links and devices."""
    with tarfile.open(archive, "r:*") as tar:
        for member in tar:
            target = safe_member_path(root, member.name)
            if member.isdir():
                target.mkdir(parents=True, exist_ok=True)
            elif member.isfile():
                stream = tar.extractfile(member)
                assert stream is not None  # a regular file always has a stream
                with stream:
                    write_member(stream, target)
            else:
                raise ValueError(
                    f"archive member {member.name!r} is a link or a special file; "
                    "only regular files and folders are extracted"
                )


def extract_zip(archive: Path, root: Path) -> None:
    """Extract every member of a zip archive as a regular file or folder."""
    with zipfile.ZipFile(archive) as bundle:
        for info in bundle.infolist():
            target = safe_member_path(root, info.filename)
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
            else:
                with bundle.open(info) as stream:
                    write_member(stream, target)


def fingerprint_of(archive: Path) -> str:
    """What identifies one copy of an archive on disk: its size and modification time."""
    status = archive.stat()
    return f"{status.st_size} {status.st_mtime_ns}"


def extract_archive(archive: Path) -> Path:
    """Extract ``archive`` once into :func:`extraction_dir` and return that folder (Chapter 1).

    A folder extracted from this very copy of the archive is reused; any other is replaced.
    """
    destination = extraction_dir(archive)
    fingerprint = fingerprint_of(archive)
    if is_complete(destination, fingerprint):
        return destination
    staging = Path(tempfile.mkdtemp(prefix=f".{destination.name}.", dir=archive.parent))
    try:
        if archive.name.endswith(".zip"):
            extract_zip(archive, staging)
        else:
            extract_tar(archive, staging)
        (staging / COMPLETE_MARKER).write_text(fingerprint, encoding="utf-8")
        if destination.exists():
            shutil.rmtree(destination)
        os.replace(staging, destination)
    except OSError:
        if not is_complete(destination, fingerprint):  # not a concurrent extraction that won
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return destination


def is_complete(folder: Path, fingerprint: str) -> bool:
    """True when ``folder`` holds a finished extraction of the archive with ``fingerprint``."""
    marker = folder / COMPLETE_MARKER
    return marker.is_file() and marker.read_text(encoding="utf-8") == fingerprint
