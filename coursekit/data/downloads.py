"""Checked downloads into a local cache (Chapter 1, Text as sequences).

A real dataset is one file on a server, described by a :class:`Resource`: its URL, the name it
gets in the cache, its size in bytes when known, and its SHA-256. :func:`fetch` guarantees one
rule: a file in the cache is a file whose SHA-256 is the expected one.

- Bytes stream into ``<file>.part``; a transfer cut short keeps its ``.part`` and the next attempt
  asks only for the rest (an HTTP ``Range: bytes=<offset>-`` request). A server that ignores the
  range, or a resumed file that then fails its checks, makes the download start again from byte 0.
- A finished ``.part`` is checked (size, then SHA-256) and only then renamed into place with
  ``os.replace``, which is atomic: no reader ever sees half a file. A file that fails is deleted.
- A cached file is checked again before each use; a corrupted one is downloaded again.
- Without a network the error says what failed, the URL, and the two ways out: connect once, or
  put the file at the exact cache path yourself.

The cache is ``$COURSEKIT_DATA`` (default ``~/.cache/coursekit``). ``$COURSEKIT_DATA_MIRROR``, or
the ``mirror`` argument, replaces every URL by ``<mirror>/<filename>``; the checks stay the same.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from tqdm.auto import tqdm

DATA_ENV = "COURSEKIT_DATA"
MIRROR_ENV = "COURSEKIT_DATA_MIRROR"
CHUNK_BYTES = 1 << 16
USER_AGENT = "coursekit-data (https://github.com/sequence-models-course/sequence-models)"


@dataclass(frozen=True)
class Resource:
    """One file to download: its URL, its name in the cache, its SHA-256 and size (Chapter 1)."""

    url: str
    filename: str
    sha256: str
    size: int | None = None


class DownloadError(RuntimeError):
    """A download failed. The message names the file, the URL, the cause and the way out."""


class TransferInterrupted(Exception):
    """The connection ended before the whole file arrived; the ``.part`` file can be resumed."""


def cache_dir() -> Path:
    """The cache folder: ``$COURSEKIT_DATA``, or ``~/.cache/coursekit`` when it is unset."""
    configured = os.environ.get(DATA_ENV, "").strip()
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "coursekit"


def source_url(resource: Resource, mirror: str | None = None) -> str:
    """The URL to fetch: ``<mirror>/<filename>`` if a mirror is set (argument or environment)."""
    base = mirror if mirror is not None else os.environ.get(MIRROR_ENV, "").strip()
    if not base:
        return resource.url
    if not base.startswith(("http://", "https://", "file://")):
        raise ValueError(f"a data mirror must be an http://, https:// or file:// URL, got {base!r}")
    return f"{base.rstrip('/')}/{resource.filename}"


def sha256_of(path: Path) -> str:
    """The SHA-256 of a file, read in chunks so that large archives need little memory."""
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        while chunk := file.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def problem_with(path: Path, resource: Resource) -> str | None:
    """Why ``path`` is not ``resource`` (wrong size, wrong SHA-256), or ``None`` when it is."""
    size = path.stat().st_size
    if resource.size is not None and size != resource.size:
        return f"it has {size} bytes instead of {resource.size}"
    actual = sha256_of(path)
    if actual != resource.sha256:
        return f"its SHA-256 is {actual} instead of {resource.sha256}"
    return None


def remedy(resource: Resource, target: Path) -> str:
    """The way out of a failed download, with the exact path to put the file at."""
    return (
        "\nTo fix this, either connect to the internet and run the same command again, or "
        f"download {resource.url} yourself and save it as {target} "
        f"(its SHA-256 must be {resource.sha256})."
    )


def fetch(
    resource: Resource,
    *,
    directory: Path | None = None,
    mirror: str | None = None,
    timeout: float = 30.0,
    attempts: int = 3,
    progress: bool = True,
) -> Path:
    """Return the path of ``resource`` in the cache, downloading and checking it if needed.

    The rule (Chapter 1, Text as sequences): a file is used only if ``SHA-256(file) ==
    resource.sha256`` (and its size matches when known); anything else is deleted.

    ``timeout`` bounds the connection and every read, in seconds; ``attempts`` is how many times
    a transfer cut short is resumed before giving up. Raises :class:`DownloadError`.
    """
    directory = cache_dir() if directory is None else directory
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / resource.filename
    if target.exists():
        if problem_with(target, resource) is None:
            return target
        target.unlink()  # a corrupted cache is downloaded again, never used
    url = source_url(resource, mirror)
    part = target.with_name(target.name + ".part")
    resumed = transfer(url, part, resource, target, timeout, attempts, progress)
    problem = problem_with(part, resource)
    if problem is not None and resumed:
        part.unlink()  # the kept bytes were not a prefix of the file: start again from byte 0
        transfer(url, part, resource, target, timeout, attempts, progress)
        problem = problem_with(part, resource)
    if problem is not None:
        part.unlink()
        raise DownloadError(
            f"{url} did not give the expected {resource.filename}: {problem}. The bad file was "
            "deleted. The server may have changed the file, or the transfer was corrupted; try "
            "again, or use another copy." + remedy(resource, target)
        )
    os.replace(part, target)
    return target


def transfer(
    url: str,
    part: Path,
    resource: Resource,
    target: Path,
    timeout: float,
    attempts: int,
    progress: bool,
) -> bool:
    """Fill ``part`` with the bytes at ``url``, resuming up to ``attempts`` times if cut short.

    Returns whether the final request kept bytes from before (a resumed transfer).
    """
    for attempt in range(1, attempts + 1):
        try:
            return transfer_once(url, part, resource, target, timeout=timeout, progress=progress)
        except TransferInterrupted as interruption:
            if attempt == attempts:
                kept = part.stat().st_size if part.exists() else 0
                raise DownloadError(
                    f"downloading {resource.filename} from {url} failed {attempts} times: "
                    f"{interruption}. The {kept} bytes received so far are kept in {part}; the "
                    "next try resumes from there." + remedy(resource, target)
                ) from interruption
    raise ValueError(f"attempts must be at least 1, got {attempts}")


def transfer_once(
    url: str, part: Path, resource: Resource, target: Path, *, timeout: float, progress: bool
) -> bool:
    """One HTTP request: append the missing bytes to ``part`` (``Range``) or rewrite it whole.

    Returns whether the bytes already in ``part`` were kept.
    """
    offset = part.stat().st_size if part.exists() else 0
    if resource.size is not None and offset >= resource.size:
        if offset == resource.size:
            return True  # complete already; the caller checks it
        part.unlink()
        offset = 0
    headers = {"User-Agent": USER_AGENT}
    if offset:
        headers["Range"] = f"bytes={offset}-"
    request = urllib.request.Request(url, headers=headers)
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as error:
        if error.code == 416 and offset:  # "range not satisfiable": the kept bytes are useless
            part.unlink()
            return transfer_once(url, part, resource, target, timeout=timeout, progress=progress)
        raise DownloadError(
            f"the server answered {error.code} {error.reason} for {url}" + remedy(resource, target)
        ) from error
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise DownloadError(
            f"could not connect to {url} to download {resource.filename} ({reason}). "
            "Are you offline?" + remedy(resource, target)
        ) from error
    with response:
        if offset and not resumes_at(response, offset):
            offset = 0  # the server ignored the range and sends the whole file
        announced = response.headers.get("Content-Length")
        expected = int(announced) if announced is not None else None
        total = resource.size or (offset + expected if expected is not None else None)
        received = 0
        with (
            open(part, "ab" if offset else "wb") as out,
            tqdm(
                total=total,
                initial=offset,
                unit="B",
                unit_scale=True,
                desc=resource.filename,
                disable=not progress,
            ) as bar,
        ):
            try:
                while total is None or offset + received <= total:
                    chunk = response.read(CHUNK_BYTES)
                    if not chunk:
                        break
                    out.write(chunk)
                    received += len(chunk)
                    bar.update(len(chunk))
            except (OSError, http.client.HTTPException) as error:
                raise TransferInterrupted(f"the connection failed ({error})") from error
            finally:
                out.flush()
                os.fsync(out.fileno())
    if expected is not None and received < expected:
        raise TransferInterrupted(f"the connection closed after {received} of {expected} bytes")
    return offset > 0


def resumes_at(response: http.client.HTTPResponse, offset: int) -> bool:
    """True when the server honoured ``Range``: status 206, ``Content-Range: bytes <offset>-``."""
    content_range = response.headers.get("Content-Range", "")
    return response.status == 206 and content_range.startswith(f"bytes {offset}-")
