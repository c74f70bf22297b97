"""Executing a notebook top to bottom in a fresh kernel of its own.

Kernels started side by side (two chapters at once, the test suite's workers) must not race for
a TCP port: ``jupyter_client`` picks a free port, releases it and lets the kernel bind it, and
another process can take the port in between, after which the kernel cannot start and the run
waits for an answer that never comes. On POSIX systems the kernel therefore talks over IPC
sockets in a private temporary folder, which no other run can claim; elsewhere over TCP.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

import nbformat


def execute_notebook(
    notebook: nbformat.NotebookNode,
    folder: Path,
    *,
    timeout: int,
    kernel_name: str = "python3",
    env: Mapping[str, str] | None = None,
) -> None:
    """Execute ``notebook`` in place, with ``folder`` as the kernel's working directory and
    ``env`` (default: this process's) as its environment.

    Raises ``nbclient``'s ``CellExecutionError`` when a cell raises.
    """
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient

    sockets = Path(tempfile.mkdtemp(prefix="coursekit-kernel-"))
    try:
        manager = KernelManager(kernel_name=kernel_name, **_private_transport(sockets))
        client = NotebookClient(
            notebook,
            km=manager,
            kernel_name=kernel_name,
            timeout=timeout,
            resources={"metadata": {"path": str(folder)}},
        )
        client.execute(**({} if env is None else {"env": dict(env)}))
    finally:
        shutil.rmtree(sockets, ignore_errors=True)


def _private_transport(sockets: Path) -> dict[str, str]:
    """Keyword arguments of ``KernelManager`` that put its sockets in the folder ``sockets``."""
    if os.name != "posix":
        return {}
    return {"transport": "ipc", "connection_file": str(sockets / "kernel.json")}
