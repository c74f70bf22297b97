"""The kernel's guard (an audit hook), tested by feeding it audit events directly."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from coursekit.grading.instructor.sandbox import make_guard, readable_roots


@pytest.fixture
def guard(tmp_path: Path):
    work = tmp_path / "work"
    work.mkdir()
    return make_guard(work, readable_roots(work)), work, tmp_path


@pytest.mark.parametrize(
    ("event", "args"),
    [
        ("os.fork", ()),
        ("subprocess.Popen", ("ls", ["ls"], None, None)),
        ("os.system", (b"ls",)),
        ("os.kill", (1, 9)),
        ("socket.connect", (None, ("example.com", 80))),
        ("ctypes.dlopen", ("libc.so.6",)),
        ("ctypes.call_function", (0, ())),
        ("sys.addaudithook", ()),
    ],
)
def test_processes_network_and_ctypes_are_refused(guard, event: str, args: tuple) -> None:
    check, _, _ = guard
    with pytest.raises(PermissionError, match="does not allow"):
        check(event, args)


def test_files_are_written_only_inside_the_submission_folder(guard) -> None:
    check, work, outside = guard
    check("open", (str(work / "notes.txt"), "w", os.O_WRONLY))
    check("open", (str(work / "sub" / "x.pt"), "wb", 0))
    check("os.remove", (str(work / "notes.txt"), None))
    for path in (outside / "grades.csv", work / ".." / "grades.csv", "/etc/passwd"):
        with pytest.raises(PermissionError, match="writing outside"):
            check("open", (str(path), "w", os.O_WRONLY))
    with pytest.raises(PermissionError, match="changing files outside"):
        check("os.rename", (str(work / "a"), str(outside / "b"), None, None))
    with pytest.raises(PermissionError, match="changing files outside"):
        check("shutil.copyfile", (str(work / "a"), str(outside / "b")))


def test_symlinks_out_of_the_folder_do_not_get_around_the_guard(guard) -> None:
    check, work, outside = guard
    (outside / "hidden").mkdir()
    (work / "link").symlink_to(outside / "hidden")
    with pytest.raises(PermissionError, match="reading outside"):
        check("open", (str(work / "link" / "ch01.py"), "r", os.O_RDONLY))
    with pytest.raises(PermissionError, match="reading outside"):
        check("os.listdir", (str(work / "link"),))


def test_the_python_installation_stays_readable(guard) -> None:
    check, work, outside = guard
    check("open", (os.__file__, "r", os.O_RDONLY))
    check("open", (str(work / "data.txt"), "r", os.O_RDONLY))
    check("open", (3, "r", os.O_RDONLY))  # an open file descriptor
    check("os.listdir", (str(work),))
    with pytest.raises(PermissionError, match="reading outside"):
        check("open", (str(outside / "other-student.ipynb"), "r", os.O_RDONLY))


def test_events_the_guard_does_not_know_pass(guard) -> None:
    check, _, _ = guard
    check("import", ("json", None, [], [], []))
    check("compile", (b"x = 1", "<cell>"))
