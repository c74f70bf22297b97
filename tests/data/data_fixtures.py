"""Helpers of the data tests: a local HTTP file server and tiny files in real formats."""

from __future__ import annotations

import hashlib
import io
import tarfile
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from coursekit.data.downloads import Resource


class FileServer(ThreadingHTTPServer):
    """Serves ``files`` under ``/<mode>/<name>`` and records every request it gets.

    Modes: ``ok`` (honours ``Range``), ``norange`` (ignores it), ``corrupt`` (flips every byte),
    ``truncate`` (announces the full length, sends half, closes), ``flaky`` (truncates the first
    request for a file, then behaves like ``ok``).
    """

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), RequestHandler)
        self.files: dict[str, bytes] = {}
        self.requests: list[tuple[str, str | None]] = []

    def url(self, mode: str) -> str:
        """The mirror base URL for one mode."""
        return f"http://127.0.0.1:{self.server_address[1]}/{mode}"

    def requests_for(self, name: str) -> list[str | None]:
        """The ``Range`` header (or ``None``) of each request made for file ``name``."""
        return [header for path, header in self.requests if path.endswith(f"/{name}")]


class RequestHandler(BaseHTTPRequestHandler):
    """GET only, HTTP/1.0 (one request per connection)."""

    timeout = 5
    server: FileServer

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - signature of the base
        """Stay quiet."""

    def do_GET(self) -> None:
        mode, _, name = self.path.lstrip("/").partition("/")
        self.server.requests.append((self.path, self.headers.get("Range")))
        body = self.server.files.get(name)
        if body is None:
            self.send_error(404)
            return
        if mode == "corrupt":
            body = bytes(byte ^ 0xFF for byte in body)
        if mode == "flaky":
            mode = "truncate" if len(self.server.requests_for(name)) == 1 else "ok"
        start = 0
        requested = self.headers.get("Range")
        if requested and mode != "norange":
            start = int(requested.removeprefix("bytes=").rstrip("-"))
            if start >= len(body):
                self.send_error(416)
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        else:
            self.send_response(200)
        payload = body[start:]
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload[: len(payload) // 2] if mode == "truncate" else payload)


def resource_for(payload: bytes, filename: str, *, with_size: bool = True) -> Resource:
    """A resource whose checksum (and size) are those of ``payload``."""
    return Resource(
        url=f"https://example.invalid/{filename}",
        filename=filename,
        sha256=hashlib.sha256(payload).hexdigest(),
        size=len(payload) if with_size else None,
    )


def tar_gz(members: dict[str, str]) -> bytes:
    """A .tar.gz archive holding ``members`` (path -> text)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, text in members.items():
            data = text.encode("utf-8")
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def zip_bytes(members: dict[str, str]) -> bytes:
    """A .zip archive holding ``members`` (path -> text)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return buffer.getvalue()
