"""The results store: rows land whole, pandas-shaped, and two concurrent
writer processes on one file lose nothing."""

import json
import multiprocessing
import sqlite3

from analysis import store


def _record(key, variant="stock", checksum="00000000000000aa", stac=10):
    return {"key": key,
            "point": {"arch": "x86_64", "variant": variant, "workload": "statx-loop",
                      "backend": "qemu", "profile": "x86_64-smap"},
            "result": {"ops": 10, "errors": 0, "checksum": checksum, "roi_ns": 1000},
            "counts": {"insns": {"total": 5000, "user": 1000, "kernel": 4000},
                       "symbols": {"cp_statx": 900, "vfs_statx": 300},
                       "x86": {"stac": stac, "clac": stac,
                               "rep": {"movs": {"executions": 2, "iterations": 30}}}},
            "boot_to_result_seconds": 1.0,
            "provenance": {"kernel": {"source": {"version": "6.1.192-2"}},
                           "simulator": {"version": "QEMU emulator version 7.2.22"}}}


def test_record_round_trip(tmp_path):
    db = tmp_path / "r.sqlite"
    store.ingest_one(db, store.add_record, "s", _record("k1"), {"tree.depth": "2"})
    store.ingest_one(db, store.add_failure, "s", "k2",
                     {"arch": "arm64", "variant": "stock", "workload": "fstat-loop",
                      "backend": "qemu", "profile": "arm64-pan"}, "timed out", "/x/console.log")
    conn = store.connect(db)
    ok = store.rows(conn, "s")
    assert len(ok) == 1 and ok[0]["stac"] == 10 and ok[0]["rep_movs_iterations"] == 30
    assert ok[0]["insns_kernel"] == 4000 and json.loads(ok[0]["params"]) == {"tree.depth": "2"}
    assert json.loads(ok[0]["record"])["key"] == "k1"
    assert store.symbols(conn, "s", "k1") == {"cp_statx": 900, "vfs_statx": 300}
    failed = store.rows(conn, "s", "failed")
    assert failed[0]["error"] == "timed out" and failed[0]["log"] == "/x/console.log"
    # A rerun that succeeds replaces the failure.
    store.add_record(conn, "s", _record("k2"))
    assert store.rows(conn, "s", "failed") == []


def _writer(db, prefix, n):
    for i in range(n):
        store.ingest_one(db, store.add_record, "s", _record(f"{prefix}{i}"))


def test_two_processes_write_concurrently(tmp_path):
    db = tmp_path / "r.sqlite"
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(db, p, 60)) for p in ("a", "b")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 120
    assert conn.execute("SELECT count(*) FROM symbols").fetchone()[0] == 240
