"""What `make run` ends with and the report opens with
(analysis/findings.py): each variant's exact counts against stock, one
line per mechanism, guest time under TCG last. On store-shaped rows built
here (the counts are the README's statx-loop excerpt and the variant
claims' exact counts), so every cell and line is asserted exactly."""

import json
import re

from analysis import findings, render, report, results, store


def _typed(rows: list) -> list:
    """Store-shaped rows as the store hands them out (typed runs)."""
    return [results.from_row(r) for r in rows]


def _row(arch, variant, workload, ops=1000, params=None, job=None, script=None,
         checksum=None, irq=0, backend="qemu", **per_op):
    """A row as store.rows gives it: counts are per-op values times ops."""
    job = job if job is not None else {"iterations": str(ops)}
    rec = {"provenance": {"image": {"job": {
        "workload": workload, "params": job,
        "script": script or f"/repo/workloads/scripts/{workload}.toml"}}}}
    row = dict(dict.fromkeys(store.KNOWN_METRICS),
               arch=arch, variant=variant, workload=workload, backend=backend,
               profile="x86_64-smap" if arch == "x86_64" else "arm64-pan", smap_model=None,
               params=json.dumps(params or {}, sort_keys=True),
               checksum=checksum or f"sum-{workload}", ops=ops, record=json.dumps(rec),
               interrupt_insns=irq * ops, errors=0)
    row.update({k: round(v * ops) for k, v in per_op.items()})
    return row


X86 = dict(lfence=1, rep_cmps_iterations=0)


def statx_x86(**kw):
    """x86_64 statx-loop: stock and three variants (README's excerpt)."""
    return [
        _row("x86_64", "stock", "statx-loop", insns_total=1466, insns_kernel=1287, stac=2,
             clac=2, rep_iterations=126, roi_ns=4400, **X86, **kw),
        _row("x86_64", "nosmap", "statx-loop", insns_total=1466, insns_kernel=1287, stac=0,
             clac=0, rep_iterations=126, roi_ns=4300, **X86, **kw),
        _row("x86_64", "statx-putuser", "statx-loop", insns_total=1606, insns_kernel=1427,
             stac=28, clac=28, rep_iterations=98, roi_ns=5100, **X86, **kw),
        # Does not touch statx: one instruction more per call, all of it
        # the interrupts QEMU took in its ROI.
        _row("x86_64", "stat-putuser", "statx-loop", insns_total=1467, insns_kernel=1288,
             stac=2, clac=2, rep_iterations=126, roi_ns=4158, irq=1, **X86, **kw),
    ]


def arm_statx():
    return [
        _row("arm64", "stock", "statx-loop", insns_total=1300, insns_kernel=1100,
             pan_writes=0, ldtr=1, sttr=32, roi_ns=6000),
        _row("arm64", "pan-toggle", "statx-loop", insns_total=1304, insns_kernel=1104,
             pan_writes=4, ldtr=1, sttr=32, roi_ns=6600),
        _row("arm64", "statx-putuser", "statx-loop", insns_total=1380, insns_kernel=1180,
             pan_writes=0, ldtr=1, sttr=58, roi_ns=5900),
    ]


def test_counts_table_has_exact_counts_and_changes_and_names_what_is_as_stock():
    (group, members), = findings.groups(_typed(statx_x86())).items()
    header, body, same = findings.counts_table("x86_64", members)
    assert header == ["variant", "insns", "kernel insns", "stac/clac", "rep iters", "= stock"]
    assert body == [
        ["stock", ("1,466", ""), ("1,287", ""), ("2", ""), ("126", ""), "(reference)"],
        ["nosmap", ("1,466", ""), ("1,287", ""), ("0", "-2"), ("126", ""), "yes"],
        ["statx-putuser", ("1,606", "+140"), ("1,427", "+140"), ("28", "+26"), ("98", "-28"),
         "yes"],
    ]
    # Same user-access counts, and the same instructions once the
    # interrupts are taken out: named, not tabulated.
    assert same == ["stat-putuser"]
    text = findings.aligned(header, body)
    assert text.splitlines() == [
        "  variant        insns       kernel insns  stac/clac  rep iters      = stock",
        "  stock          1,466         1,287           2        126      (reference)",
        "  nosmap         1,466         1,287           0 -2     126              yes",
        "  statx-putuser  1,606 +140    1,427 +140     28 +26     98 -28          yes"]


def test_instructions_are_the_calls_own_and_changes_agree_with_the_counts_shown():
    rows = [_row("x86_64", "stock", "fstat-loop", insns_total=1310.3, insns_kernel=1226.3,
                 irq=0.3, stac=2, clac=2, rep_iterations=84, **X86),
            # One instruction fewer of its own, though more interrupts.
            _row("x86_64", "symlink-cachedlen", "fstat-loop", insns_total=1309.6,
                 insns_kernel=1225.6, irq=0.6, stac=2, clac=2, rep_iterations=84, **X86),
            # 0.4 fewer: the same as shown, and within half an instruction.
            _row("x86_64", "dcache-bytecmp", "fstat-loop", insns_total=1309.9,
                 insns_kernel=1225.9, irq=0.3, stac=2, clac=2, rep_iterations=84, **X86),
            _row("x86_64", "nosmap", "fstat-loop", insns_total=1310.9, insns_kernel=1226.9,
                 irq=0.9, stac=0, clac=0, rep_iterations=84, **X86)]
    (_, members), = findings.groups(_typed(rows)).items()
    header, body, same = findings.counts_table("x86_64", members)
    assert same == ["dcache-bytecmp"]
    assert [row[:3] for row in body] == [
        ["stock", ("1,310", ""), ("1,226", "")],
        ["nosmap", ("1,310", ""), ("1,226", "")],
        ["symlink-cachedlen", ("1,309", "-1"), ("1,225", "-1")]]
    assert findings.findings(_typed(rows))[0].what == (
        "nosmap: stac/clac 2 -> 0 (-2), kernel insns 1,226 (same): "
        "SMAP never enabled, every site a NOP")


def test_a_variant_that_returns_something_else_is_never_hidden():
    rows = statx_x86()
    rows[3]["checksum"] = "other"
    (_, members), = findings.groups(_typed(rows)).items()
    header, body, same = findings.counts_table("x86_64", members)
    assert same == [] and [r[-1] for r in body if r[0] == "stat-putuser"] == ["NO"]
    assert [f.what for f in findings.findings(_typed(rows))] == [
        "nosmap: stac/clac 2 -> 0 (-2), kernel insns 1,287 (same): "
        "SMAP never enabled, every site a NOP",
        "statx-putuser: stac/clac 2 -> 28 (+26): one window per field of struct statx"]


def test_findings_are_read_off_the_counts_per_mechanism():
    rows = statx_x86() + arm_statx() + [
        _row("x86_64", "stock", "readlink-loop", insns_total=900, insns_kernel=700, stac=2,
             clac=2, rep_iterations=40, roi_ns=3000, **X86),
        _row("x86_64", "symlink-cachedlen", "readlink-loop", insns_total=862,
             insns_kernel=662, stac=2, clac=2, rep_iterations=40, roi_ns=3100, **X86),
        _row("x86_64", "stock", "stat-namelen", insns_total=2000, insns_kernel=1800, stac=2,
             clac=2, rep_iterations=0, roi_ns=5000, **X86),
        _row("x86_64", "dcache-repcmpsb", "stat-namelen", insns_total=2010,
             insns_kernel=1810, stac=2, clac=2, rep_iterations=25, roi_ns=5200,
             lfence=1, rep_cmps_iterations=25),
    ]
    lines = [f"{f.where}: {f.what}" for f in findings.findings(_typed(rows))]
    # In the order of the groups' tables; within a group, the rules'.
    assert lines == [
        "x86_64 readlink-loop: symlink-cachedlen: kernel insns 700 -> 662 (-38): "
        "readlink copies i_size bytes, no strlen()",
        "x86_64 stat-namelen: dcache-repcmpsb: rep cmps iters 0 -> 25 (+25): "
        "repe cmpsb, one iteration per name byte",
        "x86_64 statx-loop: nosmap: stac/clac 2 -> 0 (-2), kernel insns 1,287 (same): "
        "SMAP never enabled, every site a NOP",
        "x86_64 statx-loop: statx-putuser: stac/clac 2 -> 28 (+26): "
        "one window per field of struct statx",
        "arm64 statx-loop: statx-putuser: STTR 32 -> 58 (+26), PAN writes 0 (same): "
        "one STTR per field, no PAN window",
        "arm64 statx-loop: pan-toggle: PAN writes 0 -> 4 (+4): "
        "PAN cleared and set around each block of accesses",
    ]
    # stat-putuser ran, but not on the workloads that show its mechanism
    # (fstat-loop, lstat-storm): it says nothing, as do variants not run.
    assert not any("stat-putuser" in line for line in lines)


def test_fractional_counts_and_unequal_stac_clac_are_shown_as_they_are():
    rows = [
        _row("x86_64", "stock", "lstat-storm", ops=400, insns_total=3000, insns_kernel=2800,
             stac=2, clac=2, rep_iterations=60, roi_ns=9000, **X86),
        # One window per word of ~36-byte paths: 4.5 words a path on average.
        _row("x86_64", "strncpy-unbatched", "lstat-storm", ops=400, insns_total=3040,
             insns_kernel=2840, stac=5.5, clac=5.5, lfence=0, rep_iterations=60,
             rep_cmps_iterations=0, roi_ns=9100),
        _row("x86_64", "nosmap", "lstat-storm", ops=400, insns_total=3000, insns_kernel=2800,
             stac=0, clac=0.25, rep_iterations=60, roi_ns=8800, **X86),
    ]
    assert [f.what for f in findings.findings(_typed(rows))] == [
        "nosmap: stac 2 -> 0, clac 2 -> 0.25, kernel insns 2,800 (same): "
        "SMAP never enabled, every site a NOP",
        "strncpy-unbatched: stac/clac 2 -> 5.50 (+3.50), lfence 1 -> 0 (-1): "
        "a window per word read"]


def test_rows_name_the_parameters_or_the_script_that_tell_them_apart():
    short = statx_x86(params={"run.iterations": "500"}, job={"iterations": "500"})
    long = statx_x86(params={"run.iterations": "2000"}, job={"iterations": "2000"})
    # Two scripts, one workload, nothing swept: only the script tells them apart.
    mine = [_row("arm64", v, "statx-loop", job={"iterations": "7"}, script="/x/mine.toml",
                 insns_total=1300, insns_kernel=1100, pan_writes=p, ldtr=1, sttr=32,
                 roi_ns=6000) for v, p in (("stock", 0), ("pan-toggle", 4))]
    grouped = findings.groups(_typed(short + long + arm_statx() + mine))
    assert [findings.where(g, grouped) for g in grouped] == [
        "x86_64 statx-loop (run.iterations=2000)", "x86_64 statx-loop (run.iterations=500)",
        "arm64 statx-loop (statx-loop.toml)", "arm64 statx-loop (mine.toml)"]
    assert [findings.title(g, grouped) for g in grouped][2:] == [
        "arm64 / statx-loop (statx-loop.toml) / arm64-pan",
        "arm64 / statx-loop (mine.toml) / arm64-pan"]
    wheres = [f.where for f in findings.findings(_typed(short + long + arm_statx() + mine))]
    assert wheres.count("x86_64 statx-loop (run.iterations=500)") == 2
    assert "arm64 statx-loop (mine.toml)" in wheres


def test_make_run_text_counts_then_findings_then_tcg_time_last():
    gem5 = [dict(_row("x86_64", v, "statx-loop", backend="gem5", roi_ns=1000),
                 profile="x86_64-o3-default", cache="classic-l1l2", smap_model="smap",
                 warming="functional", sampling="none", cycles=c * 1000, gem5_insts=1500_000)
            for v, c in (("stock", 2000), ("statx-putuser", 2600))]
    arm = arm_statx()
    arm[1]["errors"] = 3
    out = findings.text(_typed(statx_x86() + arm + gem5))
    assert max(len(line) for line in out.splitlines()) <= findings.WIDTH
    counts = out.index("x86_64 statx-loop, 1,000 calls")
    found = out.index("Findings, per call, stock -> variant:")
    cycles = out.index("gem5: x86_64 / statx-loop / x86_64-o3-default")
    tcg = out.index("Guest time per call under QEMU-TCG, ns")
    assert counts < found < cycles < tcg
    assert "a rough guide only" in out[tcg:] and "not cycles" in out[tcg:]
    assert out[counts:found].count("\n  as stock: stat-putuser\n") == 1
    assert "\n  calls that failed: pan-toggle 3\n" in out[counts:found]
    assert ("\n  x86_64 statx-loop\n    nosmap: stac/clac 2 -> 0 (-2), kernel insns 1,287 "
            "(same): SMAP never enabled, every site a NOP\n    statx-putuser: stac/clac 2 -> 28 "
            "(+26): one window per field of struct statx\n  arm64 statx-loop\n") in out
    assert re.search(r"\n  stock +smap +2,000 +1,500 +\(reference\) +yes\n", out[cycles:])
    assert re.search(r"\n  statx-putuser +smap +2,600 +1,500 +\+30.0 % \(\+600/op\) +yes\n",
                     out[cycles:])
    time_lines = out[tcg:].splitlines()
    assert re.match(r"  x86_64 +statx-loop$", time_lines[2])
    assert re.match(r"  stock +4,400$", time_lines[3])
    assert re.match(r"  stat-putuser +4,158 -6%$", time_lines[5])
    assert re.match(r"  statx-putuser +5,100 \+16%$", time_lines[6])


def test_tcg_time_spreads_groups_over_tables_that_fit_the_width():
    rows = []
    for n in range(8):
        rows += [_row("x86_64", v, "statx-loop", params={"run.iterations": str(1000 + n)},
                      job={"iterations": str(1000 + n)}, roi_ns=ns)
                 for v, ns in (("stock", 4400), ("statx-putuser", 5100))]
    tables = findings.times(_typed(rows))
    assert len(tables) > 1 and sum(len(h) - 1 for _, h, _ in tables) == 8
    for arch, header, body in tables:
        assert max(len(line) for line in findings.aligned(header, body).splitlines()) \
            <= findings.WIDTH


def _record(key, arch, variant, workload, checksum, counts):
    return {"key": key,
            "point": {"arch": arch, "variant": variant, "workload": workload,
                      "backend": "qemu", "profile": "x86_64-smap"},
            "result": {"ops": 10, "errors": 0, "checksum": checksum, "roi_ns": 44_000},
            "counts": counts, "boot_to_result_seconds": 1.0, "command": ["qemu"],
            "provenance": {
                "kernel": {"source": {"package": "linux-source-6.1", "version": "6.1.192-2",
                                      "sha256": "ab" * 32},
                           "key": f"k-{variant}", "variant": {"patches": []}},
                "simulator": {"version": "QEMU emulator version 7.2.22",
                              "profile": {"name": "x86_64-smap", "cpu": "max"}},
                "image": {"key": "img", "job": {"workload": workload, "script": "s.toml",
                                                "params": {"iterations": "10"}}},
                "command": ["qemu-system-x86_64"], "host": {"name": "here"},
                "uaccess_lab": "test", "started_at": "2026-11-25T00:00:00Z"}}


def test_the_report_opens_with_the_findings_and_a_table_of_contents(tmp_path):
    db = tmp_path / "r.sqlite"

    def x86(stac, insns):
        return {"insns": {"total": insns, "user": 100, "kernel": insns - 100},
                "symbols": {"cp_statx": 90}, "x86": {"stac": stac, "clac": stac}}

    for key, variant, stac, insns in (("k1", "stock", 20, 14660),
                                      ("k2", "statx-putuser", 280, 16060)):
        store.ingest_one(db, store.add_record, "s",
                         _record(key, "x86_64", variant, "statx-loop", "c", x86(stac, insns)))
    conn = store.connect(db)
    store.set_plan(conn, "s", ["k1", "k2"])
    conn.close()
    page = report.write(db, "s", tmp_path / "out").read_text()
    body = page.split("<body>", 1)[1]
    assert body.startswith("<h1>uaccess-lab report: sweep s</h1>\n"
                           '<h2 id="findings">Findings</h2>\n<p>')
    assert ('<li><a href="#s1">x86_64 statx-loop</a>: statx-putuser: stac/clac 2 -&gt; 28 '
            "(+26): one window per field of struct statx</li>") in body
    toc = body.index('<h2 id="contents">Contents</h2>')
    assert body.index("Findings") < toc < body.index('<h2 id="about">') \
        < body.index('<h2 id="s1">x86_64 / statx-loop / x86_64-smap</h2>')
    assert '<li><a href="#s1">x86_64 / statx-loop / x86_64-smap</a></li>' in body[toc:]
    assert '<li><a href="#provenance">Provenance</a></li>' in body[toc:]
    assert render.INTRO[:40] in body[body.index('<h2 id="about">'):]
    md = (tmp_path / "out" / "report.md").read_text()
    assert md.startswith("# uaccess-lab report: sweep `s`\n\n<a id=\"findings\"></a>\n\n"
                         "## Findings\n\n")
    assert ("- [x86_64 statx-loop](#s1): statx-putuser: stac/clac 2 -> 28 (+26): "
            "one window per field of struct statx") in md
    assert md.index("## Findings") < md.index("## Contents") < md.index(
        "## About these numbers") < md.index("## x86_64 / statx-loop / x86_64-smap")
    # The terminal's summary reads the same store.
    assert "statx-putuser: stac/clac 2 -> 28 (+26)" in report.summary(db, "s")


def test_cycle_accounting_per_op_and_the_share_it_covers():
    """analysis/accounting.py: rename's states per op beside the cycles,
    and the share of the ROI's cycles they account for (rename leaves a
    cycle uncounted where it is idle with instructions waiting)."""
    import json as _json

    from analysis import accounting
    record = _json.dumps({"provenance": {"simulator": {"cpu_preset": {
        "name": "x86_64-skylake+fetchWidth=8"}}}})
    row = {"backend": "gem5", "arch": "x86_64", "variant": "stock", "workload": "statx-loop",
           "cache": "x86_64-skylake", "smap_model": "smap", "warming": "none",
           "sampling": "none", "record": record, "ops": 10, "cycles": 1000,
           "rename_run_cycles": 400, "rename_idle_cycles": 300, "rename_block_cycles": 50,
           "serialize_stall_cycles": 200, "rename_squash_cycles": 30,
           "rename_unblock_cycles": 10, "icache_stall_cycles": 120, "fetch_cache_lines": 60}
    header, body = accounting.table(_typed([row, dict(row, backend="qemu")]))
    assert len(body) == 1
    cells = dict(zip(header, body[0]))
    assert cells["machine (CPU / caches)"] == "x86_64-skylake+fetchWidth=8 / x86_64-skylake"
    assert (cells["cycles/op"], cells["run/op"], cells["serialize/op"]) == ("100.0", "40.0",
                                                                          "20.0")
    assert cells["states / cycles"] == "0.990"
    assert (cells["icache stall/op"], cells["lines fetched/op"]) == ("12.0", "6.0")


def test_every_arch_shows_counts_its_tables_know():
    # lab/arches.py names each arch's user-access counts; a name findings
    # cannot read would be a column of blanks.
    for arch, names in findings.COUNTS.items():
        assert names[:2] == ("insns", "kernel insns")
        assert set(names) <= set(findings.NAMES), arch
