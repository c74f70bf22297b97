"""The download logic against a local HTTP server: cache, checks, resume, failures."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from data_fixtures import FileServer, resource_for

from coursekit.data.downloads import (
    DATA_ENV,
    MIRROR_ENV,
    DownloadError,
    cache_dir,
    fetch,
    source_url,
)

PAYLOAD = bytes(range(256)) * 600  # 153,600 bytes: several chunks of 64 KiB
NAME = "blob.bin"


@pytest.fixture
def resource(file_server: FileServer):
    """A resource for PAYLOAD, served by the local server."""
    file_server.files[NAME] = PAYLOAD
    return resource_for(PAYLOAD, NAME)


def files_in(folder: Path) -> list[str]:
    """The names of the files in ``folder`` (empty when it does not exist)."""
    return sorted(path.name for path in folder.iterdir()) if folder.exists() else []


def test_download_succeeds_and_second_call_uses_the_cache(file_server, cache, resource):
    path = fetch(resource, mirror=file_server.url("ok"), progress=False)
    assert path == cache / NAME
    assert path.read_bytes() == PAYLOAD
    assert files_in(cache) == [NAME]
    again = fetch(resource, mirror=file_server.url("ok"), progress=False)
    assert again == path
    assert len(file_server.requests) == 1  # the second call made no request


def test_mirror_from_the_environment_is_used(file_server, cache, resource, monkeypatch):
    monkeypatch.setenv(MIRROR_ENV, file_server.url("ok"))
    assert fetch(resource, progress=False).read_bytes() == PAYLOAD
    assert file_server.requests == [(f"/ok/{NAME}", None)]


def test_corrupted_cache_is_downloaded_again(file_server, cache, resource):
    cache.mkdir(parents=True)
    (cache / NAME).write_bytes(b"\0" * len(PAYLOAD))
    assert fetch(resource, mirror=file_server.url("ok"), progress=False).read_bytes() == PAYLOAD
    assert len(file_server.requests) == 1


def test_corrupted_download_is_deleted(file_server, cache, resource):
    with pytest.raises(DownloadError, match="SHA-256") as failure:
        fetch(resource, mirror=file_server.url("corrupt"), progress=False)
    assert "deleted" in str(failure.value)
    assert files_in(cache) == []


def test_wrong_checksum_is_rejected_and_nothing_is_kept(file_server, cache):
    file_server.files[NAME] = PAYLOAD
    expected_other = resource_for(PAYLOAD[::-1], NAME)  # same size, other bytes
    with pytest.raises(DownloadError, match=expected_other.sha256):
        fetch(expected_other, mirror=file_server.url("ok"), progress=False)
    assert files_in(cache) == []


def test_wrong_size_is_rejected(file_server, cache):
    file_server.files[NAME] = PAYLOAD + b"tail"
    with pytest.raises(DownloadError, match=f"instead of {len(PAYLOAD)}"):
        fetch(resource_for(PAYLOAD, NAME), mirror=file_server.url("ok"), progress=False)
    assert files_in(cache) == []


def test_truncated_download_keeps_only_a_resumable_prefix(file_server, cache, resource):
    with pytest.raises(DownloadError, match="closed after") as failure:
        fetch(resource, mirror=file_server.url("truncate"), attempts=2, progress=False)
    assert str(cache / f"{NAME}.part") in str(failure.value)
    assert files_in(cache) == [f"{NAME}.part"]  # never the final name
    kept = (cache / f"{NAME}.part").read_bytes()
    assert 0 < len(kept) < len(PAYLOAD)
    assert kept == PAYLOAD[: len(kept)]
    ranges = file_server.requests_for(NAME)
    assert ranges[0] is None and ranges[1] == f"bytes={len(PAYLOAD) // 2}-"


def test_interrupted_transfer_resumes_within_one_call(file_server, cache, resource):
    path = fetch(resource, mirror=file_server.url("flaky"), progress=False)
    assert path.read_bytes() == PAYLOAD
    assert file_server.requests_for(NAME) == [None, f"bytes={len(PAYLOAD) // 2}-"]


def test_partial_file_is_resumed_with_a_range_request(file_server, cache, resource):
    cache.mkdir(parents=True)
    (cache / f"{NAME}.part").write_bytes(PAYLOAD[:1000])
    assert fetch(resource, mirror=file_server.url("ok"), progress=False).read_bytes() == PAYLOAD
    assert file_server.requests_for(NAME) == ["bytes=1000-"]
    assert files_in(cache) == [NAME]


def test_server_without_range_support_restarts_cleanly(file_server, cache, resource):
    cache.mkdir(parents=True)
    (cache / f"{NAME}.part").write_bytes(PAYLOAD[:1000])
    assert (
        fetch(resource, mirror=file_server.url("norange"), progress=False).read_bytes() == PAYLOAD
    )
    assert file_server.requests_for(NAME) == ["bytes=1000-"]  # asked, ignored, whole file sent


def test_resumed_file_that_fails_its_check_is_downloaded_from_scratch(file_server, cache, resource):
    cache.mkdir(parents=True)
    (cache / f"{NAME}.part").write_bytes(b"x" * 1000)  # not a prefix of the real file
    assert fetch(resource, mirror=file_server.url("ok"), progress=False).read_bytes() == PAYLOAD
    assert file_server.requests_for(NAME) == ["bytes=1000-", None]


def test_partial_file_longer_than_the_file_restarts(file_server, cache):
    file_server.files[NAME] = PAYLOAD
    unknown_size = resource_for(PAYLOAD, NAME, with_size=False)
    cache.mkdir(parents=True)
    (cache / f"{NAME}.part").write_bytes(PAYLOAD + b"junk")
    path = fetch(unknown_size, mirror=file_server.url("ok"), progress=False)
    assert path.read_bytes() == PAYLOAD
    assert file_server.requests_for(NAME) == [f"bytes={len(PAYLOAD) + 4}-", None]  # 416, then all


def test_no_network_gives_a_helpful_error(cache, resource):
    with socket.socket() as probe:  # a port that nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    mirror = f"http://127.0.0.1:{port}/ok"
    with pytest.raises(DownloadError) as failure:
        fetch(resource, mirror=mirror, timeout=5, progress=False)
    message = str(failure.value)
    assert f"{mirror}/{NAME}" in message  # the URL
    assert "could not connect" in message  # what failed
    assert "connect to the internet" in message  # what to do ...
    assert str(cache / NAME) in message  # ... or where to put the file
    assert resource.sha256 in message
    assert files_in(cache) == []


def test_http_error_names_the_status(file_server, cache):
    missing = resource_for(PAYLOAD, "missing.bin")
    with pytest.raises(DownloadError, match="404"):
        fetch(missing, mirror=file_server.url("ok"), progress=False)
    assert files_in(cache) == []


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "here"))
    assert cache_dir() == tmp_path / "here"
    monkeypatch.delenv(DATA_ENV)
    assert cache_dir() == Path.home() / ".cache" / "coursekit"


def test_mirror_must_be_a_url(monkeypatch):
    monkeypatch.delenv(MIRROR_ENV, raising=False)
    resource = resource_for(PAYLOAD, NAME)
    assert source_url(resource) == resource.url
    assert source_url(resource, "http://m.example/files/") == f"http://m.example/files/{NAME}"
    with pytest.raises(ValueError, match="mirror"):
        source_url(resource, "m.example")
