"""Unpack a ``.zip`` of submissions without trusting it: ``coursekit grade --assignment ch01
submissions.zip``.

A bulk download from an LMS is a file anyone in the class helped to fill, so
:func:`extract_zip` refuses, each with an :class:`UnsafeArchive` that names the member and what
to do, every way a zip can hurt the machine that opens it: a member whose path is absolute or
climbs out with ``..`` (path traversal), a symbolic link, an encrypted member, two members with
the same path, more than :data:`MAX_MEMBERS` members, or more than :data:`MAX_TOTAL_BYTES` once
unpacked (a zip bomb; the bytes are counted as they are written, not read from the zip's own
claims). macOS's ``__MACOSX/`` resource forks are skipped. See the book's Exercises page.
"""

from __future__ import annotations

import stat
import zipfile
from pathlib import Path, PurePosixPath

MAX_MEMBERS = 20_000
MAX_TOTAL_BYTES = 2 * 2**30
CHUNK_BYTES = 2**20
SKIPPED_FOLDERS = frozenset({"__MACOSX"})


class UnsafeArchive(ValueError):
    """A zip that :func:`extract_zip` refuses to unpack; the message says why."""


def extract_zip(
    archive: Path,
    destination: Path,
    *,
    max_members: int = MAX_MEMBERS,
    max_total_bytes: int = MAX_TOTAL_BYTES,
) -> int:
    """Unpack ``archive`` into the empty folder ``destination``; return the number of bytes written.

    Raises :class:`UnsafeArchive` (see the module
    docstring) before anything is written when the zip's table of contents is unsafe, and stops
    writing as soon as the unpacked bytes pass ``max_total_bytes``.
    """
    try:
        with zipfile.ZipFile(archive) as opened:
            members = _safe_members(archive, opened, max_members)
            written = 0
            for member, relative in members:
                target = destination.joinpath(*relative.parts)
                if member.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with opened.open(member) as source, target.open("wb") as sink:
                    while chunk := source.read(CHUNK_BYTES):
                        written += len(chunk)
                        if written > max_total_bytes:
                            raise UnsafeArchive(
                                f"{archive} unpacks to more than {max_total_bytes // 2**20} MiB "
                                f"(stopped at {member.filename}); a class's notebooks are far "
                                f"smaller: download the submissions again, or unpack the zip "
                                f"yourself and pass the folder"
                            )
                        sink.write(chunk)
    except zipfile.BadZipFile as error:
        raise UnsafeArchive(f"{archive} is not a readable zip file ({error})") from None
    return written


def _safe_members(
    archive: Path, opened: zipfile.ZipFile, max_members: int
) -> list[tuple[zipfile.ZipInfo, PurePosixPath]]:
    """Every member to unpack with its relative path, after the checks of the module docstring."""
    infos = opened.infolist()
    if len(infos) > max_members:
        raise UnsafeArchive(
            f"{archive} has {len(infos)} members, more than the {max_members} a class's "
            f"download can have; unpack it yourself and pass the folder"
        )
    seen: dict[PurePosixPath, str] = {}
    members = []
    for info in infos:
        relative = _relative_path(archive, info.filename)
        if relative is None:
            continue
        if stat.S_ISLNK(info.external_attr >> 16):
            raise UnsafeArchive(
                f"{archive}: {info.filename} is a symbolic link; submissions must be plain files"
            )
        if info.flag_bits & 0x1:
            raise UnsafeArchive(
                f"{archive}: {info.filename} is encrypted; download the submissions without a "
                f"password"
            )
        if relative in seen and not info.is_dir():
            raise UnsafeArchive(
                f"{archive} holds {info.filename} twice ({seen[relative]}); a download has each "
                f"file once"
            )
        seen[relative] = info.filename
        members.append((info, relative))
    return members


def _relative_path(archive: Path, name: str) -> PurePosixPath | None:
    """The member's path inside the destination, None for what is skipped; raises for a path
    that would leave the destination."""
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or (path.parts and path.parts[0].endswith(":")):
        raise UnsafeArchive(
            f"{archive}: the member {name!r} has an absolute path; a zip that writes outside "
            f"its folder is refused"
        )
    if ".." in path.parts:
        raise UnsafeArchive(
            f"{archive}: the member {name!r} climbs out of its folder with '..'; a zip that "
            f"writes outside its folder is refused"
        )
    parts = [part for part in path.parts if part not in ("", ".")]
    if not parts or parts[0] in SKIPPED_FOLDERS:
        return None
    return PurePosixPath(*parts)
