"""Run a tiny ``fit`` in a live ipykernel and print what the kernel sent, as JSON.

``tests/config/test_colab_install.py`` runs this script with the Python of its Colab-pins
environment (ipykernel 6.17.1, ipywidgets 7.7.1, jupyter-client 7.x), so the training loop's
``tqdm.auto`` bar takes the notebook path there: one ipywidgets ``FloatProgress`` inside an
``HBox``, opened as comms and displayed as a widget view. Usage: ``python colab_kernel_fit.py
KERNELS_FOLDER``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

KERNEL_NAME = "colab-pins"
FIT_CELL = """
import json
import ipywidgets, tqdm, tqdm.auto, tqdm.notebook, torch
from torch import nn
from coursekit.train import fit

torch.manual_seed(0)
batches = [(torch.randn(8, 3), torch.randn(8, 1)) for _ in range(4)]
model = nn.Linear(3, 1)
history = fit(
    model,
    batches,
    loss_fn=lambda model, batch: nn.functional.mse_loss(model(batch[0]), batch[1]),
    optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
    epochs=2,
    device="cpu",
)
print(json.dumps({
    "ipywidgets": ipywidgets.__version__,
    "tqdm": tqdm.__version__,
    "notebook_bar": issubclass(tqdm.auto.tqdm, tqdm.notebook.tqdm_notebook),
    "epochs_trained": len(history.train_loss),
}))
"""


def run_cell(kernels: Path, code: str, timeout: float = 120) -> dict[str, Any]:
    """Execute ``code`` in a fresh kernel; return the reply status and the cell's iopub messages."""
    spec_folder = kernels / KERNEL_NAME
    spec_folder.mkdir(parents=True, exist_ok=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Colab pins",
        "language": "python",
    }
    (spec_folder / "kernel.json").write_text(json.dumps(spec))
    manager = KernelManager(
        kernel_name=KERNEL_NAME, kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)])
    )
    manager.start_kernel()
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=timeout)
        msg_id = client.execute(code)
        messages = []
        while True:
            message = client.get_iopub_msg(timeout=timeout)
            if message["parent_header"].get("msg_id") != msg_id:
                continue
            messages.append({"msg_type": message["msg_type"], "content": message["content"]})
            if message["msg_type"] == "status" and message["content"]["execution_state"] == "idle":
                break
        reply = client.get_shell_msg(timeout=timeout)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = client.get_shell_msg(timeout=timeout)
        return {"status": reply["content"]["status"], "messages": messages}
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


if __name__ == "__main__":
    print(json.dumps(run_cell(Path(sys.argv[1]), FIT_CELL), default=str))
