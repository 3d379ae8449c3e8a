"""The results store: rows land whole, pandas-shaped, come back as typed
runs (the point's view beside one backend's result), and two concurrent
writer processes on one file lose nothing."""

import json
import multiprocessing
import sqlite3

import pytest

from analysis import results, store


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
    assert ok[0].key == "k1" and ok[0].qemu.symbol("cp_statx") == 900 and ok[0].gem5 is None
    # The record is read once, into the run's typed fields; its row gives
    # no "record" or "backend" to read around them.
    assert ok[0].point.backend == "qemu" and "record" not in ok[0] and "backend" not in ok[0]
    with pytest.raises(KeyError, match="typed fields"):
        ok[0]["backend"]
    assert store.symbols(conn, "s", "k1") == {"cp_statx": 900, "vfs_statx": 300}
    failed = store.rows(conn, "s", "failed")
    assert failed[0]["error"] == "timed out" and failed[0]["log"] == "/x/console.log"
    # A rerun that succeeds replaces the failure.
    store.add_record(conn, "s", _record("k2"))
    assert store.rows(conn, "s", "failed") == []


def test_user_access_counts_are_the_calls_own(tmp_path):
    """The plugin's interrupt share comes out of the user-access counts
    (exact), not out of the instructions (comparable with gem5's)."""
    db = tmp_path / "r.sqlite"
    rec = _record("k1", stac=20)
    rec["counts"]["x86"]["clac"] = 23
    rec["counts"]["interrupts"] = {"taken": 3, "insns": 700, "x86": {
        "stac": 0, "clac": 3, "rep": {"movs": {"executions": 2, "iterations": 12}}}}
    store.ingest_one(db, store.add_record, "s", rec)
    row = store.rows(store.connect(db), "s")[0]
    assert (row["stac"], row["clac"]) == (20, 20)
    assert (row["rep_executions"], row["rep_movs_iterations"]) == (0, 18)
    assert (row["interrupts_taken"], row["interrupt_insns"]) == (3, 700)
    assert row["insns_total"] == 5000


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


def test_metrics_are_rows_and_a_new_metric_needs_no_column(tmp_path):
    db = tmp_path / "r.sqlite"
    rec = _record("k1")
    rec["gem5"] = {"summary": {"cycles": 123456, "insts": 1000, "ipc": 0.5,
                               "smap_faults": 0}}
    store.ingest_one(db, store.add_record, "s", rec)
    conn = store.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == store.VERSION
    names = {r[0] for r in conn.execute("SELECT name FROM metrics WHERE key='k1'")}
    assert {"stac", "insns_total", "cycles", "gem5_insts", "ipc", "smap_faults"} <= names
    row = store.rows(conn, "s")[0]
    assert row["cycles"] == 123456 and row["ipc"] == 0.5 and row["smap_faults"] == 0
    assert row["pan_writes"] is None  # a known metric this run has not
    columns = {r[1] for r in conn.execute("PRAGMA table_info(runs)")}
    assert not {"stac", "cycles", "smap_faults"} & columns


def test_a_version_0_store_is_migrated_without_loss(tmp_path):
    # The wide layout of version 0: one column per metric.
    db = tmp_path / "r.sqlite"
    old = sqlite3.connect(db)
    old.executescript("""
        CREATE TABLE runs (sweep TEXT NOT NULL, key TEXT NOT NULL, status TEXT NOT NULL,
            arch TEXT, variant TEXT, workload TEXT, backend TEXT, profile TEXT, params TEXT,
            ops INTEGER, errors INTEGER, checksum TEXT, roi_ns INTEGER, stac INTEGER,
            cycles INTEGER, qemu_version TEXT, gem5_version TEXT, record TEXT,
            PRIMARY KEY (sweep, key));
        INSERT INTO runs VALUES ('s', 'q1', 'ok', 'x86_64', 'stock', 'statx-loop', 'qemu',
            'x86_64-smap', '{}', 10, 0, 'aa', 1000, 20, NULL, 'QEMU 7.2', NULL, '{}');
        INSERT INTO runs VALUES ('s', 'g1', 'ok', 'x86_64', 'stock', 'statx-loop', 'gem5',
            'x86_64-o3-default', '{}', 10, 0, 'aa', 900, NULL, 5000, NULL, '24.0.0.1', '{}');
    """)
    old.commit()
    old.close()
    conn = store.connect(db)
    rows = {r["key"]: r for r in store.rows(conn, "s")}
    assert rows["q1"]["stac"] == 20 and rows["q1"]["roi_ns"] == 1000
    assert rows["q1"]["simulator_version"] == "QEMU 7.2"
    assert rows["g1"]["cycles"] == 5000 and rows["g1"]["simulator"] == "gem5"
    assert rows["g1"]["simulator_version"] == "24.0.0.1"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == store.VERSION
    conn.close()
    # A second open finds version 2 and changes nothing.
    assert len(store.rows(store.connect(db), "s")) == 2


WARMING_COLUMN = "    warming TEXT,                    -- gem5: none (cold ROI checkpoint) | functional\n"
SAMPLING_COLUMN = "    sampling TEXT,                   -- gem5: none (whole ROI) | simpoint (weighted points)\n"


@pytest.mark.parametrize("version", [2, 3])
def test_older_stores_gain_the_warming_and_sampling_columns(tmp_path, version):
    import sqlite3
    db = tmp_path / f"v{version}.sqlite"
    old = sqlite3.connect(str(db))
    schema = store.SCHEMA.replace(SAMPLING_COLUMN, "")
    assert schema != store.SCHEMA
    old.executescript(schema.replace(WARMING_COLUMN, "") if version == 2 else schema)
    old.execute("INSERT INTO runs (sweep, key, status, backend) VALUES ('s', 'g1', 'ok', 'gem5')")
    old.execute("INSERT INTO runs (sweep, key, status, backend) VALUES ('s', 'q1', 'ok', 'qemu')")
    if version == 3:
        old.execute("UPDATE runs SET warming='functional' WHERE key='g1'")
    old.execute(f"PRAGMA user_version={version}")
    old.commit()
    old.close()
    conn = store.connect(db)
    rows = {r["key"]: r for r in store.rows(conn, "s")}
    # Every gem5 run before the warming column was a cold one, and every one
    # before the sampling column simulated its whole ROI; QEMU runs have none.
    assert rows["g1"]["warming"] == ("none" if version == 2 else "functional")
    assert rows["g1"]["sampling"] == "none"
    assert rows["q1"]["warming"] is None and rows["q1"]["sampling"] is None
    assert conn.execute("PRAGMA user_version").fetchone()[0] == store.VERSION == 4
    conn.close()


def test_a_one_arch_run_keeps_the_other_archs_part_of_the_plan(tmp_path):
    # gem5 is often built for one ISA at a time, so a sweep holding both
    # runs as `sweep --arch x86_64`, later `--arch arm64`: the second run
    # must not drop the first arch's rows from the report.
    db = tmp_path / "r.sqlite"
    arm = _record("a1")
    arm["point"]["arch"] = "arm64"
    for r in (_record("x1"), _record("x2"), arm):
        store.ingest_one(db, store.add_record, "s", r)
    store.ingest_one(db, store.set_plan, "s", ["x1", "x2"], "x86_64")
    store.ingest_one(db, store.set_plan, "s", ["a1"], "arm64")
    conn = store.connect(db)
    assert store.plan(conn, "s") == {"x1", "x2", "a1"}
    # Rerunning one arch replaces that arch's part: x2 left the sweep file.
    store.set_plan(conn, "s", ["x1"], "x86_64")
    assert store.plan(conn, "s") == {"x1", "a1"}
    # A run of the whole file replaces the whole plan.
    store.set_plan(conn, "s", ["x1"])
    assert store.plan(conn, "s") == {"x1"}


def test_a_run_in_two_sweeps_is_one_row_with_the_default_parameters_if_either_has_them():
    # warmup-functional names run.warmup = 200, the script's default, so its
    # run is seeds' run under another label; the scorecard reads rows with
    # default parameters and must find it in either order.
    named = results.from_row({"key": "k", "params": '{"run.warmup": "200"}',
                              "sweep": "warmup-functional"})
    plain = results.from_row({"key": "k", "params": "{}", "sweep": "seeds"})
    other = results.from_row({"key": "j", "params": '{"run.warmup": "0"}',
                              "sweep": "warmup-functional"})
    for order in ([named, plain, other], [plain, named, other]):
        rows = store.one_per_key(order)
        assert sorted((r["key"], r["sweep"]) for r in rows) == [("j", "warmup-functional"),
                                                                ("k", "seeds")]


def test_a_later_run_without_a_commit_profile_keeps_the_profiled_one_of_the_same_cycles():
    # strncpy-smap profiled the storm that the seeds sweep later ran
    # again, unprofiled, to the same cycles: the share tables must keep
    # the profile. A later run that measured other cycles replaces it.
    record = json.dumps({"provenance": {"simulator": {"cpu_preset": {"name": "p"}},
                                        "image": {"job": {"params": {"passes": 4}}}}})

    def row(at, cycles, profiled):
        r = {"arch": "x86_64", "variant": "stock", "workload": "lstat-storm",
             "backend": "gem5", "profile": "p", "cache": "c", "smap_model": "smap",
             "warming": "none", "sampling": "none", "record": record, "recorded_at": at,
             "cycles": cycles}
        return results.from_row(dict(r, **{"cycles@strncpy_from_user": 400}) if profiled else r)
    profiled = row("2026-11-26T15:30", 4_540_034, True)
    same = row("2026-11-26T16:33", 4_540_034, False)
    assert store.newest_per_experiment([same, profiled]) == [profiled]
    other = row("2026-11-26T16:33", 4_600_000, False)
    assert store.newest_per_experiment([profiled, other]) == [other]


def test_a_later_run_that_named_the_default_parameters_keeps_the_plain_one():
    # seeds ran Arm's statx pair at statx-loop's defaults; warmup-roi ran
    # the same experiment naming run.iterations = 2000, later and on its
    # own image (another run key): the Arm table reads default-parameter
    # runs only, and lost the pair when the named run replaced the plain
    # one (2026-12-02). A later plain run still replaces an earlier one.
    record = json.dumps({"provenance": {"simulator": {"cpu_preset": {"name": "p"}},
                                        "image": {"job": {"params": {"iterations": 2000}}}}})

    def row(key, at, params):
        return results.from_row({"key": key, "arch": "arm64", "variant": "stock",
                                 "workload": "statx-loop", "backend": "gem5", "profile": "p",
                                 "cache": "c", "smap_model": "", "warming": "functional",
                                 "sampling": "none", "record": record, "recorded_at": at,
                                 "params": params, "cycles": 1_936_224})
    plain = row("k1", "2026-12-02T01:22", "{}")
    named = row("k2", "2026-12-02T06:26", '{"run.iterations": "2000"}')
    assert plain.experiment == named.experiment
    assert store.newest_per_experiment([plain, named]) == [plain]
    later = row("k3", "2026-12-02T07:00", "{}")
    assert store.newest_per_experiment([plain, named, later]) == [later]


def test_a_gem5_run_is_typed_with_its_machine_as_recorded(tmp_path):
    # The CPU preset's values and where they came from are the record's,
    # whatever the preset files say today.
    db = tmp_path / "r.sqlite"
    rec = _record("g1")
    rec["point"].update(backend="gem5", profile="x86_64-westmere-calibrated", cache="w",
                        smap_model="none")
    rec["provenance"]["simulator"].update(
        name="gem5", binary="gem5.fast",
        cpu_preset={"name": "x86_64-westmere-calibrated", "params": {"numROBEntries": 128},
                    "documented": {"add": 1}},
        cpu_origin={"calibrated_from": "x86_64-westmere", "fitted_on": ["004_x"]},
        cache_preset={"name": "w", "l1d_latency": 4})
    rec["gem5"] = {"summary": {"cycles": 5000, "insts": 900}, "checkpoint": "c1",
                   "warming": {"scheme": "functional", "boot_insts": 7}}
    del rec["counts"]
    store.ingest_one(db, store.add_record, "s", rec)
    (run,) = store.rows(store.connect(db), "s")
    assert run.qemu is None and run.gem5.binary == "gem5.fast" and run.gem5.checkpoint == "c1"
    assert run.point.warming == "functional" and run.scheme == "functional"
    m = run.point.machine
    # What the preset left out is the knob's default (lab/gem5_knobs.py).
    assert (m.base, m.fitted_on, m.o3_param("numROBEntries"), m.o3_param("renameWidth"),
            m.kernel_entry, m.choice("stac_clac")) == \
        ("x86_64-westmere", ("004_x",), 128, 8, "serialize", "serialize")
    assert (m.documented["add"], m.cache["l1d_latency"], m.cache_name) == (1, 4, "w")
    # A record from before cpu_origin: a calibrated preset's origin as it
    # was then (results.ORIGIN_BEFORE_RECORDED), never today's file.
    del rec["provenance"]["simulator"]["cpu_origin"]
    old = store.from_record(rec, "s")
    assert old.point.machine.base == "x86_64-westmere"
    assert old.point.machine.fitted_on == ("004_19de4fc19931aa23",)
    assert old.experiment == run.experiment


def test_the_twin_of_a_gem5_run_is_the_qemu_run_of_its_boot_group(tmp_path):
    def rec(key, backend, profile):
        r = _record(key)
        r["point"].update(backend=backend, profile=profile, cache="c", smap_model="smap")
        return r
    db = tmp_path / "r.sqlite"
    store.ingest_one(db, store.add_record, "s", rec("q", "qemu", "x86_64-gem5-smap"),
                     twin_of="c/smap")
    store.ingest_one(db, store.add_record, "s", rec("u", "qemu", "x86_64-smap"))
    store.ingest_one(db, store.add_record, "s", rec("g", "gem5", "x86_64-o3-default"))
    runs = {r.key: r for r in store.rows(store.connect(db), "s")}
    assert store.twin_of(runs["g"], runs.values()) is runs["q"]
    assert runs["q"].twin_of == "c/smap" and runs["u"].twin_of is None
    assert store.twins(runs.values(), "x86_64", "smap") == {("stock", "statx-loop"): runs["q"]}


def test_a_runs_preset_and_overrides_are_typed_whatever_its_records_age():
    """A record holds the CPU preset and its overrides as typed fields
    (since 2026-11-28); one published before holds the name alone, read
    once, in analysis/results.py, to the same fields."""
    from analysis import results
    typed = {"name": "x86_64-skylake+fetchWidth=8+fu_count.WritePort=4+stac_clac=serialize",
             "preset": "x86_64-skylake",
             "overrides": {"fetchWidth": 8, "fu_count.WritePort": 4, "stac_clac": "serialize"}}
    for cpu in (typed, {k: v for k, v in typed.items() if k == "name"}):
        preset, overrides = results.preset_of(cpu, typed["name"])
        assert (preset, dict(overrides)) == ("x86_64-skylake", typed["overrides"])
    assert results.preset_of({}, "x86_64-tcg") == ("x86_64-tcg", {})  # a QEMU profile
