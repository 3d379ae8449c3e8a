"""The results store: one SQLite file, one row per (sweep, point), and a
long table of that point's metrics.

Why SQLite, not Parquet: it is in Python's standard library (no pyarrow to
install), pandas reads it (`pd.read_sql("select * from runs", conn)`), and
it gives what a results store on a shared cache needs: atomic
transactions, and safe concurrent writers (two run.py processes ingesting
at once wait on SQLite's lock; neither corrupts the file). Parquet files
are write-once; appending a point would mean rewriting or a file per point.

Tables (schema version in SQLite's user_version):
  runs     one row per point: its axes, status, the answer (ops, errors,
           checksum), versions, and the full record JSON in `record`.
  metrics  (sweep, key, name, value): every number the run stage measured,
           one row each, so a new metric or simulator adds rows, not
           columns. rows() puts them back beside each run's columns.
  symbols  per-point kernel instruction counts by symbol, from the plugin.
  plans    the run keys each sweep expanded to last.
The store reads records only: the run stage hands it parsed results
(gem5's statistics are in record["gem5"]["summary"]), never a simulator
file. What it hands out are typed runs (analysis/results.py: the point's
view and the backend's result, each record read once), and a few named
selectors over them (newest per experiment, by experiment, the twin of a
gem5 run); no reader outside parses a record.
"""

import json
import sqlite3
import time
from contextlib import closing
from pathlib import Path

from analysis import results
from lab import cache, gem5_statistics
from workloads import script

# PRAGMA user_version; 0 is the wide, one-column-per-metric runs table, and
# 3 adds the gem5 warming scheme (issue 11) as a column of its own, and 4
# the gem5 sampling (issue 12: none, the whole ROI; simpoint, an estimate).
VERSION = 4
SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    sweep TEXT NOT NULL,
    key TEXT NOT NULL,
    status TEXT NOT NULL,            -- ok | failed
    arch TEXT, variant TEXT, workload TEXT, backend TEXT, profile TEXT,
    params TEXT,                     -- JSON of swept workload parameters
    cache TEXT, smap_model TEXT, twin_of TEXT,
    warming TEXT,                    -- gem5: none (cold ROI checkpoint) | functional
    sampling TEXT,                   -- gem5: none (whole ROI) | simpoint (weighted points)
    ops INTEGER, errors INTEGER, checksum TEXT,
    kernel_version TEXT, simulator TEXT, simulator_version TEXT,
    error TEXT, log TEXT,
    record TEXT,
    recorded_at TEXT,
    PRIMARY KEY (sweep, key)
);
CREATE TABLE IF NOT EXISTS metrics (
    sweep TEXT NOT NULL, key TEXT NOT NULL, name TEXT NOT NULL, value REAL,
    PRIMARY KEY (sweep, key, name)
);
CREATE TABLE IF NOT EXISTS plans (
    sweep TEXT PRIMARY KEY, keys TEXT NOT NULL, planned_at TEXT
);
CREATE TABLE IF NOT EXISTS symbols (
    sweep TEXT NOT NULL, key TEXT NOT NULL, symbol TEXT NOT NULL, insns INTEGER,
    PRIMARY KEY (sweep, key, symbol)
);
"""

# The runs table's columns, and the metrics every row reads as a key
# (results.py, which reads rows into typed runs, keeps both).
COLUMNS, KNOWN_METRICS = results.COLUMNS, results.KNOWN_METRICS
# Version-0 columns that were metrics, and those that were versions.
_V0_METRICS = tuple(m for m in KNOWN_METRICS if m != "smap_faults")


def connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    # A generous timeout: a concurrent writer holds the lock only for one
    # short transaction.
    conn = sqlite3.connect(str(path), timeout=120)
    conn.execute("PRAGMA busy_timeout=120000")
    # Switching a new database to WAL (and creating or migrating its
    # tables) can fail at once with "database is locked" when another
    # process does the same: SQLite skips the busy handler for that lock
    # upgrade. So the setup is serialised by a lock file beside the store.
    with cache.locked(path.with_name(path.name + ".lock")):
        conn.execute("PRAGMA journal_mode=WAL")
        _migrate(conn)
        conn.executescript(SCHEMA)
        conn.execute(f"PRAGMA user_version={VERSION}")
    conn.row_factory = sqlite3.Row
    return conn


def _migrate(conn) -> None:
    """A version-0 store (one column per metric) becomes version 2: its
    metric columns become metric rows; nothing finished is lost."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    have = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
    if version >= VERSION or not have:
        return
    if version in (2, 3):
        with conn:
            if version == 2:
                # Every gem5 run before the column was a cold one.
                conn.execute("ALTER TABLE runs ADD COLUMN warming TEXT")
                conn.execute("UPDATE runs SET warming='none' WHERE backend='gem5'")
            # Every gem5 run before the column simulated its whole ROI.
            conn.execute("ALTER TABLE runs ADD COLUMN sampling TEXT")
            conn.execute("UPDATE runs SET sampling='none' WHERE backend='gem5'")
        return
    if version != 0:
        raise RuntimeError(f"results store schema version {version} is unknown here")
    with conn:
        conn.execute("ALTER TABLE runs RENAME TO runs_v0")
        conn.executescript(SCHEMA)
        old = [c for c in _V0_METRICS if c in have]
        for row in conn.execute("SELECT * FROM runs_v0").fetchall():
            r = dict(zip([d[0] for d in conn.execute("SELECT * FROM runs_v0 LIMIT 0")
                          .description], row))
            simulator = "gem5" if r.get("backend") == "gem5" else "qemu"
            version_col = "gem5_version" if simulator == "gem5" else "qemu_version"
            new = {c: r.get(c) for c in COLUMNS if c in r}
            new.update(simulator=simulator, simulator_version=r.get(version_col))
            conn.execute(f"INSERT INTO runs ({', '.join(new)}) VALUES "
                         f"({', '.join('?' for _ in new)})", list(new.values()))
            conn.executemany("INSERT INTO metrics (sweep, key, name, value) VALUES (?, ?, ?, ?)",
                             [(r["sweep"], r["key"], m, r[m]) for m in old
                              if r.get(m) is not None])
        conn.execute("DROP TABLE runs_v0")


def _counts_metrics(counts, workload: str = "") -> dict:
    """The plugin's counts as metrics. Instructions are the ROI's, as
    executed, so they stay comparable with gem5's committed count (gem5
    takes its own interrupts in its ROI). The user-access counts are the
    calls' own: what the ROI's interrupts ran is taken out (on x86 each
    brings a clac, an lfence and rep movs of its own, and QEMU delivers
    them by host time), which makes them exact; interrupts_taken and
    interrupt_insns say how much that was."""
    if not counts:
        return {}
    insns = counts.get("insns", {})
    out = {"insns_total": insns.get("total"), "insns_user": insns.get("user"),
           "insns_kernel": insns.get("kernel")}
    irq = counts.get("interrupts")
    if irq:
        out.update(interrupts_taken=irq.get("taken"), interrupt_insns=irq.get("insns"))
    counts = calls_own(counts, workload)
    x86 = counts.get("x86")
    if x86:
        rep = x86.get("rep", {})
        out.update(stac=x86.get("stac"), clac=x86.get("clac"), lfence=x86.get("lfence"),
                   rep_executions=sum(r.get("executions", 0) for r in rep.values()),
                   rep_iterations=sum(r.get("iterations", 0) for r in rep.values()),
                   rep_cmps_iterations=rep.get("cmps", {}).get("iterations", 0),
                   rep_movs_iterations=rep.get("movs", {}).get("iterations", 0),
                   rep_stos_iterations=rep.get("stos", {}).get("iterations", 0))
    arm = counts.get("arm64")
    if arm:
        out.update(pan_writes=arm.get("pan_set_0", 0) + arm.get("pan_set_1", 0)
                   + arm.get("pan_msr_reg", 0),
                   ldtr=arm.get("ldtr"), sttr=arm.get("sttr"))
    return out


def calls_own(counts: dict, workload: str = "") -> dict:
    """The plugin's counts with the user-access facts (its "x86" or
    "arm64" part) less what the ROI's interrupts ran: the calls' own; for
    a whole-system workload (script.WHOLE_SYSTEM), the counts as they are."""
    if workload in script.WHOLE_SYSTEM:
        return counts
    irq = counts.get("interrupts") or {}
    return {**counts, **{arch: _less(counts[arch], irq.get(arch, {}))
                         for arch in ("x86", "arm64") if arch in counts}}


def _less(counts: dict, part: dict) -> dict:
    """counts - part, key by key, through nested dicts (the rep kinds)."""
    return {k: _less(v, part.get(k, {})) if isinstance(v, dict) else v - part.get(k, 0)
            for k, v in counts.items()}


def record_metrics(record: dict) -> dict:
    """Every number a finished record carries, by metric name."""
    res = record["result"]
    out = {"roi_ns": res.get("roi_ns"), "boot_s": record.get("boot_to_result_seconds")}
    out.update(_counts_metrics(record.get("counts"), res.get("workload", "")))
    # stat-namelen: the time per call at each name length, one metric each.
    lens, per_len = res.get("name_lens"), res.get("per_len_ns")
    if lens and per_len:
        out.update({f"ns_at_len_{n}": v for n, v in zip(range(lens[0], lens[1] + 1), per_len)})
    # probe: its figures (cycles under gem5's x86, probe_unit says).
    out.update({k: v for k, v in res.items() if k.startswith("probe_")
                and isinstance(v, (int, float)) and not isinstance(v, bool)})
    # gem5's statistics under their metric names (lab/gem5_statistics.py).
    summary = (record.get("gem5") or {}).get("summary") or {}
    out.update({name: summary.get(k) for k, name in gem5_statistics.METRICS.items() if k in summary})
    out.update(profile_metrics((record.get("gem5") or {}).get("commit_profile")))
    return {k: v for k, v in out.items() if v is not None}


def profile_metrics(prof) -> dict:
    """A gem5 commit profile as metrics, per kernel function f:
    cycles@f, insts@f and toggle_cycles@f (the cycles on its STAC/CLAC)."""
    out = {}
    for name, (cycles, insts, toggles) in ((prof or {}).get("symbols") or {}).items():
        out.update({f"cycles@{name}": cycles, f"insts@{name}": insts,
                    f"toggle_cycles@{name}": toggles})
    return out


def _insert(conn, row: dict, metrics: dict, symbols: dict) -> None:
    cols = [c for c in COLUMNS if c in row]
    with conn:  # one transaction: the row, its metrics and symbols land together
        conn.execute(f"INSERT OR REPLACE INTO runs ({', '.join(cols)}) "
                     f"VALUES ({', '.join('?' for _ in cols)})", [row[c] for c in cols])
        for table in ("metrics", "symbols"):
            conn.execute(f"DELETE FROM {table} WHERE sweep=? AND key=?",
                         (row["sweep"], row["key"]))
        conn.executemany("INSERT INTO metrics (sweep, key, name, value) VALUES (?, ?, ?, ?)",
                         [(row["sweep"], row["key"], n, v) for n, v in metrics.items()])
        conn.executemany("INSERT INTO symbols (sweep, key, symbol, insns) VALUES (?, ?, ?, ?)",
                         [(row["sweep"], row["key"], s, n) for s, n in symbols.items()])


def row_of(sweep: str, record: dict, params: dict = None, twin_of: str = None) -> dict:
    """The store's row of a finished record: its columns (twin_of, the
    point's, from the sweep that ran it; warming and sampling read from
    the record, once) and every metric it carries."""
    res, prov, point = record["result"], record["provenance"], record["point"]
    simulator = prov["simulator"]
    return dict(sweep=sweep, key=record["key"], status="ok",
                params=json.dumps(params or {}, sort_keys=True),
                ops=res["ops"], errors=res["errors"], checksum=res["checksum"],
                kernel_version=prov["kernel"]["source"]["version"],
                simulator=simulator.get("name", "qemu"),
                simulator_version=simulator.get("version"),
                cache=point.get("cache"), smap_model=point.get("smap_model"),
                twin_of=twin_of, warming=results.warming_of(record),
                sampling=results.sampling_of(record),
                record=json.dumps(record, sort_keys=True),
                recorded_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                **{k: point[k] for k in ("arch", "variant", "workload", "backend", "profile")})


def add_record(conn, sweep: str, record: dict, params: dict = None,
               twin_of: str = None) -> None:
    """A finished point."""
    _insert(conn, row_of(sweep, record, params, twin_of), record_metrics(record),
            (record.get("counts") or {}).get("symbols", {}))


def from_record(record: dict, sweep: str = "", params: dict = None,
                twin_of: str = None) -> results.Run:
    """A finished record straight from the run stage, typed as the store
    would hand it out (a run just made, before or without a store)."""
    return results.from_row(dict(row_of(sweep, record, params, twin_of),
                                 **record_metrics(record)))


# -- named selectors ----------------------------------------------------------

def newest_per_experiment(runs) -> list:
    """One run per experiment (results.Run.experiment), the most recently
    recorded: a table that judges experiments shows each once, as its last
    run gave it. A run with a gem5 commit profile stays over a later one
    without, where both measured the same cycles: the profile does not
    change the timing (strncpy-smap's storm and the seeds' are the same
    cycles), and the share tables need it. And, as one_per_key keeps it,
    a run at its workload's defaults (no sweep axis set a parameter)
    stays over a later one of the same experiment whose sweep named the
    default values: the tables that read default-parameter runs only
    must find the experiment whichever sweep ran last (seeds' Arm statx
    pair and warmup-roi's 2,000-call points, each its own image and so
    its own run key, re-published on 2026-12-02)."""
    out = {}
    for r in sorted(runs, key=lambda r: r.recorded_at or ""):
        kept = out.get(r.experiment)
        if kept and _profiled(kept) and not _profiled(r) and kept.get("cycles") == r.get("cycles"):
            continue
        if kept and _plain_over_named(kept, r):
            continue
        out[r.experiment] = r
    return list(out.values())


def by_experiment(runs) -> dict:
    """experiment -> its runs, oldest first."""
    out = {}
    for r in sorted(runs, key=lambda r: r.recorded_at or ""):
        out.setdefault(r.experiment, []).append(r)
    return out


def _plain_over_named(kept, later) -> bool:
    """Whether `kept`, a run at its workload's defaults, stays over
    `later`, the same run or experiment from a sweep that named the
    default values: the tables that read default-parameter runs only
    must find it whichever sweep ran last."""
    return kept.default_params and not later.default_params


def _profiled(run) -> bool:
    """Whether a run holds a commit profile's cycles per function."""
    return any(k.startswith("cycles@") for k in run)


def twin_of(run: results.Run, runs) -> results.Run:
    """The newest QEMU twin a gem5 sweep ran beside a gem5 run's boot
    group (_twins_of: labelled "<cache>/<model or ->" in its twin_of, the
    same kernel, job and CPUID), or None: a model QEMU cannot run, such as
    serialize, has none."""
    found = _twins_of(run, runs)
    return found[-1] if found else None


def _twins_of(run: results.Run, runs) -> list:
    """Every QEMU twin of `run`, oldest first: labelled with its cache and
    model, of the same kernel and job (the job's own parameters too:
    statx-loop on a NULL path is another call than on an empty one), on a
    guest of the same CPUID (a sweep that labels a Skylake-CPUID twin with
    the generic cache's label is another machine's)."""
    label = f"{run['cache']}/{run['smap_model'] or '-'}"
    return sorted((r for r in runs if r.qemu and r.twin_of == label
                   and (r.point.arch, r.point.variant, r.point.workload, r.get("params"),
                        r.point.job_params, r.cpuid)
                   == (run.point.arch, run.point.variant, run.point.workload, run.get("params"),
                       run.point.job_params, run.cpuid)),
                  key=lambda r: r.recorded_at or "")


def counted_twin(run: results.Run, runs) -> results.Run:
    """The newest twin of `run` the plugin counted (its instructions), else
    None: the work of the very machine the gem5 run is, since QEMU's CPU
    model follows the machine's (the era's CPUID switches the kernel's
    copies, so the same kernel runs other instructions on the generic
    machine's twin)."""
    counted = [r for r in _twins_of(run, runs) if r.get("insns_total")]
    return counted[-1] if counted else None


def twins(runs, arch: str, smap_model: str) -> dict:
    """(variant, job name) -> the counted QEMU twin of the gem5 points
    under `smap_model` on `arch`, at default workload parameters (any boot
    group's: the kernel, image and model are the same). The job's name is
    PointView.job_name (readlink-ext4 for readlink-loop on ext4)."""
    return {(r.point.variant, r.point.job_name): r for r in runs
            if r.qemu and r.point.arch == arch and r.twin_of
            and r.point.smap_model == smap_model and r.get("insns_total")
            and r.default_params}


def add_failure(conn, sweep: str, key: str, point: dict, error: str, log: str,
                params: dict = None) -> None:
    """A failed point: kept so the sweep's end lists it and a rerun retries it."""
    row = dict(sweep=sweep, key=key, status="failed", error=error, log=log,
               params=json.dumps(params or {}, sort_keys=True),
               recorded_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **point)
    _insert(conn, row, {}, {})


def set_plan(conn, sweep: str, keys: list, only_arch: str = None) -> None:
    """The run keys a sweep file expands to now, so a report shows exactly
    its points (an edited sweep file leaves older rows behind). A run of
    one arch's points (`sweep --arch`, where gem5 is built for one ISA)
    replaces only that arch's part of the plan: the other arch's rows stay
    in the report."""
    if only_arch:
        arch_of = dict(conn.execute("SELECT key, arch FROM runs WHERE sweep=?", (sweep,)))
        keys = set(keys) | {k for k in plan(conn, sweep) or ()
                            if arch_of.get(k, only_arch) != only_arch}
    with conn:
        conn.execute("INSERT OR REPLACE INTO plans (sweep, keys, planned_at) VALUES (?, ?, ?)",
                     (sweep, json.dumps(sorted(keys)),
                      time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())))


def plan(conn, sweep: str):
    row = conn.execute("SELECT keys FROM plans WHERE sweep=?", (sweep,)).fetchone()
    return set(json.loads(row["keys"] if isinstance(row, sqlite3.Row) else row[0])) \
        if row else None


def _with_metrics(conn, runs: list, sweep: str = None) -> list:
    """Each run's columns and its metrics (None for a known one it lacks)."""
    out = {(r["sweep"], r["key"]): dict(dict.fromkeys(KNOWN_METRICS), **dict(r)) for r in runs}
    query = "SELECT sweep, key, name, value FROM metrics" + (" WHERE sweep=?" if sweep else "")
    for m in conn.execute(query, (sweep,) if sweep else ()):
        row = out.get((m["sweep"], m["key"]))
        if row is not None:
            v = m["value"]
            row[m["name"]] = int(v) if v is not None and float(v).is_integer() \
                and m["name"] != "ipc" else v
    return list(out.values())


def rows(conn, sweep: str, status: str = "ok") -> list:
    """A sweep's runs (results.Run), by arch, workload, params, variant."""
    cur = conn.execute("SELECT * FROM runs WHERE sweep=? AND status=? "
                       "ORDER BY arch, workload, params, variant", (sweep, status))
    return [results.from_row(r) for r in _with_metrics(conn, cur.fetchall(), sweep)]


def all_rows(conn, status: str = "ok") -> list:
    """Every sweep's runs, one per run key (a run in two sweeps is one run)."""
    cur = conn.execute("SELECT * FROM runs WHERE status=? ORDER BY recorded_at", (status,))
    return one_per_key(results.from_row(r) for r in _with_metrics(conn, cur.fetchall()))


def one_per_key(runs) -> list:
    """One run per run key, the last of each unless an earlier one has the
    workload's default parameters: a sweep whose axis names a default value
    (warmup-functional's run.warmup = 200) ran the same run as a sweep
    that names none, and the tables that read default-parameter runs
    (the scorecard's) must find it whichever sweep came last."""
    out = {}
    for r in runs:
        kept = out.get(r.key)
        if kept is None or not _plain_over_named(kept, r):
            out[r.key] = r
    return list(out.values())


def symbols(conn, sweep: str, key: str) -> dict:
    cur = conn.execute("SELECT symbol, insns FROM symbols WHERE sweep=? AND key=?", (sweep, key))
    return {r["symbol"]: r["insns"] for r in cur.fetchall()}


def ingest_one(path: Path, fn, *args, **kw) -> None:
    """Open, write one point, close: what each finished point does, so a
    crash loses nothing already written."""
    with closing(connect(path)) as conn:
        fn(conn, *args, **kw)
