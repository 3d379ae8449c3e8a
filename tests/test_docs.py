"""The study's published data (docs/data) and the pages made from it: the
pages in git are what the data gives, the data reads back exactly what
the store held, and a bad data file is one line and exit 2."""

import gzip
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from analysis import compare, published, scorecard, store
from lab.errors import UserError

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "docs" / "data"


def _run(*args, cwd=REPO):
    return subprocess.run([sys.executable, str(REPO / "run.py"), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_generated_pages_equal_what_the_data_gives():
    proc = subprocess.run([sys.executable, "docs/generate.py", "--check"], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_published_data_has_the_default_study_with_provenance():
    header, rows = published.load_file(DATA / "default.jsonl.gz")
    assert header["sweep"] == "default" and header["rows"] == len(rows) == 100
    for r in rows:
        prov = r.provenance
        assert prov.kernel["source"]["package"] == "linux-source-6.1"
        assert prov.command and prov.started_at and prov.host
        assert r["simulator_version"] and r["checksum"]
    # Exact counts survive the export: stock statx runs 2 stac per call.
    stock = [r for r in rows if (r["arch"], r["variant"], r["workload"])
             == ("x86_64", "stock", "statx-loop")]
    assert len(stock) == 1 and stock[0]["stac"] / stock[0]["ops"] == 2.0


def test_the_symlink_chapters_counts_are_in_the_published_data():
    # docs/tutorial/symlink.md's exercises: strlen per readlink() in stock
    # (77 instructions for the test tree's link) and none with the cached
    # length; the records keep that symbol's count (SYMBOLS_KEPT).
    _, rows = published.load_file(DATA / "default.jsonl.gz")
    strlen = {r["variant"]: r.qemu.symbol("strlen") / r["ops"] for r in rows if (r["arch"], r["workload"]) == ("x86_64",
                                                                          "readlink-loop")}
    assert (strlen["stock"], strlen["symlink-cachedlen"]) == (77.0, 0)


def test_scorecard_from_the_published_records_on_any_machine(tmp_path):
    # No store in --results: the records alone give the scorecard.
    proc = _run("scorecard", "--records", str(DATA), "--results", str(tmp_path / "none"),
                "--markdown")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == scorecard.markdown(published.load(DATA))
    assert not (tmp_path / "none").exists()


def _record(key, variant="stock", stac=20, cycles=None):
    rec = {"key": key,
           "point": {"arch": "x86_64", "variant": variant, "workload": "statx-loop",
                     "backend": "gem5" if cycles else "qemu", "profile": "x86_64-smap"},
           "result": {"ops": 10, "errors": 0, "checksum": "00000000000000aa", "roi_ns": 1000},
           "counts": {"insns": {"total": 5000, "user": 1000, "kernel": 4000},
                      "symbols": {"cp_statx": 900, "strncpy_from_user": 70},
                      "x86": {"stac": stac, "clac": stac, "rep": {}}},
           "boot_to_result_seconds": 1.0,
           "provenance": {"kernel": {"source": {"version": "6.1.192-2"}},
                          "image": {"job": {"params": {"run.iterations": 10}}},
                          "simulator": {"name": "gem5" if cycles else "qemu",
                                        "version": "7.2", "cpu_preset": {"name": "p"}}}}
    if cycles:
        rec["gem5"] = {"summary": {"cycles": cycles}}
    return rec


def _store_rows(tmp_path, records) -> list:
    db = tmp_path / "r.sqlite"
    for rec in records:
        store.ingest_one(db, store.add_record, "s", rec)
    return store.rows(store.connect(db), "s")


def test_export_round_trip_is_exact_and_byte_stable(tmp_path):
    rows = _store_rows(tmp_path, [_record("k1"), _record("k2", "statx-putuser", 280)])
    a = published.export(rows, "s", tmp_path / "a.jsonl.gz", "cmd")
    header, back = published.load_file(a)
    assert header["rows"] == 2 and [r["key"] for r in back] == ["k1", "k2"]
    assert [(r["stac"], r["insns_kernel"]) for r in back] == [(20, 4000), (280, 4000)]
    # Trimmed: only the per-symbol counts a published table reads, no
    # console log.
    assert dict(back[0].qemu.counts["symbols"]) == {"strncpy_from_user": 70}
    assert "log" not in back[0]
    # The same rows give the same bytes but for the export time.
    b = published.export(list(reversed(rows)), "s", tmp_path / "b.jsonl.gz", "cmd")
    strip = [json.loads(line) for line in gzip.decompress(b.read_bytes()).splitlines()]
    strip_a = [json.loads(line) for line in gzip.decompress(a.read_bytes()).splitlines()]
    strip[0].pop("exported_at"), strip_a[0].pop("exported_at")
    assert strip == strip_a


def test_an_export_names_the_sweep_file_that_made_it_as_it_was(tmp_path):
    # What `./run.py reproduce` needs: the sweep file, and its digest, so
    # a file changed since the export is found out.
    rows = _store_rows(tmp_path, [_record("k1")])
    sweep_file = REPO / "configs" / "sweeps" / "default.toml"
    source = published.sweep_source(sweep_file, REPO)
    assert source == {"sweep_file": "configs/sweeps/default.toml",
                      "sweep_sha256": hashlib.sha256(sweep_file.read_bytes()).hexdigest()}
    header, _ = published.load_file(published.export(rows, "default", tmp_path / "d.jsonl.gz",
                                                     "cmd", source))
    assert header["sweep_file"] == "configs/sweeps/default.toml"
    assert header["sweep_sha256"] == source["sweep_sha256"]


def test_compare_matches_by_experiment_not_key(tmp_path):
    pub = _store_rows(tmp_path / "p", [_record("pub-gem5", cycles=10_000),
                                       _record("pub-qemu")])
    (tmp_path / "m").mkdir()
    mine = _store_rows(tmp_path / "m", [_record("mine-gem5", cycles=10_050),
                                        _record("mine-qemu", stac=21)])
    header, body = compare.table(pub, mine)
    gem5 = next(b for b in body if "gem5" in b[0])
    qemu = next(b for b in body if "qemu" in b[0])
    assert gem5[2:] == ["1,000.0", "1,005.0", "+0.50%", "within 1%"]
    assert qemu[2:] == ["2.00", "2.10", "+5.00%", "differs: exact count"]
    assert len(body) == 2
    header, body = compare.table(pub, [])
    assert {b[-1] for b in body} == {"not run here"}


def _bad_file(tmp_path, name, content: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content)
    return path


@pytest.mark.parametrize("name,content,says", [
    ("notgz.jsonl.gz", b"plain text", "not a whole gzip file"),
    ("truncated.jsonl.gz", None, "not a whole gzip file"),
    ("schema.jsonl.gz", gzip.compress(b'{"schema": "other"}\n'), "no 'uaccess-lab/records'"),
    ("version.jsonl.gz", gzip.compress(
        b'{"schema": "uaccess-lab/records", "version": 99, "rows": 0}\n'), "schema version 99"),
    ("short.jsonl.gz", gzip.compress(
        b'{"schema": "uaccess-lab/records", "version": 1, "rows": 3}\n{}\n'), "says 3 rows"),
    ("row.jsonl.gz", gzip.compress(
        b'{"schema": "uaccess-lab/records", "version": 1, "rows": 1}\n{"key": 1}\n'),
     "line 2 lacks"),
])
def test_a_bad_data_file_is_one_line_and_exit_2(tmp_path, name, content, says):
    if content is None:  # the real file, cut in half
        data = (DATA / "default.jsonl.gz").read_bytes()
        content = data[:len(data) // 2]
    path = _bad_file(tmp_path, name, content)
    for args in (["scorecard", "--records", str(path)], ["compare", "--records", str(path)]):
        proc = _run(*args, "--results", str(tmp_path / "results"))
        assert proc.returncode == 2 and proc.stdout == ""
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and str(path) in lines[0] and says in lines[0], proc.stderr
        assert "re-export" in lines[0] or "not found" in lines[0]
    assert not (tmp_path / "results").exists()


def test_generate_refuses_bad_data_in_one_line(tmp_path):
    _bad_file(tmp_path, "x.jsonl.gz", b"nope")
    proc = subprocess.run([sys.executable, "docs/generate.py", "--check", "--data",
                           str(tmp_path)], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1


def test_export_of_a_sweep_not_in_the_store_writes_nothing(tmp_path):
    results = tmp_path / "results"
    store.ingest_one(results / "results.sqlite", store.add_record, "other", _record("k"))
    proc = _run("export", "configs/sweeps/seeds-era.toml", "--results", str(results),
                "--to", str(tmp_path / "data"))
    assert proc.returncode == 2 and "no finished row of sweep 'seeds-era'" in proc.stderr
    assert not (tmp_path / "data").exists()


def test_exporting_one_arch_keeps_the_other_arch_published(tmp_path):
    # `sweep --arch arm64` then `export`: the Arm half joins the published
    # x86 half instead of replacing it, and the header's command says
    # which arches the file holds.
    arm = _record("k-arm")
    arm["point"]["arch"] = "arm64"
    results, data = tmp_path / "results", tmp_path / "data"
    store.ingest_one(results / "results.sqlite", store.add_record, "seeds", arm)
    x86 = _store_rows(tmp_path, [_record("k-x86")])
    published.export(x86, "seeds", data / "seeds.jsonl.gz", "old")
    proc = _run("export", "configs/sweeps/seeds.toml", "--results", str(results),
                "--to", str(data))
    assert proc.returncode == 0, proc.stderr
    assert "(1 were published already: x86_64)" in proc.stdout
    header, rows = published.load_file(data / "seeds.jsonl.gz")
    assert sorted((r["key"], r["arch"]) for r in rows) == [("k-arm", "arm64"),
                                                          ("k-x86", "x86_64")]
    assert header["command"] == "./run.py sweep configs/sweeps/seeds.toml"
    # Alone, the Arm half says so.
    (data / "seeds.jsonl.gz").unlink()
    assert _run("export", "configs/sweeps/seeds.toml", "--results", str(results),
                "--to", str(data)).returncode == 0
    header, rows = published.load_file(data / "seeds.jsonl.gz")
    assert [r["arch"] for r in rows] == ["arm64"]
    assert header["command"] == "./run.py sweep configs/sweeps/seeds.toml --arch arm64"


def test_the_tutorial_gem5_figures_come_from_published_data(tmp_path):
    # Every bar and point of docs/tutorial/gem5/*.png has its row in the
    # published tutorial-gem5 records, so `python3 docs/figures.py --gem5`
    # redraws them on any machine; a file missing one is refused, not drawn
    # as a zero.
    sys.path.insert(0, str(REPO / "docs"))
    try:
        import figures
    finally:
        sys.path.pop(0)
    rows = figures.gem5_rows(figures.GEM5_DATA)
    smap = {r["variant"]: r["cycles"] / r["ops"] for r in rows
            if r["workload"] == "statx-loop" and r["smap_model"] == "smap"}
    # The smap chapter's numbers (docs/tutorial/smap.md).
    assert (round(smap["stock"]), round(smap["statx-putuser"])) == (1685, 2844)
    header, kept = published.load_file(figures.GEM5_DATA)
    partial = [r for r in kept if not (r["workload"] == "readlink-loop" and r.gem5)]
    bad = tmp_path / "partial.jsonl.gz"
    published.export(partial, header["sweep"], bad, header["command"])
    with pytest.raises(UserError, match="lacks 4 of the figures' gem5 points"):
        figures.gem5_rows(bad)


def test_the_verdict_figure_is_the_scorecard_at_a_glance():
    # Issue 58: a picture of the verdicts. Each point of docs/img/
    # verdicts.png is an at-a-glance cell of the published scorecard, one
    # row per scored claim, and the scorecard page shows it.
    sys.path.insert(0, str(REPO / "docs"))
    try:
        import figures
        import generate
    finally:
        sys.path.pop(0)
    points = dict(figures.verdict_points(figures.DATA))
    header, body = scorecard.machine_table(published.load(figures.DATA))
    assert len(points) == len(body)
    # As the at-a-glance table says them: "1.06x, agrees" and "1.32x,
    # agrees"; the statx seed's latency was fitted on statx-copy.
    generic, era = points["statx-vs-fstat (effect)"]["generic"], \
        points["statx-vs-fstat (effect)"]["era"]
    assert (f"{generic[0]:.2f}", f"{era[0]:.2f}", generic[1]) == ("1.06", "1.32", False)
    assert points["statx-copy (effect)"]["era"][1] is True
    assert sum(len(at) for at in points.values()) == sum(
        cell != "-" for row in body for cell in row[3:5])
    page = (REPO / "docs" / "scorecard.md").read_text()
    assert f"]({generate.VERDICTS_FIGURE})" in page
    assert (REPO / "docs" / generate.VERDICTS_FIGURE) == REPO / "docs" / figures.VERDICTS


def test_a_generated_section_is_the_data_and_its_markers_must_be_there():
    # docs/machines.md's kernel-entry table lies between two marker lines
    # and is what the published kernel-entry rows give; a page that lost
    # its markers is one line naming them, not a silently stale table.
    sys.path.insert(0, str(REPO / "docs"))
    try:
        import generate
    finally:
        sys.path.pop(0)
    by_sweep = published.by_sweep(DATA)
    page = (REPO / "docs" / "machines.md").read_text()
    assert generate.with_sections("machines.md", page, by_sweep) == page
    assert "| stock / statx-loop | sdm | 1,513.9 | 0.90 | 460.0 | 12.0 | 9.0 |" in page
    with pytest.raises(UserError, match="no '<!-- generated: kernel-entry -->'"):
        generate.with_sections("machines.md", "# a page without them\n", by_sweep)
