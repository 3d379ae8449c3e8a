#!/usr/bin/env python3
"""uaccess-lab: the one entry point. Build, run, study.

    ./run.py list
    ./run.py build-kernel --arch x86_64 --variant stock
    ./run.py build-image  --arch arm64 --workload lstat-storm [--script S.toml]
    ./run.py run --backend qemu --arch x86_64 --variant stock --workload lstat-storm
    ./run.py study        # the default study: both arches x every variant

Data flows one way: kernels/ -> buildroot/ -> configs/ (runs) -> analysis/.
Bad input and missing tools end with one line and exit code 2.
"""

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent
sys.path.insert(0, str(REPO))

from analysis import table  # noqa: E402
from buildroot import assemble  # noqa: E402
from configs import runs  # noqa: E402
from configs.qemu import backend as qemu  # noqa: E402
from kernels import build as kbuild  # noqa: E402
from kernels import config as kconfig  # noqa: E402
from kernels import variants  # noqa: E402
from lab import cache  # noqa: E402
from lab.errors import UserError  # noqa: E402
from workloads import script  # noqa: E402

DEFAULT_RESULTS = REPO / "results"


def _job(args) -> script.Job:
    path = args.script or script.default_script(args.workload)
    job = script.load(path)
    if args.workload and job.workload != args.workload:
        raise UserError(f"{path} is a {job.workload} script, not {args.workload}")
    return job


def cmd_list(args) -> int:
    print("arches:    " + ", ".join(kconfig.ARCHES))
    print("variants:")
    for name in variants.names():
        v = variants.load(name)
        subjects = "; ".join(p.subject for p in v.patches) or "no patches"
        print(f"  {name:18} [{' '.join(v.arches)}] {subjects}")
    print("workloads: " + ", ".join(script.workload_names()))
    print("backends:  " + ", ".join(runs.BACKENDS))
    print("profiles:  " + ", ".join(qemu.profile_names()))
    print(f"cache:     {cache.cache_root()}")
    return 0


def cmd_build_kernel(args) -> int:
    k = kbuild.build_kernel(args.arch, args.variant, args.jobs)
    print(k.path)
    return 0


def cmd_build_image(args) -> int:
    img = assemble.build_image(args.arch, _job(args))
    print(img.path)
    return 0


def cmd_run(args) -> int:
    job = _job(args)
    kbuild.plan(args.arch, args.variant)  # validate everything before building
    runs.resolve(args.arch, args.backend, args.profile)
    kernel = kbuild.build_kernel(args.arch, args.variant, args.jobs)
    image = assemble.build_image(args.arch, job)
    record = runs.run_point(kernel, image, job, args.backend, args.profile,
                            args.timeout, args.force)
    if args.json:
        print(json.dumps(record, indent=2, sort_keys=True))
    else:
        print(table.plain([record]), end="")
        print(f"record: {runs.run_dir(record['key']) / 'record.json'}")
    return 0


def cmd_study(args) -> int:
    """Every arch x every variant that applies, on one workload script."""
    job = script.load(args.script or script.default_script("lstat-storm"))
    arches = args.arch or list(kconfig.ARCHES)
    names = args.variant or variants.names()
    for arch in arches:  # unknown names fail before anything is built
        runs.resolve(arch, "qemu")
    for name in names:
        variants.load(name)
    records, failures = [], []
    for arch in arches:
        image = assemble.build_image(arch, job)
        for name in names:
            if not variants.load(name).applies_to(arch):
                print(f"[study] {arch}/{name}: does not apply to {arch}, skipped",
                      file=sys.stderr)
                continue
            try:
                kernel = kbuild.build_kernel(arch, name, args.jobs)
                record = runs.run_point(kernel, image, job, "qemu", "",
                                        args.timeout, args.force)
            except runs.RunFailed as failure:
                failures.append(str(failure))
                print(f"[study] FAILED {failure}", file=sys.stderr)
                continue
            print(f"[study] {arch}/{name}: {record['result']['ops']} ops, "
                  f"checksum {record['result']['checksum']}", file=sys.stderr)
            records.append(record)
    out = Path(args.results)
    cache.write_atomic(out / "records.jsonl",
                       "".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
    cache.write_atomic(out / "table.md", table.markdown(records))
    print(table.plain(records), end="")
    print(f"results: {out / 'table.md'}")
    bad = table.mismatches(records)
    for row in bad:
        print(f"checksum differs from stock: {row[0]}/{row[1]}", file=sys.stderr)
    for failure in failures:
        print(f"failed: {failure}", file=sys.stderr)
    return 1 if bad or failures else 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="run.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)

    sub.add_parser("list", help="arches, variants, workloads, profiles")

    def kernel_args(sp):
        sp.add_argument("--arch", required=True)
        sp.add_argument("--variant", default="stock")
        sp.add_argument("--jobs", type=int, default=0, help="make -j (default: cores)")

    def workload_args(sp):
        sp.add_argument("--workload", default="lstat-storm")
        sp.add_argument("--script", help="a workload script (TOML); default: "
                        "workloads/scripts/<workload>.toml")

    sp = sub.add_parser("build-kernel", help="build (or find cached) one kernel")
    kernel_args(sp)
    sp = sub.add_parser("build-image", help="assemble one root filesystem")
    sp.add_argument("--arch", required=True)
    workload_args(sp)
    sp = sub.add_parser("run", help="boot one kernel + workload and print its result")
    kernel_args(sp)
    workload_args(sp)
    sp.add_argument("--backend", default="qemu")
    sp.add_argument("--profile", default="", help="CPU profile (default per arch)")
    sp.add_argument("--timeout", type=float, default=300)
    sp.add_argument("--force", action="store_true", help="rerun even if finished")
    sp.add_argument("--json", action="store_true", help="print the whole record")
    sp = sub.add_parser("study", help="the default study: arches x variants on QEMU")
    sp.add_argument("--arch", action="append", help="repeatable; default: all")
    sp.add_argument("--variant", action="append", help="repeatable; default: all")
    sp.add_argument("--script", help="lstat-storm script (default: the small storm)")
    sp.add_argument("--jobs", type=int, default=0)
    sp.add_argument("--timeout", type=float, default=300)
    sp.add_argument("--force", action="store_true")
    sp.add_argument("--results", default=str(DEFAULT_RESULTS / "default"))
    return p


COMMANDS = {"list": cmd_list, "build-kernel": cmd_build_kernel,
            "build-image": cmd_build_image, "run": cmd_run, "study": cmd_study}


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except UserError as e:
        print(f"run.py: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("run.py: interrupted; finished results are kept", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
