"""Fixtures for the data tests: a private cache and a local HTTP file server."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from data_fixtures import FileServer, resource_for

from coursekit.data import registry
from coursekit.data.downloads import DATA_ENV, MIRROR_ENV, Resource


@pytest.fixture
def file_server() -> Iterator[FileServer]:
    """A threaded HTTP server on an ephemeral port of 127.0.0.1, stopped after the test."""
    server = FileServer()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    watchdog = threading.Timer(60, server.shutdown)  # stops by itself if a test hangs
    watchdog.daemon = True
    watchdog.start()
    yield server
    watchdog.cancel()
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache folder, used through ``$COURSEKIT_DATA``; no mirror from the environment."""
    folder = tmp_path / "cache"
    monkeypatch.setenv(DATA_ENV, str(folder))
    monkeypatch.delenv(MIRROR_ENV, raising=False)
    return folder


@pytest.fixture
def serve_dataset(
    monkeypatch: pytest.MonkeyPatch, file_server: FileServer, cache: Path
) -> Callable[[str, bytes], Resource]:
    """Make ``load(name)`` download ``payload`` from the local server instead of the real file.

    The registered resource keeps its file name but gets the checksum of ``payload``; the
    mirror variable points at the server. Everything else is the production code path.
    """

    def install(name: str, payload: bytes) -> Resource:
        entry = registry.DATASETS[name]
        assert entry.info.resource is not None
        resource = resource_for(payload, entry.info.resource.filename)
        info = dataclasses.replace(entry.info, resource=resource)
        monkeypatch.setitem(registry.DATASETS, name, dataclasses.replace(entry, info=info))
        file_server.files[resource.filename] = payload
        monkeypatch.setenv(MIRROR_ENV, file_server.url("ok"))
        return resource

    return install
