"""Unpacking a zip of submissions without trusting it: every unsafe zip is refused by name."""

from __future__ import annotations

import stat
import zipfile
from pathlib import Path

import pytest

from coursekit.grading.instructor.archive import UnsafeArchive, extract_zip


def make_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return path


def test_a_download_unpacks_with_its_folders(tmp_path: Path) -> None:
    archive = make_zip(
        tmp_path / "class.zip",
        {"a/x.ipynb": b"{}", "b.ipynb": b"[]", "__MACOSX/._b.ipynb": b"junk"},
    )
    destination = tmp_path / "out"
    destination.mkdir()
    assert extract_zip(archive, destination) == 4
    assert sorted(p.relative_to(destination).as_posix() for p in destination.rglob("*")) == [
        "a",
        "a/x.ipynb",
        "b.ipynb",
    ]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("../escaped.ipynb", "climbs out of its folder with '..'"),
        ("a/../../escaped.ipynb", "climbs out of its folder with '..'"),
        ("..\\escaped.ipynb", "climbs out of its folder with '..'"),
        ("/tmp/escaped.ipynb", "has an absolute path"),
        ("C:/escaped.ipynb", "has an absolute path"),
    ],
)
def test_path_traversal_is_refused_before_anything_is_written(
    tmp_path: Path, name: str, message: str
) -> None:
    archive = make_zip(tmp_path / "class.zip", {"first.ipynb": b"{}", name: b"{}"})
    destination = tmp_path / "deep" / "out"
    destination.mkdir(parents=True)
    with pytest.raises(UnsafeArchive, match=message):
        extract_zip(archive, destination)
    assert not list(destination.iterdir())
    assert not list(tmp_path.rglob("escaped.ipynb"))


def test_a_symbolic_link_is_refused(tmp_path: Path) -> None:
    link = zipfile.ZipInfo("passwords.ipynb")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    with zipfile.ZipFile(tmp_path / "class.zip", "w") as archive:
        archive.writestr(link, "/etc/passwd")
    (tmp_path / "out").mkdir()
    with pytest.raises(UnsafeArchive, match="passwords.ipynb is a symbolic link"):
        extract_zip(tmp_path / "class.zip", tmp_path / "out")


def test_a_zip_bomb_stops_at_the_size_bound(tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "bomb.zip", {"bomb.ipynb": bytes(20 * 2**20)})
    assert archive.stat().st_size < 100_000  # compresses 200-fold: its own header would pass
    (tmp_path / "out").mkdir()
    with pytest.raises(UnsafeArchive, match="unpacks to more than 8 MiB .stopped at bomb.ipynb"):
        extract_zip(archive, tmp_path / "out", max_total_bytes=8 * 2**20)
    assert (tmp_path / "out" / "bomb.ipynb").stat().st_size <= 8 * 2**20


def test_too_many_members_and_repeated_names_are_refused(tmp_path: Path) -> None:
    many = make_zip(tmp_path / "many.zip", {f"{n}.ipynb": b"{}" for n in range(12)})
    (tmp_path / "out").mkdir()
    with pytest.raises(UnsafeArchive, match="has 12 members, more than the 10"):
        extract_zip(many, tmp_path / "out", max_members=10)
    with zipfile.ZipFile(tmp_path / "twice.zip", "w") as archive:
        archive.writestr("a.ipynb", "{}")
        with pytest.warns(UserWarning, match="Duplicate name"):
            archive.writestr("a.ipynb", "[]")
    with pytest.raises(UnsafeArchive, match="holds a.ipynb twice"):
        extract_zip(tmp_path / "twice.zip", tmp_path / "out")


def test_a_file_that_is_not_a_zip_says_so(tmp_path: Path) -> None:
    (tmp_path / "class.zip").write_text("not a zip")
    (tmp_path / "out").mkdir()
    with pytest.raises(UnsafeArchive, match="is not a readable zip file"):
        extract_zip(tmp_path / "class.zip", tmp_path / "out")
