"""The arm64 user copy with LDP/STP (usercopy-ldp) against stock's
LDTR/STTR and against the PAN window alone (usercopy-pan-window), at the
sizes of the arm64 usercopy threads (005_cda112d08e81cce1,
006_a7fd6bff499fa938), by usercopy-loop: pread() copies a tmpfs file's
pages to user memory, pwrite() copies from it, one __arch_copy_*_user
call per 4 KiB page.

QEMU: what each kernel executed, exactly, per call (the plugin's counts,
the calls' own: test_variant_claims.py says how). gem5 with ARM, where it
is found: the copy's cycles on the threads' core (arm64-neoverse-v2).
"""

import pytest

from buildroot import assemble
from configs import smap_models
from configs.gem5 import cache_presets, locate
from kernels import build as kbuild
from lab import cpu_presets
from lab.errors import UserError
from workloads import script
from test_variant_claims import JOBS, USERCOPY_SIZES, own, profile
import gem5_runs

PAGE = 4096
COPY = {"to": "__arch_copy_to_user", "from": "__arch_copy_from_user"}


def _calls(size: int) -> int:
    """__arch_copy_*_user calls per system call: one per page."""
    return -(-size // PAGE)


def _pairs(rec: dict, symbol: str) -> tuple:
    """(LDP, STP) the symbol ran in the ROI (the plugin's per-symbol pairs)."""
    p = rec["counts"]["pairs"].get(symbol, {})
    return p.get("ldp", 0), p.get("stp", 0)


def _insns(rec: dict, symbol: str) -> int:
    return rec["counts"]["symbols"].get(symbol, 0)


@pytest.mark.parametrize("size", USERCOPY_SIZES)
@pytest.mark.parametrize("way", ("to", "from"))
def test_usercopy_ldp_moves_the_user_side_to_ldp_stp(way, size):
    stock = profile("arm64", "stock", f"usercopy-{way}-{size}")
    ldp = profile("arm64", "usercopy-ldp", f"usercopy-{way}-{size}")
    ops = stock["result"]["ops"]
    assert ldp["result"]["ops"] == ops and ldp["result"]["checksum"] == stock["result"]["checksum"]
    calls = _calls(size) * ops
    # The user side of stock's copy is 8 bytes an LDTR (from) or STTR (to);
    # pwrite() also reads one byte of every page first
    # (fault_in_iov_iter_readable), an LDTRB, in both kernels.
    user, other = ("sttr", "ldtr") if way == "to" else ("ldtr", "sttr")
    fault_in = calls if way == "from" else 0
    assert own(stock, "arm64", user) == size // 8 * ops + fault_in
    assert own(ldp, "arm64", user) == fault_in
    assert own(stock, "arm64", other) == own(ldp, "arm64", other) == 0
    # In the copy routine: the kernel side is a pair per 16 bytes in both,
    # the user side one in usercopy-ldp only.
    pairs = size // 16 * ops
    kernel_side = (pairs, 0) if way == "to" else (0, pairs)
    assert _pairs(stock, COPY[way]) == kernel_side
    assert _pairs(ldp, COPY[way]) == (pairs, pairs)
    # One PAN window per copy call; none in stock.
    for write in ("pan_set_0", "pan_set_1"):
        assert own(ldp, "arm64", write) == calls
        assert own(stock, "arm64", write) == 0
    assert own(ldp, "arm64", "pan_msr_reg") == 0
    # Instructions: stock spends two LDTR/STTR and an ADD on each 16 bytes
    # of the user side, usercopy-ldp one LDP/STP; its loop is 10
    # instructions a 64 bytes against 18. Per copy call of N bytes (a
    # multiple of 64, at least 128) that is N/8 fewer, less the window's
    # two MSRs, exactly.
    chunk = min(size, PAGE)
    assert _insns(stock, COPY[way]) - _insns(ldp, COPY[way]) == (chunk // 8 - 2) * calls


@pytest.mark.parametrize("way", ("to", "from"))
def test_usercopy_pan_window_alone_adds_two_msrs_per_copy(way):
    size = 4096
    stock = profile("arm64", "stock", f"usercopy-{way}-{size}")
    window = profile("arm64", "usercopy-pan-window", f"usercopy-{way}-{size}")
    ops = stock["result"]["ops"]
    calls = _calls(size) * ops
    for write in ("pan_set_0", "pan_set_1"):
        assert own(window, "arm64", write) == calls
    for insn in ("ldtr", "sttr"):
        assert own(window, "arm64", insn) == own(stock, "arm64", insn)
    assert _pairs(window, COPY[way]) == _pairs(stock, COPY[way])
    assert _insns(window, COPY[way]) - _insns(stock, COPY[way]) == 2 * calls
    assert window["result"]["checksum"] == stock["result"]["checksum"]


def test_usercopy_jobs_are_the_threads_sizes():
    # 128 B is the smallest size both threads report, 64 KiB the largest
    # the study scores; 4 KiB is the headline ratio (1.50x, 1.685x).
    for way in ("to", "from"):
        for size in USERCOPY_SIZES:
            job = script.from_dict(JOBS[f"usercopy-{way}-{size}"], "<test>")
            assert dict(job.params)["size"] == str(size)
            assert dict(job.params)["direction"] == way


def _committed(stats_file: str, op_class: str) -> int:
    """Micro-ops of `op_class` the ROI committed (its stats dump, the first)."""
    with open(stats_file) as f:
        for line in f:
            if line.startswith("---------- End Simulation Statistics"):
                break
            if f"commit.committedInstType_0::{op_class} " in line:
                return int(line.split()[1])
    raise AssertionError(f"no committed {op_class} in {stats_file}")


def _v2_copy_to_user():
    """(gem5, job, image, preset) of the real-gem5 copy checks: 200 pread()s
    of 4 KiB (copy_to_user) on the threads' core; a skip without ARM gem5."""
    try:
        gem5 = locate.require("arm64")
    except UserError as e:
        pytest.skip(f"needs gem5 with ARM: {e}")
    job = script.from_dict({"workload": "usercopy-loop",
                            "run": {"iterations": 200, "warmup": 50, "size": PAGE,
                                    "direction": "to"}}, "<gem5 test>")
    return (gem5, job, assemble.build_image("arm64", job),
            cpu_presets.load_cpu("arm64-neoverse-v2", "arm64"))


@pytest.mark.gem5
def test_a_store_pair_is_one_store_micro_op_on_the_v2_preset():
    """gem5 with ARM: stock and usercopy-ldp, 4 KiB pread()s (copy_to_user),
    on the threads' core, with a pair of X registers stored as gem5 v24
    does (store_pairs "split", two 8-byte micro-ops) and as the preset
    does (patch 0040, "whole": one, as Neoverse V2 issues a store pair,
    [LLVMV2] WriteSTP). Split, the LDP/STP copy commits exactly as many
    store micro-ops as stock's STTR pairs: an STP was STTR, STTR and an ADD
    again, and the copy gained next to nothing (2026-11-30). Whole, it
    commits one per 16 bytes where stock commits one per 8: 256 fewer a
    4 KiB call, 51,200 in the 200 calls, exactly (the rest of both
    kernels' stores, prologues' STPs included, are the same code)."""
    gem5, job, image, preset = _v2_copy_to_user()
    assert preset.store_pairs == "whole"
    cache = cache_presets.load_cache("arm64-neoverse-v2")
    stores = {}
    for pairs in ("split", "whole"):
        cpu = cpu_presets.with_params(preset, {"store_pairs": pairs})
        for variant in ("stock", "usercopy-ldp"):
            kernel = kbuild.build_kernel("arm64", variant,
                                         layers=smap_models.layers_for("arm64"))
            rec = gem5_runs.run(kernel, image, job, gem5, cpu, cache, "none",
                                timeout=3 * 3600)
            assert rec["result"]["ops"] == 200 and rec["result"]["errors"] == 0
            stores[pairs, variant] = _committed(rec["gem5"]["stats_file"], "MemWrite")
    assert stores["split", "usercopy-ldp"] == stores["split", "stock"], stores
    assert stores["whole", "stock"] - stores["whole", "usercopy-ldp"] == PAGE // 16 * 200, stores


@pytest.mark.gem5
def test_a_pairs_offset_is_added_by_its_access_on_the_v2_preset():
    """gem5 with ARM: the threads' loop (usercopy-loop64), 4 KiB pread()s,
    on the threads' core with a pair's immediate offset added as gem5 v24
    does (pair_offsets "add": an ADD micro-op into a temporary before the
    access) and as the preset does (patch 0042, "access": the access adds
    it, as Neoverse V2 issues an offset pair, [LLVMV2] WriteLD/WriteSTP
    alone). The accesses are the same micro-ops either way, exactly; the
    ADDs go: at least one for every LDP and STP of the copy, which are
    all at an offset (the rest of the kernel's offset and pre-indexed
    pairs go too, so only a lower bound is exact here)."""
    gem5, job, image, preset = _v2_copy_to_user()
    assert preset.pair_offsets == "access"
    cache = cache_presets.load_cache("arm64-neoverse-v2")
    kernel = kbuild.build_kernel("arm64", "usercopy-loop64", layers=smap_models.layers_for("arm64"))
    got = {}
    for offsets in ("add", "access"):
        cpu = cpu_presets.with_params(preset, {"pair_offsets": offsets})
        rec = gem5_runs.run(kernel, image, job, gem5, cpu, cache, "none", timeout=3 * 3600)
        assert rec["result"]["ops"] == 200 and rec["result"]["errors"] == 0
        got[offsets] = {c: _committed(rec["gem5"]["stats_file"], c)
                        for c in ("MemRead", "MemWrite", "IntAlu")}
        got[offsets]["checksum"] = rec["result"]["checksum"]
    for c in ("MemRead", "MemWrite", "checksum"):
        assert got["add"][c] == got["access"][c], got
    assert got["add"]["IntAlu"] - got["access"]["IntAlu"] >= 2 * PAGE // 16 * 200, got


@pytest.mark.parametrize("size", USERCOPY_SIZES)
@pytest.mark.parametrize("way", ("to", "from"))
def test_usercopy_loop64_moves_each_pointer_once_per_64_bytes(way, size):
    # The threads' loop (usercopy-loop64): usercopy-ldp's LDP/STP at
    # offsets, src and dst each moved by one ADD an iteration instead of
    # post-indexed on every pair. Same pairs, same PAN window, same bytes;
    # two ADDs an iteration more, and one before the loop: per copy call of
    # N bytes (a multiple of 64, at least 128) the loop runs N/64 - 1
    # times, so N/32 - 1 instructions more, exactly; and the 11 NOPs that
    # align the loop to a cache line, once a call (the loop head is 20
    # bytes into its aligned block: 44 bytes of padding).
    ldp = profile("arm64", "usercopy-ldp", f"usercopy-{way}-{size}")
    loop64 = profile("arm64", "usercopy-loop64", f"usercopy-{way}-{size}")
    ops = ldp["result"]["ops"]
    calls = _calls(size) * ops
    assert loop64["result"]["checksum"] == ldp["result"]["checksum"]
    assert _pairs(loop64, COPY[way]) == _pairs(ldp, COPY[way])
    for write in ("pan_set_0", "pan_set_1"):
        assert own(loop64, "arm64", write) == calls
    chunk = min(size, PAGE)
    assert _insns(loop64, COPY[way]) - _insns(ldp, COPY[way]) == (chunk // 32 - 1 + 11) * calls
