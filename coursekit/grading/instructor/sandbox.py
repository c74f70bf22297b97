"""The kernel that runs a submission under ``coursekit grade``: OS limits, a guard, then IPython.

``python -m coursekit.grading.instructor.sandbox --folder DIR --memory-mb M --cpu-seconds S
--max-output C --assignment ch01 --delegation-log FILE -f CONNECTION`` starts an ordinary IPython
kernel after these steps:

1. **Limits** (``resource.setrlimit``): address space ``M`` MiB (a memory bomb raises
   ``MemoryError`` instead of swapping the machine), CPU time ``S`` seconds (the kernel is killed
   by ``SIGXCPU`` past it), files of at most 256 MiB, and no core dumps.
2. **Preloading** torch, numpy and matplotlib, so that their shared libraries are loaded before
   the guard forbids loading any more.
3. **An output cap** of ``C`` characters in all (:func:`limit_output`).
4. **The delegation recorder** of the assignment's questions
   (:class:`~coursekit.grading.monitor.DelegationRecorder`), installed as the trace function (and
   as the profile function when a question forbids a builtin) and writing to ``FILE``, which the
   guard then keeps out of the notebook's reach.
5. **The guard**, an audit hook (PEP 578) that refuses, with ``PermissionError``: starting
   processes (``fork``, ``subprocess``, ``os.system``, ``exec``, ``posix_spawn``), signalling
   other processes, opening network connections, calling C through ``ctypes``, writing, deleting
   or renaming anything outside ``DIR``, reading anywhere but ``DIR``, the Python installation
   and the system's shared folders, and changing the trace or profile function (which would
   switch the delegation recorder off). So the instructor's gradebook, hidden tests and the other
   students' submissions are out of reach of ordinary code.

An audit hook is a tripwire, not a security boundary: native code can get around it. Grades do
not depend on it, because the grader computes every expected value and every comparison in its
own process and reads nothing from the kernel but plain data (see
:mod:`coursekit.grading.instructor.exchange`). See the book's Exercises page.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import sysconfig
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from coursekit.grading.monitor import DelegationRecorder

MAX_FILE_BYTES = 256 * 2**20
BLOCKED_MESSAGE = "coursekit grade does not allow {action} while grading"

#: Audit events refused outright, with the words used in the ``PermissionError``.
FORBIDDEN_EVENTS = {
    "os.fork": "starting processes",
    "os.forkpty": "starting processes",
    "os.system": "starting processes",
    "os.exec": "starting processes",
    "os.posix_spawn": "starting processes",
    "os.spawn": "starting processes",
    "os.startfile": "starting processes",
    "subprocess.Popen": "starting processes",
    "pty.spawn": "starting processes",
    "os.kill": "signalling processes",
    "os.killpg": "signalling processes",
    "socket.connect": "network connections",
    "socket.bind": "network connections",
    "socket.sendto": "network connections",
    "socket.getaddrinfo": "network connections",
    "ctypes.dlopen": "calling C through ctypes",
    "ctypes.dlsym": "calling C through ctypes",
    "ctypes.call_function": "calling C through ctypes",
    "ctypes.cdata": "calling C through ctypes",
    "ctypes.addressof": "calling C through ctypes",
    "ctypes.string_at": "calling C through ctypes",
    "ctypes.wstring_at": "calling C through ctypes",
    "sys.addaudithook": "changing the audit hooks",
    "sys.settrace": "changing the trace function",
    "sys.setprofile": "changing the profile function",
}
#: Events that change the file system: the positions of the arguments written and read.
PATH_EVENTS: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    "os.remove": ((0,), ()),
    "os.rmdir": ((0,), ()),
    "os.mkdir": ((0,), ()),
    "os.rename": ((0, 1), ()),
    "os.link": ((1,), (0,)),
    "os.symlink": ((1,), ()),
    "os.truncate": ((0,), ()),
    "os.chmod": ((0,), ()),
    "os.chown": ((0,), ()),
    "os.utime": ((0,), ()),
    "os.chdir": ((0,), ()),
    "shutil.rmtree": ((0,), ()),
    "shutil.move": ((0, 1), ()),
    "shutil.copyfile": ((1,), (0,)),
    "shutil.copymode": ((1,), (0,)),
    "shutil.copystat": ((1,), (0,)),
    "shutil.copytree": ((1,), (0,)),
    "os.listdir": ((), (0,)),
    "os.scandir": ((), (0,)),
    "glob.glob": ((), (0,)),
    "glob.glob/2": ((), (0,)),
}
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
SYSTEM_FOLDERS = ("/usr", "/lib", "/lib64", "/etc", "/proc", "/sys", "/dev", "/opt", "/System")


def apply_limits(memory_mb: int, cpu_seconds: int) -> None:
    """Cap address space, CPU time and file size of this process; turn off core dumps.

    See the book's Exercises page.
    """
    memory = memory_mb * 2**20
    try:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    except (ValueError, OSError):
        if sys.platform.startswith("linux"):
            raise  # elsewhere (macOS) the address-space limit may not be supported
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))
    resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_FILE_BYTES, MAX_FILE_BYTES))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class OutputLimitExceeded(Exception):
    """Raised once, by the ``print`` that crosses the output budget; later output is dropped."""


def limit_output(max_characters: int) -> None:
    """Cap what the kernel's ``sys.stdout`` and ``sys.stderr`` send to the grader, in total.

    Without a cap, ``while True: print(...)`` fills the kernel's output buffer faster than it is
    sent and exhausts its memory. The print that crosses ``max_characters`` raises
    :class:`OutputLimitExceeded`, which stops a printing loop; everything printed after it is
    dropped without error, so a debugging ``print`` inside an answer costs no points.

    See the book's Exercises page.
    """
    from ipykernel.iostream import OutStream

    original_write = OutStream.write
    written = 0

    def write(stream: OutStream, text: str) -> int | None:
        nonlocal written
        if written > max_characters:
            return len(text)
        written += len(text)
        if written > max_characters:
            raise OutputLimitExceeded(
                f"more than {max_characters} characters printed; later output is dropped"
            )
        return original_write(stream, text)

    OutStream.write = write  # type: ignore[method-assign, assignment]


def readable_roots(folder: Path) -> tuple[str, ...]:
    """Where a submission may read: its folder, the Python installation and system folders.

    See the book's Exercises page.
    """
    import coursekit

    places = {
        str(folder),
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        sysconfig.get_paths()["purelib"],
        sysconfig.get_paths()["platlib"],
        str(Path(coursekit.__file__).parent),
        *SYSTEM_FOLDERS,
    }
    places.update(entry for entry in sys.path if entry and Path(entry).is_dir())
    if os.environ.get("COURSEKIT_DATA"):
        places.add(os.environ["COURSEKIT_DATA"])
    return tuple(sorted({os.path.realpath(place) for place in places}))


def make_guard(folder: Path, readable: Sequence[str]) -> Callable[[str, tuple[Any, ...]], None]:
    """The audit hook: raise ``PermissionError`` on the events the module docstring lists.

    The functions it relies on are bound here, so that replacing ``os.path.realpath`` later from
    the notebook does not change what the guard sees.

    See the book's Exercises page.
    """
    realpath, fspath = os.path.realpath, os.fspath
    writable = (os.path.realpath(folder),)
    readable = tuple(readable)

    def inside(path: Any, roots: tuple[str, ...]) -> bool:
        if isinstance(path, int):  # an already open file descriptor
            return True
        try:
            resolved = realpath(fspath(path))
        except (TypeError, ValueError, OSError):
            return False
        return any(
            resolved == root or resolved.startswith(root.rstrip("/") + "/") for root in roots
        )

    def refuse(action: str) -> None:
        raise PermissionError(BLOCKED_MESSAGE.format(action=action))

    def guard(event: str, args: tuple[Any, ...]) -> None:
        if event in FORBIDDEN_EVENTS:
            refuse(FORBIDDEN_EVENTS[event])
        elif event == "open":
            path, mode, flags = args
            writes = any(letter in mode for letter in "wax+") if isinstance(mode, str) else False
            writes = writes or bool((flags or 0) & WRITE_FLAGS)
            if writes and not inside(path, writable):
                refuse("writing outside the submission's folder")
            if path is not None and not inside(path, readable):
                refuse("reading outside the submission's folder")
        elif event in PATH_EVENTS:
            written, read = PATH_EVENTS[event]
            if not all(inside(_argument(args, index), writable) for index in written):
                refuse("changing files outside the submission's folder")
            if not all(inside(_argument(args, index), readable) for index in read):
                refuse("reading outside the submission's folder")

    return guard


def _argument(args: tuple[Any, ...], index: int) -> Any:
    """Argument ``index`` of an audit event; a missing or None path means the current folder."""
    value = args[index] if index < len(args) else None
    return "." if value is None else value


def main(argv: Sequence[str] | None = None) -> None:
    """Apply the limits, preload the libraries, start the IPython kernel, guard it, run it.

    See the book's Exercises page.
    """
    parser = argparse.ArgumentParser(prog="python -m coursekit.grading.instructor.sandbox")
    parser.add_argument("--folder", type=Path, required=True)
    parser.add_argument("--memory-mb", type=int, required=True)
    parser.add_argument("--cpu-seconds", type=int, required=True)
    parser.add_argument("--max-output", type=int, required=True)
    parser.add_argument("--assignment", required=True)
    parser.add_argument("--delegation-log", type=Path, required=True)
    args, kernel_arguments = parser.parse_known_args(argv)
    folder = args.folder.resolve()
    os.chdir(folder)
    apply_limits(args.memory_mb, args.cpu_seconds)

    import matplotlib  # noqa: F401 - loaded before the guard closes ctypes
    import numpy  # noqa: F401
    import torch  # noqa: F401
    from ipykernel.kernelapp import IPKernelApp

    kernel = IPKernelApp.instance()
    kernel.initialize(kernel_arguments)  # sockets and profile are set up before the guard
    limit_output(args.max_output)
    recorder = delegation_recorder(args.assignment, args.delegation_log)
    sys.settrace(recorder.trace)
    if recorder.index.builtins:  # a question forbids a builtin: watch calls into C too
        sys.setprofile(recorder.profile)
    sys.addaudithook(make_guard(folder, readable_roots(folder)))
    kernel.start()


def delegation_recorder(assignment: str, log: Path) -> DelegationRecorder:
    """The recorder of ``assignment``'s questions, appending to ``log`` (see the docstring)."""
    from coursekit.grading.monitor import DelegationRecorder
    from coursekit.grading.questions import all_questions

    questions = [question for question in all_questions() if question.id.startswith(assignment)]
    descriptor = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    return DelegationRecorder(questions, descriptor)


if __name__ == "__main__":
    main()
