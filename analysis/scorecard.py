"""The scorecard: each seed's hardware number beside the simulated one.

A claim is one comparison a seed thread measured on real hardware: a
time before and after a kernel change (or between two system calls). The
simulated number is the same comparison in gem5 O3 cycles per operation,
under the STAC/CLAC model that matches the hardware of its day (no SMAP
before 2014 hardware, SMAP in 2015 and 2017). Every ratio is after/before,
so < 1 is a speed-up. The scorecard says whether the direction agrees and
how the size of the effect (ratio - 1) compares; a miss by more than 1.5x
names the simulator limitation behind it where one was measured, and says
"not measured yet" where none was: never a guess.

The store's rows are the input: analysis reads results, it runs nothing.
"""

import dataclasses
import functools
from dataclasses import dataclass
from types import MappingProxyType

from analysis import metrics, probe, store
from configs import calibration_targets
from configs.gem5 import spec as gem5_spec
from lab.errors import UserError
from lab.fit import least_squares

MISS = 1.5  # an effect off by more than this factor, either way, is a miss
ARCH = "x86_64"  # the seeds measured x86
ARM_ARCH = "arm64"  # where the Arm views run


@dataclass(frozen=True)
class Claim:
    id: str
    seed: str            # its id in analysis/seeds.toml (docs/seeds.md)
    what: str
    hardware: str        # the thread's own numbers, as it gives them
    hw_ratio: float      # after / before, in time
    before: tuple        # (variant, workload)
    after: tuple
    smap_model: str      # the model matching the seed's hardware
    hw_ns: tuple = None  # (before, after) ns per call where the seed gives times


def _named(run):
    """The run with its workload named by its job's mode (PointView.job_name)."""
    name = run.point.job_name
    if name == run.point.workload:
        return run
    return dataclasses.replace(run, point=dataclasses.replace(run.point, workload=name),
                               _row=MappingProxyType(dict(run._row, workload=name)))


def _label(rows: list) -> list:
    """Runs whose workload names their job's mode (script.EXPERIMENT_NAMES)."""
    return [_named(r) for r in rows]


def _labelled(fn):
    """A table over rows whose workload names their job's mode."""
    @functools.wraps(fn)
    def table_of(rows: list, *args, **kwargs) -> tuple:
        return fn(_label(rows), *args, **kwargs)
    return table_of


CLAIMS = (
    Claim("statx-copy", "000_ccfae2f7fd7a499e",
          "statx: one copy_to_user instead of a __put_user (stac/clac) per field",
          "10M statx: 5.530 s -> 1.624 s", 1.624 / 5.530,
          ("statx-putuser", "statx-loop"), ("stock", "statx-loop"), "smap", (553.0, 162.4)),
    Claim("statx-vs-fstat", "000_ccfae2f7fd7a499e",
          "statx (one copy) against fstat",
          "10M calls: fstat 1.464 s, statx 1.624 s", 1.624 / 1.464,
          ("stock", "fstat-loop"), ("stock", "statx-loop"), "smap", (146.4, 162.4)),
    Claim("cp-new-stat", "001_5dcad19959904b29",
          "cp_new_stat fills the user struct directly (2013, no SMAP)",
          "10M fstat: 0.92 s -> 0.80 s", 0.80 / 0.92,
          ("stock", "fstat-loop"), ("stat-unsafe", "fstat-loop"), "none", (92.0, 80.0)),
    Claim("dentry-bytecmp", "004_19de4fc19931aa23",
          "dentry names: repe cmpsb memcmp -> open-coded byte loop (Westmere, 2010)",
          "git diff system time: 2.57 s -> 2.35 s", 2.35 / 2.57,
          ("dcache-repcmpsb", "lstat-storm"), ("dcache-bytecmp", "lstat-storm"),
          "none"),
    Claim("symlink-cachedlen-ext4", "002_8589ed682b9581aa",
          "readlink of /initrd.img on ext4 skips strlen with the cached symlink length",
          "about +1.5 % (readlink of /initrd.img on ext4)", 1 / 1.015,
          ("stock", "readlink-ext4"), ("symlink-cachedlen", "readlink-ext4"), "smap"),
    Claim("symlink-cachedlen", "002_8589ed682b9581aa",
          "readlink skips strlen with the cached symlink length (a tmpfs link, not the "
          "thread's ext4 one)",
          "about +1.5 % (readlink of /initrd.img on ext4)", 1 / 1.015,
          ("stock", "readlink-loop"), ("symlink-cachedlen", "readlink-loop"), "smap"),
)
# Seed numbers the scorecard cannot compare yet, said rather than dropped.
# (strncpy_from_user's 1.5 % of a make -j was the last: workload_share_table.)
PENDING = ()


@dataclass(frozen=True)
class ShareClaim:
    """A share of one kernel function's time that the seed puts on one
    mechanism: SMAP's share is the function's cycles with SMAP minus its
    cycles with no STAC/CLAC at all, over its cycles with SMAP (gem5's
    commit profile of the same ROI under both models)."""
    id: str
    seed: str
    what: str
    hardware: str
    share: float
    function: str
    variant: str
    workload: str


SHARE_CLAIMS = (
    ShareClaim("strncpy-smap-share", "003_745c0868b36e6c6e",
               "SMAP's share of strncpy_from_user, a stac/clac per word read "
               "(before batching; Skylake, 2015)",
               "almost two thirds", 2 / 3, "strncpy_from_user", "strncpy-unbatched",
               "lstat-storm"),
    # The same share on the thread's own load: a no-op make -j.
    ShareClaim("strncpy-smap-share-make", "003_745c0868b36e6c6e",
               "SMAP's share of strncpy_from_user in a no-op make -j, a stac/clac per word "
               "read (before batching; Skylake, 2015)",
               "almost two thirds", 2 / 3, "strncpy_from_user", "strncpy-unbatched",
               "make-build"),
)
# The same share after the change the seed introduced: one window per
# call. The thread gives no hardware number for it; shown for the contrast.
SHARE_AFTER = {"strncpy-smap-share": "stock", "strncpy-smap-share-make": "stock"}


@dataclass(frozen=True)
class WorkloadShareClaim(ShareClaim):
    """A kernel function's share of a whole workload's cycles, as a
    system-wide profile gives it: gem5's commit profile of the ROI (every
    process the workload starts, user and kernel), the function's cycles
    over the ROI's, under `smap_model`."""
    smap_model: str = "smap"
    after: str = None  # the kernel after the change, shown for contrast


WORKLOAD_SHARE_CLAIMS = (
    WorkloadShareClaim("strncpy-make-share", "003_745c0868b36e6c6e",
                       "strncpy_from_user's share of a no-op make -j (before batching; "
                       "Skylake, 2015)",
                       "about 1.5 % of all CPU time", 0.015, "strncpy_from_user",
                       "strncpy-unbatched", "make-build", "smap", after="stock"),
)


def _insn_share(twin, function: str) -> tuple:
    """(the function's share, the kernel's share) of a QEMU twin's ROI
    instructions (its plugin counts per kernel symbol)."""
    counts = twin.qemu.counts
    total = (counts.get("insns") or {}).get("total")
    if not total:
        return None, None
    return twin.qemu.symbol(function) / total, counts["insns"]["kernel"] / total


@_labelled
def workload_share_table(rows: list) -> tuple:
    header = ["claim", "seed", "hardware", "gem5", "sim/hw", "verdict",
              "QEMU twin: function / kernel share of instructions", "cpu preset"]
    body = []
    for c in WORKLOAD_SHARE_CLAIMS:
        twins = _twins(rows, c.smap_model)
        for label, variant, hw in ((c.what, c.variant, c.hardware),
                                   (f"the same after batching ({c.after})", c.after, "")):
            found = [r for r in rows if r.gem5 and r.point.arch == ARCH
                     and (r["variant"], r["workload"]) == (variant, c.workload)
                     and r["smap_model"] == c.smap_model and r.get(f"cycles@{c.function}")
                     and r.default_params]
            for r in sorted(found, key=_setup):
                share = r[f"cycles@{c.function}"] / r["cycles"]
                m = share / c.share
                twin = twins.get((variant, c.workload))
                fn, kernel = _insn_share(twin, c.function) if twin else (None, None)
                body.append([label, c.seed, hw, f"{share:.2%}", f"{m:.2f}x" if hw else "-",
                             _verdict(m) if hw else "no hardware number",
                             "-" if fn is None else f"{fn:.2%} / {kernel:.1%}", _setup(r)])
            if not found and hw:
                body.append([label, c.seed, hw, "-", "-", "not simulated", "-", "-"])
    return header, body


def function_share(rows: list, function: str, variant: str, workload: str) -> list:
    """[(preset, cache, share, direct share, function's share of the ROI,
    cycles per op with SMAP, without)] from profiled gem5 x86 rows of
    `variant` under smap and none, default workload parameters. The direct
    share is what the profile charges to STAC and CLAC themselves."""
    key = f"cycles@{function}"
    found = {}
    for r in rows:
        if (r.gem5 and r.point.arch == ARCH and r["variant"] == variant
                and r["workload"] == workload and r.get(key) and r.get("ops")
                and r.default_params):
            found[(_setup(r), r["cache"], r["smap_model"])] = r
    out = []
    for (preset, cache_name, model), on in sorted(found.items()):
        off = found.get((preset, cache_name, "none"))
        if model != "smap" or not off:
            continue
        with_smap, without = on[key] / on["ops"], off[key] / off["ops"]
        out.append((preset, cache_name, 1 - without / with_smap,
                    (on.get(f"toggle_cycles@{function}") or 0) / on[key],
                    on[key] / on["cycles"], with_smap, without))
    return out


@_labelled
def share_table(rows: list) -> tuple:
    header = ["claim", "seed", "hardware", "gem5 (SMAP share)", "on STAC/CLAC themselves",
              "share of the ROI", "cycles/op with SMAP -> none", "sim/hw", "verdict",
              "cpu preset"]
    body = []
    for c in SHARE_CLAIMS:
        for label, variant, hw in ((c.what, c.variant, c.hardware),
                                   (f"the same after batching ({SHARE_AFTER[c.id]})",
                                    SHARE_AFTER.get(c.id), "")):
            found = function_share(rows, c.function, variant, c.workload) if variant else []
            for preset, _, share, direct, part, on, off in found:
                m = share / c.share
                verdict = ("" if not hw else "agrees" if 1 / MISS <= m <= MISS
                           else "too large" if m > MISS else "too small")
                body.append([label, c.seed, hw, f"{share:.0%}", f"{direct:.0%}",
                             f"{part:.1%} of {c.workload}", f"{on:,.0f} -> {off:,.0f}",
                             f"{m:.2f}x" if hw else "-", verdict or "no hardware number",
                             preset])
            if not found and hw:
                body.append([label, c.seed, hw, "-", "-", "-", "-", "-", "not simulated", "-"])
    return header, body


@dataclass(frozen=True)
class LineClaim:
    """A cost the seed gives as a line, cycles per call = base + slope * n;
    the scorecard judges the slope."""
    id: str
    seed: str
    what: str
    hardware: str
    slope: float
    variant: str
    workload: str
    smap_model: str


LINE_CLAIMS = (
    # The 2010 kernel's name handling: copied from user space, hashed and
    # compared one byte at a time.
    LineClaim("stat-namelen-byte", "004_19de4fc19931aa23",
              "stat against name length, every pass over the name byte by byte "
              "(Westmere, 2010)",
              "640 cycles + 10 per name byte, 1 to 32 bytes", 10,
              "namei-bytewise-bytecmp", "stat-namelen", "none"),
    # The same thread's 8-byte compare: the copy and hash still byte by byte.
    LineClaim("stat-namelen-wordcmp", "004_19de4fc19931aa23",
              "stat against name length, the compare 8 bytes at a time (Westmere, 2010)",
              "8 cycles per name byte", 8,
              "namei-bytewise", "stat-namelen", "none"),
    # The byte compare alone, on 6.1's word-at-a-time copy and hash: how
    # much of the 2010 slope the compare carries.
    LineClaim("stat-namelen-bytecmp", "004_19de4fc19931aa23",
              "stat against name length, the byte compare alone on 6.1's word-at-a-time "
              "copy and hash",
              "640 cycles + 10 per name byte (with the byte copy and hash)", 10,
              "dcache-bytecmp", "stat-namelen", "none"),
)
# Why a line claim misses, with the measurement behind it. Measured on
# QEMU with the plugin (x86_64-gem5 profile, no SMAP), stat of 1-byte and
# of 32-byte names, 2,000 calls each, per-symbol kernel instructions:
#   ./run.py run --arch x86_64 --variant dcache-bytecmp --plugin \
#       --profile x86_64-gem5 --script S.toml --json
# with S.toml: workload = "stat-namelen", [run] name_len = [L, L].
LINE_CAUSES = {
    # ./run.py sweep configs/sweeps/westmere-namelen-split.toml
    # (records in docs/data/westmere-namelen-split.jsonl.gz): the commit
    # profile of 1- and 32-byte names, (32 - 1) / 31 per kernel function.
    "stat-namelen-byte": "measured (gem5 commit profile on x86_64-westmere, 1- vs 32-byte "
                         "names): each extra name byte is 27.0 instructions in 28.5 cycles: "
                         "the byte hash in link_path_walk 13.0 in 13.7, the byte compare in "
                         "__d_lookup_rcu 7.0 in 8.4, the byte copy in strncpy_from_user 7.0 "
                         "in 5.8; at the seed's 10 cycles per byte those 27 instructions would "
                         "run at 2.7 per cycle, where gem5 runs them at 0.95: either the 2010 "
                         "loops were shorter than these variants' or Westmere ran them near "
                         "3x gem5's rate (no Westmere here to count on)",
    "stat-namelen-bytecmp": "measured (QEMU plugin, 1- vs 32-byte names): each extra name "
                            "byte costs dcache-bytecmp 11.3 kernel instructions, 7.0 of them "
                            "the byte compare in __d_lookup_rcu and 4.3 the word-at-a-time copy "
                            "and hash (strncpy_from_user 1.55, link_path_walk's hash_name 2.71; "
                            "stock: 5.2 in all); the 2010 kernel copied and hashed byte by byte "
                            "too (the seed's account; namei-bytewise-bytecmp's line), so more "
                            "of its work grew with the name",
    # ./run.py run --arch x86_64 --variant V --plugin --profile x86_64-gem5
    #     --script S.toml --json, V namei-bytewise and namei-bytewise-bytecmp,
    #     S.toml as above with 1- and 32-byte names.
    # The same sweep's namei-bytewise points (byte copy and hash, the
    # compare 8 bytes at a time), profiled the same way.
    "stat-namelen-wordcmp": "measured (gem5 commit profile on x86_64-westmere, 1- vs 32-byte "
                            "names): each extra name byte is 20.9 instructions in 20.0 cycles: "
                            "the byte hash in link_path_walk 13.0 in 13.2, the byte copy in "
                            "strncpy_from_user 7.0 in 5.8, the 8-byte compare in "
                            "__d_lookup_rcu 0.94 in 0.8; at the seed's 8 cycles per byte they "
                            "would run at 2.6 per cycle, gem5 runs them at 1.05 (the byte "
                            "line's cause: the same two loops)",
    "stat-namelen-byte->stat-namelen-wordcmp":
        "measured (gem5 commit profile on x86_64-westmere, 1- vs 32-byte names, both "
        "kernels): per extra name byte the byte compare in __d_lookup_rcu is 7.0 instructions "
        "in 8.4 cycles, the 8-byte compare 0.94 in 0.8: it saves 6.06 instructions and 7.6 "
        "cycles, the hash (13.0) and copy (7.0) unchanged on both; for Westmere's 2 cycles the "
        "6.06 would run at 3.0 per cycle where gem5's O3 runs the byte compare at 0.83 (if the "
        "2010 loop ran 6.1's instruction count; the QEMU twins count the same 6.06)",
}


def cycles_by_length(row: dict) -> list:
    """[(name length, cycles per stat)] of a stat-namelen run. The guest
    times each length with its own clock; the ROI's gem5 cycles over the
    ROI's guest nanoseconds turn those into cycles, so no clock frequency
    is assumed."""
    if not row.get("cycles") or not row.get("roi_ns"):
        return []
    per_ns = row["cycles"] / row["roi_ns"]
    return sorted((int(k.rsplit("_", 1)[1]), v * per_ns) for k, v in row.items()
                  if k.startswith("ns_at_len_") and v is not None)


def _setup(row: dict) -> str:
    """A gem5 row's CPU preset, and its warming scheme where it warmed."""
    w = row.scheme
    return row["profile"] + ("" if w == "none" else f" (warming {w})")


def fit_line(row: dict) -> tuple:
    """(base, slope) in cycles of a stat-namelen run: least squares over its
    per-length cycles."""
    pts = cycles_by_length(row)
    if len(pts) < 2:
        return None
    return least_squares([n for n, _ in pts], [c for _, c in pts])


def _fitted(c: LineClaim, rows: list) -> list:
    """[(row, base, slope)] of the gem5 rows that stand for a line claim."""
    out = []
    for r in rows:
        if (r.gem5 and r.point.arch == ARCH and r["variant"] == c.variant
                and r["workload"] == c.workload and (r["smap_model"] or "none") == c.smap_model):
            fitted = fit_line(r)
            if fitted:
                out.append((r, *fitted))
    return out


def _verdict(m: float) -> str:
    return "agrees" if 1 / MISS <= m <= MISS else "too large" if m > MISS else "too small"


# A change the seed gives between two of its lines, judged as a change:
# (claim before, claim after, what).
SLOPE_CHANGES = (
    ("stat-namelen-byte", "stat-namelen-wordcmp",
     "stat against name length: what the 8-byte compare saves per name byte (Westmere, 2010)"),
)


@_labelled
def line_table(rows: list) -> tuple:
    header = ["claim", "seed", "hardware", "gem5 (cycles)", "slope sim/hw", "verdict",
              "cpu preset", "limitation"]
    body = []
    for c in LINE_CLAIMS:
        found = _fitted(c, rows)
        for r, base, slope in found:
            verdict = _verdict(slope / c.slope)
            body.append([c.what, c.seed, c.hardware, f"{base:.0f} + {slope:.1f} per byte",
                         f"{slope / c.slope:.2f}x", verdict, _setup(r),
                         "" if verdict == "agrees" else LINE_CAUSES.get(c.id, "not measured yet")])
        if not found:
            body.append([c.what, c.seed, c.hardware, "-", "-", "not simulated", "-", ""])
    claims = {c.id: c for c in LINE_CLAIMS}
    for before_id, after_id, what in SLOPE_CHANGES:
        before, after = claims[before_id], claims[after_id]
        hw = after.slope - before.slope
        after_by_setup = {_setup(r): slope for r, _, slope in _fitted(after, rows)}
        pairs = [(_setup(r), slope, after_by_setup[_setup(r)])
                 for r, _, slope in _fitted(before, rows) if _setup(r) in after_by_setup]
        for setup, s0, s1 in pairs:
            m = (s1 - s0) / hw
            verdict = _verdict(m)
            body.append([what, before.seed, f"{before.slope:g} -> {after.slope:g} per byte "
                         f"({hw:+g})", f"{s0:.1f} -> {s1:.1f} per byte ({s1 - s0:+.1f})",
                         f"{m:.2f}x", verdict, setup,
                         "" if verdict == "agrees" else
                         LINE_CAUSES.get(f"{before_id}->{after_id}", "not measured yet")])
        if not pairs:
            body.append([what, before.seed, f"{before.slope:g} -> {after.slope:g} per byte",
                         "-", "-", "not simulated", "-", ""])
    return header, body


# A claim's STAC/CLAC model is the one its seed's hardware had; the same
# comparison under the other models says how much of a ratio the model
# moves (the seeds sweep runs every claim under all four).
@_labelled
def model_table(rows: list, preset: str, cache: str) -> tuple:
    """(header, body): each claim's gem5 after/before on `preset` and
    `cache` (cold scheme, default parameters) under every STAC/CLAC model,
    the claim's own model marked; then each stat-namelen kernel's fitted
    slope, in cycles per name byte, under every model."""
    gem5 = [r for r in rows if r.gem5 and r.point.arch == ARCH
            and r["profile"] == preset and r["cache"] == cache and r.scheme == "none"
            and r.default_params]
    models = [m for m in metrics.SMAP_MODEL_ORDER
              if any((r["smap_model"] or "none") == m for r in gem5)]
    return (["claim (hardware after/before)"] + models,
            _claims_by_model(gem5, models) + _slopes_by_model(gem5, models))


def _claims_by_model(gem5: list, models: list) -> list:
    cycles = {(r["variant"], r["workload"], r["smap_model"] or "none"): _cycles_per_op(r)
              for r in gem5}
    body = []
    for c in CLAIMS:
        cells = []
        for m in models:
            b, a = cycles.get((*c.before, m)), cycles.get((*c.after, m))
            cells.append("-" if not (a and b) else
                         f"{a / b:.3f}" + (" (its model)" if m == c.smap_model else ""))
        if any(cell != "-" for cell in cells):
            body.append([f"{c.what} ({c.hw_ratio:.3f})"] + cells)
    return body


def _slopes_by_model(gem5: list, models: list) -> list:
    """A line claim's model is none (Westmere had no SMAP); the slopes
    under the others are shown unmarked."""
    hw_slope = {(c.variant, c.workload): c.slope for c in LINE_CLAIMS}
    slopes = {}
    for r in gem5:
        if r["workload"] == "stat-namelen" and (fitted := fit_line(r)):
            slopes.setdefault(r["variant"], {})[r["smap_model"] or "none"] = fitted[1]
    body = []
    for variant, by_model in sorted(slopes.items()):
        hw = hw_slope.get((variant, "stat-namelen"))
        body.append([f"name-length slope, {variant} "
                     f"({'hardware ' + format(hw, 'g') if hw else 'no hardware line'}; "
                     f"cycles per byte)"]
                    + [f"{by_model[m]:.1f}" if m in by_model else "-" for m in models])
    return body


# The CPU preset of each seed's machine (configs/gem5-presets/cpu, issue
# 26): Westmere for 2010, Skylake for the 2015 and 2017 threads. The 2013
# and 2024 threads name no CPU; Skylake is the nearer of the two presets
# to both. A row on another preset is the generic machine's, kept beside.
ERA_PRESET = {
    "004_19de4fc19931aa23": "x86_64-westmere",
    "003_745c0868b36e6c6e": "x86_64-skylake",
    "000_ccfae2f7fd7a499e": "x86_64-skylake",
    "001_5dcad19959904b29": "x86_64-skylake",
    "002_8589ed682b9581aa": "x86_64-skylake",
}


# What ./run.py calibrate fits a latency on (configs/calibration_targets.py): the
# seed, and the two kernels whose difference is the target.
FITTED_ON = {(m.seed_id, m.before, m.after) for m in calibration_targets.MECHANISMS.values()}


def machine(seed: str, m, variants: tuple = None) -> str:
    """"era" where a run ran on the seed's own preset (or one calibrated
    from it), else "generic"; and ", fitted here" where the run compares
    the two kernels (`variants`, before and after) a latency of its preset
    was fitted on, so the run checks the fit rather than predicts. `m`:
    the run's machine (results.Machine), as its record holds it."""
    out = "era" if m.base == ERA_PRESET.get(seed) else "generic"
    here = variants and seed in m.fitted_on and (seed, *variants) in FITTED_ON
    return out + (", fitted here" if here else "")


def _override(text: str) -> tuple:
    """("fetchWidth", 8) from a preset name's "+fetchWidth=8"."""
    k, _, v = text.partition("=")
    return k, int(v) if v.isdigit() else v


def preset_label(row: dict) -> str:
    """A gem5 row's CPU preset as the tables show it: its name, and
    "(an earlier version)" where the preset it ran on has since changed
    (x86_64-skylake's front end did), so two rows of one name with
    different cycles say why. The run's record holds the settings it ran
    with; the name alone does not. The one comparison with today's preset
    files: whether a run's preset is still today's is a question about
    today, which no record can answer."""
    name = row["profile"]
    try:
        ran = row.point.machine.cpu
        base, *over = name.split("+")
        now = gem5_spec.with_params(gem5_spec.load_cpu(base, "x86_64"),
                                    [_override(o) for o in over])
    except (KeyError, TypeError, ValueError, UserError):
        return name  # a calibration's point, an Arm row, or a preset since removed
    now_record = now.as_record()
    same = all(ran.get(f) == now_record.get(f) for f in gem5_spec.CpuPreset.MACHINE_FIELDS)
    return name if same else f"{name} (an earlier version)"


@dataclass(frozen=True)
class BaseClaim:
    """What one call costs on the seed's hardware, absolute: judged within
    MISS, like an effect. Cycles where the seed gives cycles; where it
    gives time and no clock, at CLOCK_ASSUMED with the range of clocks it
    could have run at beside."""
    id: str
    seed: str
    what: str
    hardware: str
    variant: str
    workload: str
    smap_model: str
    hw_cycles: float = None   # the seed's own cycles
    hw_ns: float = None       # or its time per call
    hw_per_byte: float = None  # a line's slope: the call at a run's mean name length


# The 2017 thread gives times, no CPU: it has SMAP (its stac/clac), so
# Broadwell (2014) or later; x86 parts of 2014-2017 ran between about 2.0
# GHz (server base clocks) and 4.2 GHz (i7-6700K turbo). Assumed: gem5's
# board clock, inside that range.
CLOCK_ASSUMED = 3.0
CLOCK_RANGE = (2.0, 4.2)

BASE_CLAIMS = (
    BaseClaim("stat-base-westmere", "004_19de4fc19931aa23",
              "stat, the base of the byte-by-byte line (Westmere, 2010)",
              "640 cycles + 10 per name byte", "namei-bytewise-bytecmp", "stat-namelen",
              "none", hw_cycles=640, hw_per_byte=10),
    BaseClaim("statx-base-2017", "000_ccfae2f7fd7a499e", "statx per call (one copy, 2017)",
              "10M statx in 1.624 s: 162.4 ns per call", "stock", "statx-loop", "smap",
              hw_ns=162.4),
    BaseClaim("fstat-base-2017", "000_ccfae2f7fd7a499e", "fstat per call (2017)",
              "10M fstat in 1.464 s: 146.4 ns per call", "stock", "fstat-loop", "smap",
              hw_ns=146.4),
)


def _base_cycles(c: BaseClaim, r: dict) -> float:
    if c.workload == "stat-namelen":
        fitted = fit_line(r)
        return fitted[0] if fitted else None
    return _cycles_per_op(r)


def base_budget(c: BaseClaim, row: dict, hw: float) -> str:
    """Where a base that misses goes, from its own record: the micro-ops
    gem5 makes of the call and the least time rename needs for them (a
    bound no timing parameter below rename's width can beat), then rename's
    cycles per call by state (analysis/accounting.py). For a name-length
    line the hardware's call is taken at the run's mean name length, the
    record's counts being per stat over all its lengths."""
    if not row.get("gem5_ops") or row.get("rename_run_cycles") is None:
        return "not measured (the record has no micro-op count or rename states)"
    n = row["ops"]
    lengths = [k for k, _ in cycles_by_length(row)]
    if c.hw_per_byte is not None and lengths:
        mean = sum(lengths) / len(lengths)
        hw, at = hw + c.hw_per_byte * mean, f" (at the runs' mean name length, {mean:g} bytes)"
    else:
        at = ""
    insts, uops = row["gem5_insts"] / n, row["gem5_ops"] / n
    width = row.point.machine.o3_param("renameWidth", gem5_spec.O3_RENAME_WIDTH_DEFAULT)
    bound = uops / width

    def per(field):
        return (row.get(field) or 0) / n
    return (f"measured: {insts:,.0f} instructions as {uops:,.0f} gem5 micro-ops per call "
            f"({uops / insts:.1f} per instruction); at rename's {width} a cycle at least "
            f"{bound:,.0f} cycles, x{bound / hw:.2f} the hardware's whole call{at}; rename's "
            f"cycles per call: running {per('rename_run_cycles'):,.0f}, waiting for "
            f"{per('serializing_insts'):,.0f} serializing micro-ops to drain "
            f"{per('serialize_stall_cycles'):,.0f}, idle {per('rename_idle_cycles'):,.0f} "
            f"(fetch stalled on the L1I {per('icache_stall_cycles'):,.0f}), unblocking "
            f"{per('rename_unblock_cycles'):,.0f} (docs/machines.md splits these by "
            f"machine parameter)")


# Base rows in reading order: the seed's own machine first (its era's CPU
# preset, the calibrated one before the plain, on its era's caches), then
# the era core with a parameter set by a sweep or on other caches, then the
# generic core, then machines that have since changed (kept: they are what
# docs/machines.md's splits ran on).
def _base_order(c: BaseClaim, r: dict) -> tuple:
    label, era = preset_label(r), ERA_PRESET.get(c.seed)
    return ("(an earlier version)" in label, machine(c.seed, r.point.machine) != "era",
            "+" in label, r.get("cache") != era, not label.endswith("-calibrated"),
            label, r.get("cache") or "")


@_labelled
def base_table(rows: list) -> tuple:
    header = ["base", "seed", "hardware", "hardware cycles", "gem5 cycles", "sim/hw",
              "verdict", "cpu preset / caches", "machine", "warming", "where gem5's cycles go"]
    body = []
    for c in BASE_CLAIMS:
        found = [r for r in rows
                 if r.gem5 and r.point.arch == ARCH
                 and r["variant"] == c.variant and r["workload"] == c.workload
                 and (r["smap_model"] or "none") == c.smap_model
                 and r.default_params]
        if c.hw_cycles is not None:
            hw, hw_text = c.hw_cycles, f"{c.hw_cycles:,.0f} (the seed's own)"
        else:
            hw = c.hw_ns * CLOCK_ASSUMED
            lo, hi = (c.hw_ns * g for g in CLOCK_RANGE)
            hw_text = (f"{hw:,.0f} at {CLOCK_ASSUMED:g} GHz (assumed; {lo:,.0f}-{hi:,.0f} "
                       f"at {CLOCK_RANGE[0]:g}-{CLOCK_RANGE[1]:g} GHz)")
        shown = False
        for r in sorted(found, key=lambda r: _base_order(c, r)):
            g = _base_cycles(c, r)
            if g is None:
                continue
            m = g / hw
            verdict = _verdict(m)
            if c.hw_ns is not None and verdict != "agrees":
                lo, hi = (c.hw_ns * x for x in CLOCK_RANGE)
                if lo / MISS <= g <= hi * MISS:
                    verdict += " at 3 GHz; within 1.5x at some clock in the range"
            body.append([c.what, c.seed, c.hardware, hw_text, f"{g:,.0f}", f"{m:.2f}x",
                         verdict, f"{preset_label(r)} / {r.get('cache') or '-'}",
                         machine(c.seed, r.point.machine), r.scheme,
                         "" if verdict == "agrees" else base_budget(c, r, hw)])
            shown = True
        if not shown:
            body.append([c.what, c.seed, c.hardware, hw_text, "-", "-", "not simulated",
                         "-", "-", "-", ""])
    return header, body


# Limitations measured for a claim that misses: claim id -> text with its
# measurement. Empty until measured; a miss without an entry says so.
LIMITATIONS = {
    # seeds-era's tmpfs readlink points, run twice on 2026-11-25 (records: git
    # show 72260de:docs/data/seeds-era.jsonl.gz, then the file as it is):
    # the same instructions and micro-ops per call both times.
    "symlink-cachedlen":
        "measured: the work differs (the QEMU twins count -4.3 % instructions per call, "
        "x2.9 the hardware's effect); on the era machine gem5's timing of so small a saving "
        "is decided by branch prediction, not by the change: two runs of the same kernels' instructions "
        "(2,031 -> 1,944 per call both times; the second after the workload binary was "
        "rebuilt and the boot shortened) gave -2.4 % and -0.7 %; in the second, "
        "symlink-cachedlen mispredicts 2.0 more branches per call (8.1 against stock's 6.1) "
        "and squashes 42 more instructions, where stock repeats itself within 3 cycles. The "
        "thread's own call, on ext4, is the row above",
    # ./run.py run --arch x86_64 --variant V --script workloads/scripts/readlink-ext4.toml
    #     --plugin --json, V stock and symlink-cachedlen (per-function counts, the
    #     record's counts.symbols); gem5: the seeds-era sweep's ext4 points.
    "symlink-cachedlen-ext4":
        "measured (QEMU plugin, readlink of the 30-byte ext4 /initrd.img): the cached length "
        "saves 102 of 1,766 instructions per call (5.8 %): strlen's 95 and readlink_copy's "
        "26, less the 21 of the variant's ext4_fast_symlink_readlink; gem5 on the era machine "
        "saves 71 of 2,088 cycles (3.4 %), running the saved instructions at 1.4 per cycle "
        "against the call's 0.83. The thread's 1.5 % would be the same saving in a call 2.3x "
        "gem5's: its kernel did more around the same strlen (a distribution kernel's security "
        "hooks, audit and speculation mitigations, which this study's minimal config leaves "
        "out; not counted here)",
}


@dataclass
class Line:
    claim: Claim
    preset: str
    cache: str
    before: dict
    after: dict
    warming: str = "none"  # gem5's warming scheme of both sides

    @property
    def sim_ratio(self) -> float:
        b, a = _cycles_per_op(self.before), _cycles_per_op(self.after)
        return a / b if a and b else None

    @property
    def agrees(self) -> bool:
        s, h = self.sim_ratio, self.claim.hw_ratio
        return s is not None and (s < 1) == (h < 1)

    @property
    def magnitude(self) -> float:
        """Simulated effect over the hardware's: 1 is a perfect match."""
        s = self.sim_ratio
        return None if s is None else (s - 1) / (self.claim.hw_ratio - 1)

    @property
    def verdict(self) -> str:
        m = self.magnitude
        if m is None:
            return "not simulated"
        if not self.agrees:
            return "wrong direction"
        if 1 / MISS <= m <= MISS:
            return "agrees"
        return "too large" if m > MISS else "too small"


def _cycles_per_op(row: dict) -> float:
    if not row or not row.get("cycles") or not row.get("ops"):
        return None
    return row["cycles"] / row["ops"]


def lines(rows: list) -> list:
    """One line per claim and (CPU preset, cache, warming) that has both
    sides in gem5, with the claim's STAC/CLAC model and default workload
    parameters."""
    gem5 = {}
    for r in rows:
        if not r.gem5 or r.point.arch != ARCH or not r.default_params:
            continue
        gem5[(r["variant"], r["workload"], r["smap_model"], r["profile"], r["cache"],
              r.scheme)] = r
    out = []
    for c in CLAIMS:
        setups = sorted({k[3:] for k in gem5 if k[2] == c.smap_model})
        found = False
        for setup in setups:
            before = gem5.get((*c.before, c.smap_model, *setup))
            after = gem5.get((*c.after, c.smap_model, *setup))
            if before and after:
                out.append(Line(c, setup[0], setup[1], before, after, setup[2]))
                found = True
        if not found:
            out.append(Line(c, "-", "-", None, None))
    return out


def _twins(rows: list, smap_model: str, arch: str = ARCH) -> dict:
    """(variant, workload) -> the QEMU twin with plugin counts, at default
    workload parameters, for gem5 points under `smap_model` (store.twins)."""
    return store.twins(rows, arch, smap_model)


def qemu_ratio(rows: list, claim: Claim) -> float:
    """The same comparison in instructions, from the QEMU twins of the
    claim's gem5 points (same kernel, image and model; counted by the
    plugin): not time, but the work each kernel did."""
    return _insn_ratio(_twins(rows, claim.smap_model), claim.before, claim.after)


def _insn_ratio(twins: dict, before: tuple, after: tuple) -> float:
    b, a = twins.get(before), twins.get(after)
    if not b or not a:
        return None
    return (a["insns_total"] / a["ops"]) / (b["insns_total"] / b["ops"])


# Why gem5's syscall path serializes so often, read in gem5 v24.0.0.1's
# source: every micro-op with a control, segment or MSR-backed register
# operand is IsSerializeAfter (src/arch/x86/isa/operands.isa, ControlReg),
# and SYSCALL, SYSRET and SWAPGS are made of such micro-ops (wrsel,
# wrbase, wrlimit, wrattr, rdval, wrval). Hardware renames that state.
SERIALIZING = ("gem5 v24 x86: each micro-op on a segment, control or MSR register is "
               "serialize-after, and SYSCALL, SYSRET and SWAPGS are made of them")
GHZ = 3.0  # the gem5 board's clock (configs/gem5/spec.py CLOCK); the seeds' is assumed


def dilution(ln: Line, rows: list) -> str:
    """For a claim whose seed gives times per call: split the miss into the
    per-call difference (what the mechanism costs) and the base (what the
    call costs without it), both measured, in cycles at 3 GHz. A ratio
    that misses while the difference matches is a base that does not: the
    text gives gem5's base with its instructions (kernel and user, from
    the QEMU twin) and IPC, so the reader sees where the cycles go."""
    c = ln.claim
    if not c.hw_ns or ln.before is None:
        return None
    hb, ha = (GHZ * ns for ns in c.hw_ns)
    gb, ga = _cycles_per_op(ln.before), _cycles_per_op(ln.after)
    base_row = ln.after if ga <= gb else ln.before
    base_hw, base_g = min(hb, ha), min(gb, ga)
    twin = _twins(rows, c.smap_model).get((base_row["variant"], base_row["workload"]))
    insns = (f": {twin['insns_kernel'] / twin['ops']:,.0f} kernel + "
             f"{twin['insns_user'] / twin['ops']:,.0f} user instructions (QEMU twin)"
             if twin else "")
    ipc = f", IPC {base_row['ipc']:.2f}" if base_row.get("ipc") else ""
    stall = base_row.get("serialize_stall_cycles")
    serial = ""
    if stall and base_row.get("serializing_insts"):
        rest = base_g - stall / base_row["ops"]
        serial = (f"; of the base, O3 rename waits {stall / base_row['ops']:,.0f} cycles per "
                  f"call ({100 * stall / base_row['cycles']:.0f} %) for "
                  f"{base_row['serializing_insts'] / base_row['ops']:,.0f} serializing "
                  f"micro-ops to drain ({SERIALIZING}); the rest, {rest:,.0f} cycles, is "
                  f"x{rest / base_hw:.2f} the hardware's (the base rows split it: "
                  f"micro-ops against rename's width, rename's states)")
    return (f"measured: per-call difference gem5 {ga - gb:+,.0f} cycles, hardware "
            f"{ha - hb:+,.0f} (x{(ga - gb) / (ha - hb):.2f}); base "
            f"({base_row['variant']}/{base_row['workload']}) gem5 {base_g:,.0f} cycles"
            f"{insns}{ipc}, hardware {base_hw:,.0f} (x{base_g / base_hw:.2f}){serial}")


def work_difference(ln: Line, rows: list) -> str:
    """A miss whose QEMU twins already show it in instructions: the kernels
    do different amounts of work than the seed's did, so the timing model
    is not what misses (or not alone)."""
    q, s, h = qemu_ratio(rows, ln.claim), ln.sim_ratio, ln.claim.hw_ratio
    if q is None or s is None:
        return None
    eq, es = (q - 1) / (h - 1), (s - 1) / (h - 1)
    if not (eq > MISS and es > MISS or eq < 1 / MISS and es < 1 / MISS):
        return None
    return (f"measured: the work differs, not only its timing: the QEMU twins run "
            f"{100 * (q - 1):+.1f} % instructions per call (x{eq:.2f} the hardware's effect), "
            f"gem5's cycles {100 * (s - 1):+.1f} % (x{es:.2f}); the seed's call did other "
            f"work beside the change (its kernel, filesystem and path)")


def other_runs(ln: Line, history: list) -> str:
    """The same comparison as each other sweep that measured both of its
    sides gave it (that sweep's latest row of each), as gem5's
    after/before. gem5 is deterministic: the same inputs give the same
    cycles. Where the kernels' instructions are the same and the cycles
    are not, an input that does not change the work did (a rebuilt image,
    a kernel rebuilt with a hunk this call does not run), and moved the
    code layout the branch predictor sees; a small effect must stand
    clear of that spread. `history` is [(experiment, row)], oldest first,
    each row's experiment worked out once."""
    if ln.before is None or not history:
        return ""
    used = {ln.before.key, ln.after.key}
    sides = {ln.before.experiment: 0, ln.after.experiment: 1}
    pairs = {}
    for experiment, r in history:
        side = sides.get(experiment) if r.key not in used else None
        if side is not None and _cycles_per_op(r):
            pairs.setdefault(r.sweep, [None, None])[side] = r
    return "; ".join(f"{_cycles_per_op(a) / _cycles_per_op(b):.3f} ({sweep})"
                     for sweep, (b, a) in sorted(pairs.items()) if a and b)


@_labelled
def table(rows: list, history: list = ()) -> tuple:
    """The claims' table; `history`, every row the newest were picked from,
    gives each line's other runs."""
    history = [(r.experiment, r) for r in sorted(
        _label([r for r in history if r.gem5]), key=lambda r: r.recorded_at or "")]
    header = ["claim", "seed", "hardware", "gem5 before -> after", "hw after/before",
              "gem5 after/before", "other runs", "QEMU insns after/before",
              "smap_model", "cpu preset", "machine", "warming", "direction", "effect sim/hw",
              "verdict", "limitation"]
    body = []
    for ln in lines(rows):
        c = ln.claim
        sim = ln.sim_ratio
        m = ln.magnitude
        missing = ln.verdict in ("too large", "too small", "wrong direction")
        body.append([
            c.what, c.seed, c.hardware, f"{'/'.join(c.before)} -> {'/'.join(c.after)}",
            f"{c.hw_ratio:.3f}",
            "-" if sim is None else f"{sim:.3f}", other_runs(ln, history) or "-",
            "-" if qemu_ratio(rows, c) is None else f"{qemu_ratio(rows, c):.3f}",
            c.smap_model, ln.preset,
            machine(c.seed, ln.before.point.machine, (c.before[0], c.after[0]))
            if ln.before else "-",
            ln.warming if ln.before else "-",
            "-" if sim is None else ("agrees" if ln.agrees else "opposite"),
            "-" if m is None else f"{m:.2f}x", ln.verdict,
            (LIMITATIONS.get(c.id) or dilution(ln, rows) or work_difference(ln, rows)
             or "not measured yet")
            if missing else ""])
    for seed, what, why in PENDING:
        body.append([what, seed, "", "", "", "-", "-", "-", "", "", "", "", "", "", "pending",
                     why])
    return header, body


@dataclass(frozen=True)
class ArmView:
    """A seed's change where Arm has the mechanism (issue 10: "Arm O3
    where the mechanism exists"). The seeds measured x86 only, so there
    is no Arm hardware number: the view sets gem5 Arm's effect beside the
    x86 hardware's, direction and size, and names the Arm mechanism."""
    id: str
    what: str
    mechanism: str
    before: tuple        # (variant, workload)
    after: tuple
    claim: str = None    # the x86 claim it mirrors, if any


ARM_VIEWS = (
    ArmView("statx-copy-arm", "statx: one copy_to_user instead of a __put_user per field",
            "arm64 6.1 keeps PAN set and writes user memory with STTR: the per-field "
            "kernel pays 26 more STTR per call and their checks, no PAN toggle",
            ("statx-putuser", "statx-loop"), ("stock", "statx-loop"), "statx-copy"),
    ArmView("pan-toggle-arm", "statx with PAN cleared and set around each user access block "
            "(the Arm twin of stac/clac, as arm64 did before LDTR/STTR)",
            "2 msr pan,#0 and 2 msr pan,#1 per statx (pan-toggle) against none (stock)",
            ("stock", "statx-loop"), ("pan-toggle", "statx-loop")),
)


@_labelled
def arm_table(rows: list) -> tuple:
    """One line per Arm view and (CPU preset, cache, warming) with both
    sides in gem5 Arm, default workload parameters."""
    header = ["view", "Arm mechanism", "gem5 before -> after (cycles/op)",
              "gem5 after/before", "QEMU insns after/before", "x86 hardware after/before",
              "direction vs x86 hw", "cpu preset", "warming"]
    gem5 = {(r["variant"], r["workload"], r["profile"], r["cache"], r.scheme): r
            for r in rows if r.point.arch == ARM_ARCH and r.gem5 and r.default_params}
    twins = _twins(rows, "", ARM_ARCH)  # Arm has no STAC/CLAC model
    claims = {c.id: c for c in CLAIMS}
    body = []
    for v in ARM_VIEWS:
        hw = claims[v.claim].hw_ratio if v.claim else None
        q = _insn_ratio(twins, v.before, v.after)
        setups = sorted({k[2:] for k in gem5})
        found = False
        for setup in setups:
            before, after = gem5.get((*v.before, *setup)), gem5.get((*v.after, *setup))
            gb, ga = _cycles_per_op(before), _cycles_per_op(after)
            if not gb or not ga:
                continue
            found = True
            sim = ga / gb
            body.append([v.what, v.mechanism, f"{gb:,.0f} -> {ga:,.0f}", f"{sim:.3f}",
                         "-" if q is None else f"{q:.3f}",
                         "-" if hw is None else f"{hw:.3f}",
                         "-" if hw is None else ("agrees" if (sim < 1) == (hw < 1)
                                                 else "opposite"),
                         setup[0], setup[2]])
        if not found:
            body.append([v.what, v.mechanism, "-", "-", "-" if q is None else f"{q:.3f}",
                         "-" if hw is None else f"{hw:.3f}", "-", "-", "not simulated"])
    return header, body


# What the machine model moves (issue 26: "the generic preset's table stays
# beside it: how much the machine model moves each verdict is itself a
# finding"): each scored claim's verdict on the generic core every claim
# first ran on, and on its era's machine. The generic machine is this
# preset on gem5's classic caches, gem5's kernel entry; the era machine is
# the seed's own preset on its own caches, as the seeds-era sweep runs it.
GENERIC_PRESET = "x86_64-o3-calibrated"
GENERIC_CACHE = "classic-l1l2"


@dataclass(frozen=True)
class _Cell:
    """One claim's result on one machine: simulated over hardware, and
    the verdict; `fitted` where the row checks a latency fitted on it."""
    ratio: float
    verdict: str
    fitted: bool = False

    def text(self) -> str:
        return f"{self.ratio:.2f}x, {self.verdict}" + (" (fitted on it)" if self.fitted else "")


def _machine_entries(rows: list) -> dict:
    """(kind, claim) -> {"hardware", "generic": _Cell, "era": _Cell,
    "era preset"}, from the scorecard's own tables; each table lists its
    preferred row first, so the first row on a machine is the one kept."""
    rows = store.newest_per_experiment(rows)
    found = {}
    # The machine of each preset name the tables show, as its runs' records hold it.
    machines = {r["profile"]: r.point.machine for r in rows if r.gem5}

    def note(kind, what, hw, seed, preset, ratio, verdict, generic, era_caches=True,
             fitted=False):
        entry = found.setdefault((kind, what), {"hardware": hw})
        era = (era_caches and "+" not in preset and "(" not in preset and preset in machines
               and machine(seed, machines[preset]).startswith("era"))
        side = "generic" if generic else "era" if era else None
        if side and side not in entry:
            entry[side] = _Cell(float(ratio.rstrip("x")), verdict, fitted)
            if side == "era":
                entry["era preset"] = preset
    header, body = table(rows)
    col = {h: i for i, h in enumerate(header)}
    for r in body:
        if r[col["verdict"]] not in ("not simulated", "pending"):
            # A row that compares the two kernels a latency was fitted on
            # checks the fit; it predicts nothing.
            note("effect", r[0], r[col["hardware"]], r[col["seed"]], r[col["cpu preset"]],
                 r[col["effect sim/hw"]], r[col["verdict"]],
                 r[col["cpu preset"]] == GENERIC_PRESET,
                 fitted="fitted here" in r[col["machine"]])
    for make, kind, ratio_col, preset_col in (
            (line_table, "effect", "slope sim/hw", "cpu preset"),
            (share_table, "share", "sim/hw", "cpu preset"),
            (workload_share_table, "share", "sim/hw", "cpu preset"),
            (base_table, "base", "sim/hw", "cpu preset / caches")):
        header, body = make(rows)
        col = {h: i for i, h in enumerate(header)}
        for r in body:
            if r[col["verdict"]] in ("not simulated", "no hardware number") or not r[col["seed"]]:
                continue
            preset, _, cache = r[col[preset_col]].partition(" / ")
            note(kind, r[0], r[col["hardware"]], r[col["seed"]], preset, r[col[ratio_col]],
                 r[col["verdict"]].split(" at 3 GHz")[0],
                 generic=preset == GENERIC_PRESET and cache in ("", GENERIC_CACHE),
                 era_caches=not cache or cache == ERA_PRESET.get(r[col["seed"]]))
    return found


def machine_table(rows: list) -> tuple:
    """(header, body): one row per scored claim, its effect (or base, or
    share) over the hardware's with the verdict, on the generic machine
    and on the era machine; "-" where that machine did not run it."""
    header = ["kind", "claim", "hardware", f"generic machine ({GENERIC_PRESET}, "
              f"{GENERIC_CACHE})", "era machine", "era preset"]
    body = [[kind, what, e["hardware"],
             e["generic"].text() if "generic" in e else "-",
             e["era"].text() if "era" in e else "-", e.get("era preset", "-")]
            for (kind, what), e in _machine_entries(rows).items()]
    return header, body


def machine_summary(rows: list) -> str:
    """One sentence: how many predictions (rows not fitted on their own
    data) agree on each machine, and the range of the bases."""
    entries = _machine_entries(rows)

    def cells(side: str, kinds: tuple) -> list:
        return [e[side] for (kind, _), e in entries.items() if kind in kinds and side in e]

    def count(side: str) -> str:
        predicted = [c for c in cells(side, ("effect", "share")) if not c.fitted]
        return f"{sum(c.verdict == 'agrees' for c in predicted)} of {len(predicted)}"

    def span(side: str) -> str:
        xs = sorted(c.ratio for c in cells(side, ("base",)))
        return f"{xs[0]:.2f}x to {xs[-1]:.2f}x" if xs else "none run"
    return (f"Predicted effects and shares (rows not fitted on their own data) within "
            f"{MISS:g}x of the hardware's: {count('generic')} on the generic machine, "
            f"{count('era')} on the era machines. Absolute bases over the hardware's: "
            f"{span('generic')} on the generic machine, {span('era')} on the era machines.")


def _markdown_table(header, body) -> list:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in body]
    return out


# A cell longer than this is a paragraph, not a value: in a table it
# stretches every row of its column (the site's scorecard was a page of
# 600-character cells), so it goes under the table as a numbered note.
NOTE_CHARS = 140


def _with_notes(header, body) -> list:
    """The table, each long cell replaced by "note N" and written out
    below it as a numbered list (a CPU preset's name stays in its cell)."""
    notes, cells = [], []
    for row in body:
        cells.append([])
        for head, cell in zip(header, row):
            # A preset's name is a value, however long its overrides make it.
            if len(cell) > NOTE_CHARS and "preset" not in head:
                notes.append(cell)
                cell = f"note {len(notes)}"
            cells[-1].append(cell)
    out = _markdown_table(header, cells)
    if notes:
        out += [""] + [f"{i}. {n}" for i, n in enumerate(notes, 1)]
    return out


def sections(rows: list) -> list:
    """(title, what it shows, (header, body)) for each of the scorecard's
    tables, the one-line-per-claim view first."""
    history, rows = rows, store.newest_per_experiment(rows)
    return [
        ("At a glance", machine_summary(rows) + " One row per claim; the tables below "
         "give each machine's run.", machine_table(rows)),
        ("The seeds' claims", "Each claim's effect, hardware against gem5, per CPU preset.",
         table(rows, history)),
        ("Base costs", "Absolute cycles per call against the hardware's.", base_table(rows)),
        ("Per-byte lines", "Cycles against name length, the slope against the hardware's.",
         line_table(rows)),
        ("SMAP's share", "Where a thread gave a share of a workload, not an effect.",
         share_table(rows)),
        ("A function's share of a workload", "", workload_share_table(rows)),
        ("On Arm", "The same changes where Arm has the mechanism (no Arm hardware number).",
         arm_table(rows)),
        ("The machine probes", "Each preset's measured figures against its documentation.",
         probe.table(rows)),
    ]


def markdown(rows: list) -> str:
    out = []
    for title, what, tab in sections(rows):
        out += [f"### {title}", ""] + ([what, ""] if what else []) + _with_notes(*tab) + [""]
    return "\n".join(out).rstrip() + "\n"
