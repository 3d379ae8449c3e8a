"""The results store: one SQLite file, one row per (sweep, point).

Why SQLite, not Parquet: it is in Python's standard library (no pyarrow to
install), pandas reads it (`pd.read_sql("select * from runs", conn)`), and
it gives what a results store on a shared cache needs: atomic
transactions, and safe concurrent writers (two run.py processes ingesting
at once wait on SQLite's lock; neither corrupts the file). Parquet files
are write-once; appending a point would mean rewriting or a file per point.

Tables:
  runs     one row per point: axes, status, headline counts as columns
           (so a plain SELECT answers most questions), and the full record
           JSON (result, counts, provenance) in `record`.
  symbols  per-point kernel instruction counts by symbol, from the plugin.
"""

import json
import sqlite3
import time
from contextlib import closing
from pathlib import Path

from analysis import gem5_stats
from lab import cache

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    sweep TEXT NOT NULL,
    key TEXT NOT NULL,
    status TEXT NOT NULL,            -- ok | failed
    arch TEXT, variant TEXT, workload TEXT, backend TEXT, profile TEXT,
    params TEXT,                     -- JSON of swept workload parameters
    ops INTEGER, errors INTEGER, checksum TEXT, roi_ns INTEGER, boot_s REAL,
    insns_total INTEGER, insns_user INTEGER, insns_kernel INTEGER,
    stac INTEGER, clac INTEGER, lfence INTEGER,
    rep_executions INTEGER, rep_iterations INTEGER,
    rep_cmps_iterations INTEGER, rep_movs_iterations INTEGER, rep_stos_iterations INTEGER,
    pan_writes INTEGER, ldtr INTEGER, sttr INTEGER,
    kernel_version TEXT, qemu_version TEXT,
    cache TEXT, smap_model TEXT, twin_of TEXT,
    cycles INTEGER, gem5_insts INTEGER, gem5_ops INTEGER, ipc REAL,
    branch_mispredicts INTEGER, squashed_insts INTEGER,
    l1d_misses INTEGER, l1i_misses INTEGER, l2_misses INTEGER, gem5_version TEXT,
    error TEXT, log TEXT,
    record TEXT,
    recorded_at TEXT,
    PRIMARY KEY (sweep, key)
);
CREATE TABLE IF NOT EXISTS plans (
    sweep TEXT PRIMARY KEY, keys TEXT NOT NULL, planned_at TEXT
);
CREATE TABLE IF NOT EXISTS symbols (
    sweep TEXT NOT NULL, key TEXT NOT NULL, symbol TEXT NOT NULL, insns INTEGER,
    PRIMARY KEY (sweep, key, symbol)
);
"""

COLUMNS = ("sweep", "key", "status", "arch", "variant", "workload", "backend", "profile",
           "params", "ops", "errors", "checksum", "roi_ns", "boot_s",
           "insns_total", "insns_user", "insns_kernel", "stac", "clac", "lfence",
           "rep_executions", "rep_iterations", "rep_cmps_iterations",
           "rep_movs_iterations", "rep_stos_iterations",
           "pan_writes", "ldtr", "sttr", "kernel_version", "qemu_version",
           "cache", "smap_model", "twin_of", "cycles", "gem5_insts", "gem5_ops", "ipc",
           "branch_mispredicts", "squashed_insts", "l1d_misses", "l1i_misses", "l2_misses",
           "gem5_version",
           "error", "log", "record", "recorded_at")


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
        conn.executescript(SCHEMA)
        _migrate(conn)
    conn.row_factory = sqlite3.Row
    return conn


def _migrate(conn) -> None:
    """Add columns a newer schema has to a store made by an older one."""
    have = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
    for line in SCHEMA.split("CREATE TABLE IF NOT EXISTS plans")[0].splitlines():
        for part in line.split(","):
            words = part.split()
            if len(words) >= 2 and words[0] in COLUMNS and words[0] not in have:
                with conn:
                    conn.execute(f"ALTER TABLE runs ADD COLUMN {words[0]} {words[1]}")
                have.add(words[0])


def _counts_columns(counts) -> dict:
    if not counts:
        return {}
    insns = counts.get("insns", {})
    out = {"insns_total": insns.get("total"), "insns_user": insns.get("user"),
           "insns_kernel": insns.get("kernel")}
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


def _insert(conn, row: dict, symbols: dict) -> None:
    values = [row.get(c) for c in COLUMNS]
    with conn:  # one transaction: the row and its symbols land together
        conn.execute(f"INSERT OR REPLACE INTO runs ({', '.join(COLUMNS)}) "
                     f"VALUES ({', '.join('?' for _ in COLUMNS)})", values)
        conn.execute("DELETE FROM symbols WHERE sweep=? AND key=?", (row["sweep"], row["key"]))
        conn.executemany("INSERT INTO symbols (sweep, key, symbol, insns) VALUES (?, ?, ?, ?)",
                         [(row["sweep"], row["key"], s, n) for s, n in symbols.items()])


def _gem5_columns(record: dict) -> dict:
    """gem5's ROI statistics, read from the stats.txt the run kept."""
    g = record.get("gem5")
    if not g:
        return {}
    s = gem5_stats.roi_summary(Path(g["stats_file"]))
    return {"cycles": s["cycles"], "gem5_insts": s["insts"], "gem5_ops": s["ops"],
            "ipc": s["ipc"], "branch_mispredicts": s["branch_mispredicts"],
            "squashed_insts": s["squashed_insts"], "l1d_misses": s["l1d_misses"],
            "l1i_misses": s["l1i_misses"], "l2_misses": s["l2_misses"],
            "gem5_version": record["provenance"]["simulator"]["version"]}


def add_record(conn, sweep: str, record: dict, params: dict = None,
               twin_of: str = None) -> None:
    """A finished point."""
    res, prov, point = record["result"], record["provenance"], record["point"]
    counts = record.get("counts") or {}
    simulator = prov["simulator"]
    row = dict(sweep=sweep, key=record["key"], status="ok",
               params=json.dumps(params or {}, sort_keys=True),
               ops=res["ops"], errors=res["errors"], checksum=res["checksum"],
               roi_ns=res["roi_ns"], boot_s=record["boot_to_result_seconds"],
               kernel_version=prov["kernel"]["source"]["version"],
               qemu_version=simulator["version"] if simulator.get("name", "qemu") == "qemu"
               else None,
               cache=point.get("cache"), smap_model=point.get("smap_model"),
               twin_of=twin_of,
               record=json.dumps(record, sort_keys=True),
               recorded_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               **{k: point[k] for k in ("arch", "variant", "workload", "backend", "profile")},
               **_counts_columns(counts), **_gem5_columns(record))
    _insert(conn, row, counts.get("symbols", {}))



def add_failure(conn, sweep: str, key: str, point: dict, error: str, log: str,
                params: dict = None) -> None:
    """A failed point: kept so the sweep's end lists it and a rerun retries it."""
    row = dict(sweep=sweep, key=key, status="failed", error=error, log=log,
               params=json.dumps(params or {}, sort_keys=True),
               recorded_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **point)
    _insert(conn, row, {})


def set_plan(conn, sweep: str, keys: list) -> None:
    """The run keys a sweep file expands to now, so a report shows exactly
    its points (an edited sweep file leaves older rows behind)."""
    with conn:
        conn.execute("INSERT OR REPLACE INTO plans (sweep, keys, planned_at) VALUES (?, ?, ?)",
                     (sweep, json.dumps(sorted(keys)),
                      time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())))


def plan(conn, sweep: str):
    row = conn.execute("SELECT keys FROM plans WHERE sweep=?", (sweep,)).fetchone()
    return set(json.loads(row["keys"] if isinstance(row, sqlite3.Row) else row[0])) \
        if row else None


def rows(conn, sweep: str, status: str = "ok") -> list:
    cur = conn.execute("SELECT * FROM runs WHERE sweep=? AND status=? "
                       "ORDER BY arch, workload, params, variant", (sweep, status))
    return [dict(r) for r in cur.fetchall()]


def all_rows(conn, status: str = "ok") -> list:
    """Every sweep's rows, one per run key (a run in two sweeps is one run)."""
    cur = conn.execute("SELECT * FROM runs WHERE status=? ORDER BY recorded_at", (status,))
    return list({r["key"]: dict(r) for r in cur.fetchall()}.values())


def symbols(conn, sweep: str, key: str) -> dict:
    cur = conn.execute("SELECT symbol, insns FROM symbols WHERE sweep=? AND key=?", (sweep, key))
    return {r["symbol"]: r["insns"] for r in cur.fetchall()}


def ingest_one(path: Path, fn, *args, **kw) -> None:
    """Open, write one point, close: what each finished point does, so a
    crash loses nothing already written."""
    with closing(connect(path)) as conn:
        fn(conn, *args, **kw)
