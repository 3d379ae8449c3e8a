#!/usr/bin/env python3
"""uaccess-lab: the one entry point. Build, run, study.

    ./run.py list
    ./run.py doctor [--gem5 DIR]                  # prerequisites, with fixes
    ./run.py gem5 setup [--source URL_OR_PATH] [--isa x86,arm]
        [--variant opt,fast] [--dry-run]
    ./run.py build-kernel --arch x86_64 --variant stock
    ./run.py build-image --arch arm64 --workload lstat-storm [--script S.toml]
    ./run.py buildroot setup [--source TARBALL|URL|TREE]
    ./run.py run --backend qemu --arch x86_64 --variant stock
        --workload lstat-storm
    ./run.py run --backend gem5 --arch x86_64 --smap-model lfence
        --workload statx-loop
    ./run.py crosscheck --arch x86_64 --smap-model lfence
        --workload statx-loop
    ./run.py calibrate [--mechanism smap|rep|all] [--write-preset P.toml]
    ./run.py sweep [configs/sweeps/default.toml] [--dry-run]
        [--executor slurm]
    ./run.py report [SWEEP_FILE]
    ./run.py scorecard [--records docs/data]      # seeds' hardware vs gem5
    ./run.py export SWEEP_FILE... [--to docs/data]  # publish the store's rows
    ./run.py compare [--records docs/data]        # yours beside the published
    ./run.py reproduce [--only SWEEP...] [--dry-run]  # the published study
    ./run.py predict VARIANT|PATCH [--workloads W...] [--counts-only]
    ./run.py simpoint ROI.bb [--max-k 10]         # SimPoint 3.2's method

Data flows one way: kernels/ -> buildroot/ -> configs/ (runs) -> analysis/;
this file is the glue that hands each stage's output to the next.
Bad input and missing tools end with one line and exit code 2.
"""

import argparse
import sys
from pathlib import Path

# The examples above fit 78 columns, what --help has at COLUMNS=80;
# narrower, WholeWordsRaw breaks them at spaces.

REPO = Path(__file__).resolve().parent
sys.path.insert(0, str(REPO))

# Python packages the study needs (make deps installs them): on a clone
# without one, every command says so in one line instead of a traceback.
# Any module that is not the repository's own is one of them (a list of
# names would miss the next one added, as it missed rich); these are the
# ones whose package is named otherwise than the module.
PACKAGE_OF = {"sklearn": "scikit-learn"}

def _missing_package(e: ModuleNotFoundError) -> bool:
    """Says so in one line where `e` is a package from outside the repository."""
    top = (e.name or "").split(".")[0]
    if not top or (REPO / top).exists() or (REPO / f"{top}.py").exists():
        return False
    print(f"run.py: the Python package {PACKAGE_OF.get(top, top)} is missing: run 'make deps' (it "
          f"installs the study's packages)", file=sys.stderr)
    return True


try:
    from commands import analysis as analysis_commands  # noqa: E402
    from commands import calibrate, gem5, inventory, predict, reproduce, run  # noqa: E402
    from commands import image as image_commands  # noqa: E402
    from commands import kernel as kernel_commands  # noqa: E402
    from commands import simpoint, slurm, sweep  # noqa: E402
    from lab import cache, inputs  # noqa: E402
    from lab.cli import OneLineParser, WholeWordsRaw  # noqa: E402
    from lab.errors import UserError  # noqa: E402
except ModuleNotFoundError as e:
    if _missing_package(e):
        sys.exit(2)
    raise

# The command groups (commands/), in the order --help lists their
# commands; each adds its subparsers with their handlers (lab/cli.py).
GROUPS = (inventory, kernel_commands, image_commands, run, calibrate, sweep, reproduce, predict,
          gem5, slurm, simpoint, analysis_commands)


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="run.py", description=__doc__, formatter_class=WholeWordsRaw)
    # COMMAND, not every name in braces: the list below names each (but the
    # internal slurm-task) with what it does.
    sub = p.add_subparsers(dest="command", required=True, parser_class=OneLineParser,
                           metavar="COMMAND")
    for group in GROUPS:
        group.register(sub)
    return p


def main(argv=None) -> int:
    try:
        args = parser().parse_args(argv)
        if args.uses_cache:  # it builds or runs into the cache; a dry run only reads it
            cache.check_root(write=not getattr(args, "dry_run", False))
        return args.handler(args)
    except UserError as e:
        print(f"run.py: {inputs.one_line(e)}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("run.py: interrupted; finished results are kept", file=sys.stderr)
        return 130
    except ModuleNotFoundError as e:  # a package a command imports when it runs
        if _missing_package(e):
            return 2
        raise


if __name__ == "__main__":
    sys.exit(main())
