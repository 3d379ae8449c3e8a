"""ccache as gem5's set-up uses it: a limit that holds what the study
builds, and the hits and misses of each scons run (its build log)."""

import re
import shutil
import subprocess


# ccache's limit that holds both ISAs' objects and the kernels' (ccache's
# default is 5 GB; measured use in docs/reference/gem5.md).
CCACHE_SIZE_GB = 20


def ccache_counts() -> dict:
    """ccache's running totals of hits and misses ({} without ccache)."""
    proc = subprocess.run(["ccache", "--print-stats"], capture_output=True, text=True) \
        if shutil.which("ccache") else None
    if proc is None or proc.returncode != 0:
        return {}
    stats = dict(line.split("\t", 1) for line in proc.stdout.splitlines() if "\t" in line)
    hits = sum(int(stats.get(k, 0)) for k in ("direct_cache_hit", "preprocessed_cache_hit"))
    return {"hits": hits, "misses": int(stats.get("cache_miss", 0))}


def raise_ccache_limit(say) -> None:
    """ccache's max_size at least CCACHE_SIZE_GB, or a cold ARM build evicts
    X86's objects (and a kernel build both)."""
    proc = subprocess.run(["ccache", "--get-config", "max_size"], capture_output=True,
                          text=True)
    text = proc.stdout.strip()
    m = re.fullmatch(r"([\d.]+)\s*([KMGT]i?)?B?", text) if proc.returncode == 0 else None
    if m:
        scale = {"K": 1e-6, "M": 1e-3, "G": 1, "T": 1e3}[(m.group(2) or "G")[0]]
        if float(m.group(1)) * scale >= CCACHE_SIZE_GB:
            return
    subprocess.run(["ccache", "--max-size", f"{CCACHE_SIZE_GB}G"], capture_output=True)
    say(f"ccache's size limit raised from {text or 'its default'} to {CCACHE_SIZE_GB} GB "
        f"(both ISAs and the kernels)")
