"""Archive extraction: complete, reused, replaced, and closed to path traversal."""

from __future__ import annotations

import io
import os
import tarfile
import zipfile
from pathlib import Path

import pytest
from data_fixtures import tar_gz, zip_bytes

from coursekit.data.archives import extract_archive, extraction_dir

MEMBERS = {"corpus/a.txt": "alpha", "corpus/sub/b.txt": "beta"}


def write(path: Path, payload: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(payload)
    return path


@pytest.mark.parametrize(("filename", "build"), [("set.tar.gz", tar_gz), ("set.zip", zip_bytes)])
def test_extracts_every_member(tmp_path, filename, build):
    archive = write(tmp_path / filename, build(MEMBERS))
    folder = extract_archive(archive)
    assert folder == tmp_path / "set"
    for name, text in MEMBERS.items():
        assert (folder / name).read_text() == text
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging left


def test_second_extraction_is_reused_and_a_new_archive_replaces_it(tmp_path):
    archive = write(tmp_path / "set.tar.gz", tar_gz(MEMBERS))
    folder = extract_archive(archive)
    (folder / "corpus" / "a.txt").write_text("edited")
    assert (extract_archive(archive) / "corpus" / "a.txt").read_text() == "edited"  # reused
    write(archive, tar_gz({"corpus/a.txt": "new"}))
    os.utime(archive, ns=(1, 1))  # a different copy of the archive
    assert (extract_archive(archive) / "corpus" / "a.txt").read_text() == "new"
    assert not (folder / "corpus" / "sub").exists()  # the old folder is gone, not merged


@pytest.mark.parametrize("name", ["../evil.txt", "corpus/../../evil.txt", "/tmp/evil.txt"])
@pytest.mark.parametrize("build", [tar_gz, zip_bytes])
def test_path_traversal_is_refused(tmp_path, name, build):
    suffix = ".tar.gz" if build is tar_gz else ".zip"
    archive = write(tmp_path / "inner" / f"set{suffix}", build({"ok.txt": "fine", name: "evil"}))
    with pytest.raises(ValueError, match="unsafe archive member"):
        extract_archive(archive)
    assert not (tmp_path / "evil.txt").exists()
    assert not extraction_dir(archive).exists()
    assert sorted(p.name for p in archive.parent.iterdir()) == [archive.name]


def test_links_in_a_tar_are_refused(tmp_path):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as bundle:
        link = tarfile.TarInfo("corpus/passwd")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        bundle.addfile(link)
    archive = write(tmp_path / "set.tar.gz", buffer.getvalue())
    with pytest.raises(ValueError, match="link or a special file"):
        extract_archive(archive)
    assert not extraction_dir(archive).exists()


def test_unknown_archive_type_is_refused(tmp_path):
    with pytest.raises(ValueError, match="not an archive"):
        extraction_dir(tmp_path / "data.rar")


def test_zip_folders_are_created(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as bundle:
        bundle.writestr("corpus/empty/", "")
        bundle.writestr("corpus/x.txt", "x")
    folder = extract_archive(write(tmp_path / "set.zip", buffer.getvalue()))
    assert (folder / "corpus" / "empty").is_dir()
    assert (folder / "corpus" / "x.txt").read_text() == "x"
