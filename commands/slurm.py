"""run.py's slurm-task command (hidden from --help): what a Slurm job of
a sweep submitted with --executor slurm runs, one point of it."""

import argparse
from pathlib import Path

from configs.slurm import slurm_executor
from lab.cli import command


def register(sub) -> None:
    sp = command(sub, "slurm-task", cmd_slurm_task, help=argparse.SUPPRESS)
    sp.add_argument("tasks")
    sp.add_argument("index", type=int)


def cmd_slurm_task(args) -> int:
    """Inside a Slurm job: run one point of a submitted sweep."""
    return slurm_executor.run_task(Path(args.tasks), args.index)
