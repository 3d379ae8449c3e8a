#!/usr/bin/env python3
"""Foundation benchmark: prints figures, asserts nothing.

For each arch, in a fresh temporary cache (so nothing is already built
and the user's cache is left alone):
  cold kernel build        extract the pinned source + build stock
  incremental variant      switch the shared tree to a patched variant
  QEMU boot-to-result      boot + the small lstat storm, three times
Targets (issue 2): incremental variant <= 120 s; boot + small storm <= 30 s.

    python3 tests/benchmark.py [--arch x86_64] [--keep]
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

INCREMENTAL = {"x86_64": "dcache-repcmpsb", "arm64": "statx-putuser"}


def timed(fn, *args, **kw):
    start = time.monotonic()
    result = fn(*args, **kw)
    return result, time.monotonic() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arch", action="append", choices=("x86_64", "arm64"))
    ap.add_argument("--keep", action="store_true", help="keep the temporary cache")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="uaccess-bench-")
    os.environ["UACCESS_CACHE"] = tmp
    # Imported after UACCESS_CACHE is set: the cache root is read per call,
    # but keep the order obvious.
    from buildroot import assemble
    from configs import runs
    from kernels import build as kbuild
    from workloads import script

    job = script.load(script.default_script("lstat-storm"))
    print(f"cache: {tmp} (fresh)  cores: {os.cpu_count()}")
    try:
        for arch in args.arch or ["x86_64", "arm64"]:
            stock, cold = timed(kbuild.build_kernel, arch, "stock")
            _, incr = timed(kbuild.build_kernel, arch, INCREMENTAL[arch])
            image, img_s = timed(assemble.build_image, arch, job)
            boots = []
            for _ in range(3):
                rec, _ = timed(runs.run_point, stock, image, job, "qemu", "", 300, True)
                boots.append(rec["boot_to_result_seconds"])
            print(f"{arch}: cold kernel build {cold:.0f} s (incl. source extraction); "
                  f"incremental {INCREMENTAL[arch]} {incr:.1f} s (target <= 120 s); "
                  f"image {img_s:.1f} s; QEMU boot-to-result median "
                  f"{statistics.median(boots):.2f} s of {len(boots)} "
                  f"(target <= 30 s), {rec['result']['ops']} ops")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
