"""`./run.py compare`: a QEMU experiment is compared on every count its
record holds, exactly, but kernel instructions (less the ROI's
interrupts) within the measured residue; what interrupts ran is not
compared; the user's runs no published row matches are listed. On real
published records (docs/data/default.jsonl.gz), one count altered."""

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from analysis import compare, published, results, store

REPO = Path(__file__).resolve().parent.parent
DEFAULT = REPO / "docs" / "data" / "default.jsonl.gz"


def _rows() -> list:
    return [json.loads(line) for line in
            gzip.decompress(DEFAULT.read_bytes()).decode().splitlines()[1:]]


def _row(arch, variant, workload) -> dict:
    return next(r for r in _rows() if (r["arch"], r["variant"], r["workload"])
                == (arch, variant, workload))


def _altered(row: dict, change) -> results.Run:
    """The published row as a run whose record `change` edited."""
    rec = json.loads(row["record"])
    change(rec)
    return results.from_row(dict(row, record=json.dumps(rec)))


def _verdict(row: dict, change) -> list:
    header, body = compare.table([results.from_row(row)], [_altered(row, change)])
    assert len(body) == 1
    return body[0]


def _nothing(rec):
    pass


def test_a_same_run_agrees_on_every_count_it_holds():
    row = _row("x86_64", "dcache-repcmpsb", "stat-namelen")
    counts = compare.qemu_counts(results.from_row(row))
    # The guest's result, user instructions, every user-access fact of
    # the calls (each REP kind), the kept symbols, the residue's two.
    for name in ("result checksum", "result ops", "user insns", "x86 stac", "x86 clac",
                 "x86 lfence", "x86 rep cmps iterations", "x86 rep cmps executions",
                 "x86 rep movs iterations", "x86 rep stos executions",
                 "strncpy_from_user insns", "kernel insns less interrupts"):
        assert name in counts, name
    # Host-clock numbers are not counts.
    assert not any("roi_ns" in n or "interrupts taken" in n or "per_len" in n for n in counts)
    assert _verdict(row, _nothing)[-1] == f"same: all {len(counts)} counts"


@pytest.mark.parametrize("arch,variant,workload,path,name", [
    # Not the headline (stac/op): the count that tells this variant apart.
    ("x86_64", "dcache-repcmpsb", "stat-namelen", ("x86", "rep", "cmps", "iterations"),
     "x86 rep cmps iterations"),
    ("x86_64", "stock", "statx-loop", ("x86", "lfence"), "x86 lfence"),
    ("x86_64", "stock", "readlink-loop", ("symbols", "strlen"), "strlen insns"),
    ("x86_64", "stock", "statx-loop", ("insns", "user"), "user insns"),
    ("arm64", "stock", "statx-loop", ("arm64", "sttr"), "arm64 sttr"),
    ("arm64", "pan-toggle", "fstat-loop", ("arm64", "pan_set_1"), "arm64 pan set 1"),
])
def test_one_non_headline_count_altered_is_reported_by_name(arch, variant, workload, path,
                                                            name):
    def change(rec):
        d = rec["counts"]
        for k in path[:-1]:
            d = d[k]
        d[path[-1]] += 1
    row = _row(arch, variant, workload)
    verdict = _verdict(row, change)
    assert verdict[-1].startswith("differs: 1 of ") and f"({name})" in verdict[-1], verdict
    assert not compare.agrees(verdict)
    # Shown where the headline was: the count that differs, whole.
    assert verdict[1] == name and verdict[4] == "+1"


def test_the_guests_checksum_is_compared():
    def change(rec):
        rec["result"]["checksum"] = "0" * 16
    verdict = _verdict(_row("arm64", "stock", "lstat-storm"), change)
    assert "(result checksum)" in verdict[-1] and not compare.agrees(verdict)


def test_kernel_instructions_within_the_residue_bound_agree_beyond_it_differ():
    row = _row("x86_64", "stock", "fstat-loop")
    # Per interrupt the run took (an interrupt more on either side
    # allows more): the published run's own.
    bound = compare.INSNS_PER_INTERRUPT * row["interrupts_taken"]
    assert bound > 0

    def more(n):
        def change(rec):
            rec["counts"]["insns"]["kernel"] += n
            rec["counts"]["insns"]["total"] += n
        return change
    verdict = _verdict(row, more(bound))
    assert verdict[-1].startswith("within the residue: ") and compare.agrees(verdict), verdict
    assert verdict[-1].endswith("insns less interrupts, kernel insns less interrupts moved")
    assert verdict[1:2] + verdict[4:5] == ["insns less interrupts", f"{bound:+,}"]
    verdict = _verdict(row, more(bound + 1))
    assert verdict[-1] == ("differs: 2 of %d counts (insns less interrupts, kernel insns less "
                           "interrupts)" % len(compare.qemu_counts(results.from_row(row))))


def test_an_interrupt_more_is_not_a_difference():
    # QEMU delivers interrupts by the host's clock: one more, with its
    # instructions, CLAC and REP MOVS, is taken out of the calls' counts.
    def change(rec):
        c = rec["counts"]
        c["insns"]["kernel"] += 900
        c["insns"]["total"] += 900
        c["interrupts"]["insns"] += 900
        c["interrupts"]["taken"] += 1
        for part in (c["x86"], c["interrupts"]["x86"]):
            part["clac"] += 1
            part["rep"]["movs"]["executions"] += 1
            part["rep"]["movs"]["iterations"] += 30
    row = _row("x86_64", "stat-putuser", "stat-namelen")
    assert _verdict(row, change)[-1].startswith("same: all ")


def test_runs_with_no_published_row_are_listed(tmp_path):
    pub = results.from_row(_row("x86_64", "stock", "statx-loop"))
    other = results.from_row(_row("arm64", "stock", "statx-loop"))
    assert compare.unpublished([pub], [pub, other]) == [
        "arm64/stock/statx-loop qemu " + other["profile"]]
    # The command: one published row, two runs here.
    records = tmp_path / "records"
    published.export([pub], "default", published.path_for(records, "default"), "cmd")
    results_dir = tmp_path / "results"
    results_dir.mkdir()
    for run in (pub, other):
        rec = json.loads(_row(run["arch"], "stock", "statx-loop")["record"])
        store.ingest_one(results_dir / "results.sqlite", store.add_record, "default", rec)
    proc = subprocess.run([sys.executable, str(REPO / "run.py"), "compare", "--records",
                           str(records), "--results", str(results_dir)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "1 of your runs have no published row of the same experiment" in out
    assert f"  arm64/stock/statx-loop qemu {other['profile']}\n" in out
    assert "1 of 1 published experiments run here; 1 agree, 0 differ." in out
    # The rules, with the residue's bound and its measured reason.
    assert "\n".join(compare.rules()) + "\n" in out
    said = " ".join(out.split())
    assert f"within {compare.INSNS_PER_INTERRUPT:,} per interrupt taken" in said
    assert "Not compared: interrupts taken" in said


def test_a_split_repe_cmps_is_allowed_once_per_interrupt():
    row = _row("x86_64", "dcache-repcmpsb", "lstat-storm")
    taken = row["interrupts_taken"]

    def more(n):
        def change(rec):
            rec["counts"]["x86"]["rep"]["cmps"]["executions"] += n
        return change
    assert _verdict(row, more(taken))[-1] == (
        "within the residue: %d of %d counts equal, x86 rep cmps executions moved"
        % (len(compare.qemu_counts(results.from_row(row))) - 1,
           len(compare.qemu_counts(results.from_row(row)))))
    assert "(x86 rep cmps executions)" in _verdict(row, more(taken + 1))[-1]
    # Its iterations are exact: a split instance makes no iteration more.
    assert not compare.agrees(_verdict(row, lambda rec: rec["counts"]["x86"]["rep"]["cmps"]
                                       .__setitem__("iterations", 1)))


def test_the_bound_covers_every_rerun_in_the_published_records():
    # Real reruns: experiments published more than once (the same kernel
    # and job in several sweeps) whose every exact count is equal.
    every = [r for p in published.files(DEFAULT.parent) for r in published.load_file(p)[1]]
    measured = compare.residues(every)
    assert len(measured) >= 20
    assert any(d for _, _, d, _ in measured)  # not exact: the residue is real
    for label, calls, moved, taken in measured:
        assert abs(moved) <= compare.INSNS_PER_INTERRUPT * taken, label
    assert compare.measured_text(measured) in " ".join(" ".join(compare.rules(measured)).split())


def _rerun(n: int) -> results.Run:
    path = REPO / "tests" / "data" / "reruns" / f"x86_64-stock-statx-loop-{n}.json.gz"
    return store.from_record(json.loads(gzip.decompress(path.read_bytes())))


def test_real_reruns_agree_on_every_exact_count_and_move_within_the_residue():
    # One point of the default study run three times (./run.py run --force)
    # on a loaded host: 119 to 153 interrupts each. Every exact count is
    # equal; kernel instructions less interrupts moved 2 per interrupt.
    runs = [_rerun(n) for n in (1, 2, 3)]
    assert len({r.key for r in runs}) == 1 and len({r["interrupts_taken"] for r in runs}) == 3
    for r in runs[1:]:
        header, body = compare.table([runs[0]], [r])
        assert body[0][-1].startswith("within the residue: 25 of 27 counts equal, "), body
        assert compare.agrees(body[0])
        name = compare.INSNS_RESIDUE[0]
        moved = compare.qemu_counts(r)[name] - compare.qemu_counts(runs[0])[name]
        assert moved == 2 * (r["interrupts_taken"] - runs[0]["interrupts_taken"])
    # The kernel functions interrupts also run are totals: they move, and
    # are not compared (strncpy_from_user, which none runs, is).
    a, b = (dict(r.qemu.counts["symbols"]) for r in runs[:2])
    assert a["timekeeping_advance"] != b["timekeeping_advance"]
    assert "timekeeping_advance insns" not in compare.qemu_counts(runs[0])
    assert compare.qemu_counts(runs[0])["strncpy_from_user insns"] == a["strncpy_from_user"]


def test_a_cpu_preset_record_from_before_its_typed_fields_is_the_same_experiment():
    # Published gem5 rows predate the preset's typed fields ("preset",
    # "overrides": lab/cpu_presets.py since 2026-11-28); a rerun writes
    # them. Both describe the same machine, so compare pairs them; a real
    # override changes the name, and with it the experiment.
    import copy
    import gzip
    import json
    from pathlib import Path

    from analysis import results
    data = Path(__file__).resolve().parent.parent / "docs" / "data" / "seeds-era.jsonl.gz"
    rows = [json.loads(line) for line in gzip.open(data, "rt")][1:]
    old = next(r for r in rows if r["backend"] == "gem5")
    record = json.loads(old["record"])
    cpu = record["provenance"]["simulator"]["cpu_preset"]
    assert "preset" not in cpu and "overrides" not in cpu
    new = copy.deepcopy(record)
    new["provenance"]["simulator"]["cpu_preset"].update(preset=cpu["name"], overrides={})
    again = dict(old, record=json.dumps(new))
    assert results.from_row(again).experiment == results.from_row(old).experiment
    other = copy.deepcopy(new)
    other["provenance"]["simulator"]["cpu_preset"].update(
        name=cpu["name"] + "+uopQueueSize=32", overrides={"uopQueueSize": 32})
    changed = dict(old, record=json.dumps(other))
    assert results.from_row(changed).experiment != results.from_row(old).experiment
