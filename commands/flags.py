"""What several command groups share: the folders they read and write by
default, the store's file name, and the flags of a gem5 build and a
worker pool."""

from pathlib import Path

from configs import sweep
from configs.gem5 import spec as gem5_spec
from lab import inputs

REPO = Path(__file__).resolve().parents[1]
DEFAULT_RESULTS = REPO / "results"
DEFAULT_SWEEP = sweep.SWEEP_DIR / "default.toml"
DEFAULT_RECORDS = REPO / "docs" / "data"
STORE_NAME = "results.sqlite"
# More workers than a sweep can have points would never run.
WORKERS = inputs.cli(inputs.count_up_to(sweep.MAX_POINTS, "the most points a sweep may hold"),
                     "--workers")


def gem5_args(sp) -> None:
    """--gem5 (the build) and --cache (a cache preset, read when the
    command line is: a malformed file is a choice, so that its loader
    says what is wrong with it)."""
    sp.add_argument("--gem5", help="gem5 source tree (default: $GEM5_HOME)")
    caches = sorted(gem5_spec.preset_files("cache"))
    sp.add_argument("--cache", default="classic-l1l2", choices=caches, metavar="CACHE",
                    help="gem5 cache preset (configs/gem5-presets/cache): "
                         + ", ".join(caches))
