"""``python -m coursekit.pretrain bert`` (or ``coursekit pretrain bert``): pretrain a small BERT
and save it with its metadata (Chapter 6, BERT).

Every field of :class:`coursekit.pretrain.bert_pretraining.PretrainingSettings` is an option
(``--hidden-size 128``, ``--whole-word-masking``, ...). ``--checkpoint`` is ``fit``'s
resumable checkpoint, written after every epoch; ``--resume`` continues from it. ``--out``
receives the compact float16 checkpoint and its ``.json`` metadata (:mod:`.checkpoint`).
Example, the command that made the checkpoint shipped with coursekit::

    OMP_NUM_THREADS=2 python -m coursekit.pretrain bert --out coursekit/checkpoints/bert-docs.pt

(``coursekit/checkpoints/*.json`` records the exact command of every shipped checkpoint.)
``python -m coursekit.pretrain transfer-pilot`` picks the fine-tuning learning rates of
Chapter 6's pretraining experiment on validation reviews (:mod:`.transfer`) and writes
``coursekit/checkpoints/bert-reviews-pilot.json``.

The same command runs unchanged on several processes, ``torchrun --nproc_per_node 4 -m
coursekit.pretrain bert ...`` (one per GPU, or gloo on CPUs: :mod:`.distributed`); rank 0
writes the checkpoint, the metadata and the log.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import torch
import torch.distributed as dist

from coursekit.pretrain.bert_pretraining import PretrainingSettings, pretrain_bert
from coursekit.pretrain.checkpoint import PRETRAINED_BERT, TRANSFER_PILOT, save_pretrained
from coursekit.pretrain.distributed import rank_and_world, start_process_group
from coursekit.pretrain.transfer import learning_rate_pilot
from coursekit.runtime import seed_generators_as_given

OPTION_TYPES: dict[object, type] = {"int": int, "float": float, "int | None": int, "str": str}


def add_pretrain_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``bert`` subcommand and its options on ``parser``."""
    models = parser.add_subparsers(dest="model", required=True)
    bert = models.add_parser(
        "bert", help="pretrain BERT (MLM + NSP on docs_corpus, or MLM on reviews)"
    )
    for setting in dataclasses.fields(PretrainingSettings):
        flag = "--" + setting.name.replace("_", "-")
        if setting.type == "bool":
            bert.add_argument(flag, action=argparse.BooleanOptionalAction, default=setting.default)
        else:
            bert.add_argument(flag, type=OPTION_TYPES[setting.type], default=setting.default)
    bert.add_argument("--out", type=Path, default=PRETRAINED_BERT, help="the .pt to write")
    bert.add_argument("--checkpoint", type=Path, help="fit's resumable checkpoint (per epoch)")
    bert.add_argument("--resume", action="store_true", help="continue from --checkpoint")
    bert.add_argument("--device", help="cpu, cuda, ... (default: coursekit.get_device())")
    bert.add_argument("--threads", type=int, help="torch CPU threads (default: torch's choice)")
    bert.add_argument("--no-progress", action="store_true", help="no progress bar")
    pilot = models.add_parser(
        "transfer-pilot", help="pick each arm's fine-tuning learning rate on validation reviews"
    )
    pilot.add_argument("--out", type=Path, default=TRANSFER_PILOT, help="the .json to write")


def run_pretraining(args: argparse.Namespace, command: str) -> int:
    """Pretrain as ``args`` say, save the checkpoint and metadata, print the log."""
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    names = [setting.name for setting in dataclasses.fields(PretrainingSettings)]
    settings = PretrainingSettings(**{name: getattr(args, name) for name in names})
    start = time.perf_counter()
    device = start_process_group() or args.device
    try:
        run = pretrain_bert(
            settings, args.checkpoint, args.resume, device=device, progress=not args.no_progress
        )
        rank, world = rank_and_world()
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
    if rank != 0:
        return 0
    extra = {
        "wall_seconds": round(time.perf_counter() - start, 1),
        "threads": torch.get_num_threads(),
        "processes": world,
    }
    metadata = save_pretrained(run, args.out, command, extra)
    print(f"wrote {args.out} ({metadata['size_bytes']} bytes, SHA-256 {metadata['sha256']})")
    for row in metadata["log"]:
        print(", ".join(f"{key} {value:.4g}" for key, value in row.items()))
    for name in ("baselines", "held_out"):
        print(name, ", ".join(f"{key} {value:.4g}" for key, value in metadata[name].items()))
    return 0


def run_transfer_pilot(args: argparse.Namespace, command: str) -> int:
    """Run :func:`learning_rate_pilot` and write its table, with the command, to ``--out``."""
    seed_generators_as_given(0)  # a recorded command: $COURSEKIT_SEED is ignored
    start = time.perf_counter()
    pilot = learning_rate_pilot()
    record = {
        "command": command, **pilot, "torch": torch.__version__,
        "threads": torch.get_num_threads(), "wall_seconds": round(time.perf_counter() - start, 1),
    }  # fmt: skip
    args.out.write_text(json.dumps(record, indent=2) + "\n", "utf-8")
    for experiment, arms in pilot["validation_accuracy"].items():
        for arm, row in arms.items():
            rates = ", ".join(
                f"{rate} {sum(draws) / len(draws):.3f}" for rate, draws in row.items()
            )
            print(f"{experiment}, {arm}: {rates}; chosen {pilot['chosen'][experiment][arm]:g}")
    return 0


def command_line(program: list[str], argv: Sequence[str] | None) -> str:
    """The command as typed: ``program`` and the arguments (``sys.argv`` when ``argv`` is None)."""
    return shlex.join([*program, *(sys.argv[1:] if argv is None else argv)])


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m coursekit.pretrain``."""
    parser = argparse.ArgumentParser(
        prog="python -m coursekit.pretrain", description="Pretrain a model of the course."
    )
    add_pretrain_arguments(parser)
    args = parser.parse_args(argv)
    command = command_line(["python", "-m", "coursekit.pretrain"], argv)
    run = run_transfer_pilot if args.model == "transfer-pilot" else run_pretraining
    return run(args, command)
