"""What several command groups share: the folders they read and write by
default, the store's file name, and the flags of a gem5 build and a
worker pool."""

from pathlib import Path

from configs import backends, sweep
from lab import inputs
from lab.cli import COUNT

REPO = Path(__file__).resolve().parents[1]
DEFAULT_RESULTS = REPO / "results"
DEFAULT_SWEEP = sweep.SWEEP_DIR / "default.toml"
DEFAULT_RECORDS = REPO / "docs" / "data"
STORE_NAME = "results.sqlite"
# More workers than a sweep can have points would never run.
WORKERS = inputs.cli(inputs.count_up_to(sweep.MAX_POINTS, "the most points a sweep may hold"),
                     "--workers")


# The help of the flags several commands share.
RESULTS_HELP = "the results folder: the store (results.sqlite) and reports (default: results)"
SWEEP_FILE_HELP = "a sweep file (TOML; default: configs/sweeps/default.toml)"
GEM5_HELP = backends.kind("gem5").GEM5_HELP
ARCH_HELP = "the guest architecture"


def gem5_args(sp) -> None:
    """--gem5 (the build) and --cache (a cache preset): the gem5 backend's
    (Gem5Backend.build_flags)."""
    backends.kind("gem5").build_flags(sp)


def pool_args(sp) -> None:
    """--workers, --jobs, --results and --gem5: what every command that
    runs a sweep's points (sweep, reproduce, predict) takes alike."""
    sp.add_argument("--workers", type=WORKERS, default=0,
                    help="parallel runs (default: cores)")
    sp.add_argument("--jobs", type=COUNT, default=0, help="make -j for kernels (default: cores)")
    sp.add_argument("--results", default=str(DEFAULT_RESULTS), help=RESULTS_HELP)
    sp.add_argument("--gem5", help=GEM5_HELP)
