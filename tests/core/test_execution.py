"""coursekit.execution: a notebook runs in its own kernel, in its folder, with its environment,
over sockets no parallel run can take."""

from __future__ import annotations

import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from nbclient.exceptions import CellExecutionError

from coursekit.execution import execute_notebook

PROBE = """\
import os
from ipykernel.connect import get_connection_info
print(os.getcwd())
print(os.environ.get("COURSEKIT_PROBE", "unset"))
print(get_connection_info(unpack=True)["transport"])
"""


def probe_notebook() -> nbformat.NotebookNode:
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(PROBE)])


def printed(notebook: nbformat.NotebookNode) -> list[str]:
    return "".join(output["text"] for output in notebook.cells[0].outputs).splitlines()


def leftover_socket_folders() -> set[str]:
    return {path.name for path in Path(tempfile.gettempdir()).glob("coursekit-kernel-*")}


def test_the_kernel_runs_in_the_folder_with_the_environment_over_private_sockets(tmp_path):
    before = leftover_socket_folders()
    notebook = probe_notebook()
    environment = {**os.environ, "COURSEKIT_PROBE": "seen"}
    execute_notebook(notebook, tmp_path, timeout=60, env=environment)
    folder, value, transport = printed(notebook)
    assert Path(folder).resolve() == tmp_path.resolve()
    assert value == "seen"
    assert transport == ("ipc" if os.name == "posix" else "tcp")
    assert leftover_socket_folders() == before


def test_kernels_started_side_by_side_all_answer(tmp_path):
    notebooks = [probe_notebook() for _ in range(6)]
    with ThreadPoolExecutor(6) as pool:
        list(
            pool.map(lambda notebook: execute_notebook(notebook, tmp_path, timeout=120), notebooks)
        )
    assert all(printed(notebook)[0] for notebook in notebooks)


def test_a_cell_that_raises_is_reported_and_the_sockets_are_removed(tmp_path):
    before = leftover_socket_folders()
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 / 0")])
    with pytest.raises(CellExecutionError, match="ZeroDivisionError"):
        execute_notebook(notebook, tmp_path, timeout=60)
    assert leftover_socket_folders() == before
