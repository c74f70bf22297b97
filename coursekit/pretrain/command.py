"""``python -m coursekit.pretrain bert`` (or ``coursekit pretrain bert``): pretrain a small BERT
and save it with its metadata (Chapter 6, BERT).

Every field of :class:`coursekit.pretrain.bert_pretraining.PretrainingSettings` is an option
(``--hidden-size 128``, ``--whole-word-masking``, ...). ``--checkpoint`` is ``fit``'s
resumable checkpoint, written after every epoch; ``--resume`` continues from it. ``--out``
receives the compact float16 checkpoint and its ``.json`` metadata (:mod:`.checkpoint`).
Example, the command that made the checkpoint shipped with coursekit::

    OMP_NUM_THREADS=2 python -m coursekit.pretrain bert --out coursekit/checkpoints/bert-docs.pt

The same command runs unchanged on several processes, ``torchrun --nproc_per_node 4 -m
coursekit.pretrain bert ...`` (one per GPU, or gloo on CPUs: :mod:`.distributed`); rank 0
writes the checkpoint, the metadata and the log.
"""

from __future__ import annotations

import argparse
import dataclasses
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import torch
import torch.distributed as dist

from coursekit.pretrain.bert_pretraining import PretrainingSettings, pretrain_bert
from coursekit.pretrain.checkpoint import PRETRAINED_BERT, save_pretrained
from coursekit.pretrain.distributed import rank_and_world, start_process_group

OPTION_TYPES: dict[object, type] = {"int": int, "float": float, "int | None": int}


def add_pretrain_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``bert`` subcommand and its options on ``parser``."""
    models = parser.add_subparsers(dest="model", required=True)
    bert = models.add_parser("bert", help="pretrain BERT with MLM + NSP on docs_corpus")
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
    return run_pretraining(args, command_line(["python", "-m", "coursekit.pretrain"], argv))
