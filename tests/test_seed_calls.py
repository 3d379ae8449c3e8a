"""docs/seeds.md's table of the seeds' calls (analysis/seed_calls.py):
a pair's gap is read off the QEMU rows of the experiments it names, by
what each row's job made; each seed's claims say which call they take
(`uses` in analysis/seeds.toml), in step with analysis/claims.toml; and
the rows recorded before fstat-loop named its call (issue 62: they made
glibc's fstat) are neither passed off as the fstat system call nor left
unsaid."""

import json
import tomllib

import pytest

from analysis import results, seed_calls
from analysis.kinds import registry


def _qemu(variant, workload, job, kernel, stac, checksum="c0ffee", recorded="2026-11-29"):
    """A published QEMU row of 100 calls (results.from_row of its row);
    job: the guest's job parameters as the record holds them, or None for
    a record whose image names no job."""
    image = {"job": {"workload": workload, "params": job}} if job is not None else {}
    record = {"provenance": {"image": image, "simulator": {"name": "qemu"}}}
    return results.from_row({"backend": "qemu", "arch": "x86_64", "params": "{}",
                             "variant": variant, "workload": workload,
                             "profile": "x86_64-smap", "ops": 100, "checksum": checksum,
                             "insns_kernel": kernel * 100, "interrupt_insns": 0,
                             "stac": stac * 100, "clac": stac * 100,
                             "recorded_at": recorded, "record": json.dumps(record)})


LOOP = {"iterations": "20000", "warmup": "1000"}
SYSCALL = _qemu("stock", "fstat-loop", dict(LOOP, call="syscall"), 540, 1)
GLIBC = _qemu("stock", "fstat-loop", dict(LOOP, call="glibc"), 1227, 2)
BEFORE = _qemu("stock", "fstat-loop", LOOP, 1227, 2)  # recorded before run.call
PAIR = {"sweep": "seed-calls", "variant": "stock", "from": "fstat-loop",
        "to": "fstat-glibc", "same_result": True}


def test_a_row_is_the_experiment_its_job_made():
    assert (SYSCALL.point.job_name, SYSCALL.point.made_name) == ("fstat-loop", "fstat-loop")
    assert (GLIBC.point.job_name, GLIBC.point.made_name) == ("fstat-glibc", "fstat-glibc")
    # Before the key, fstat-loop called glibc's fstat: the scorecard still
    # reads such a row as fstat-loop (until its sweep is re-run), what it
    # made is fstat-glibc. A record with no job at all is older still.
    assert (BEFORE.point.job_name, BEFORE.point.made_name) == ("fstat-loop", "fstat-glibc")
    older = _qemu("stock", "fstat-loop", None, 1227, 2)
    assert (older.point.job_name, older.point.made_name) == ("fstat-loop", "fstat-glibc")
    # A workload whose default stays out of the job reads as it did.
    statx = _qemu("stock", "statx-loop", LOOP, 1286, 2)
    assert statx.point.made_name == statx.point.job_name == "statx-loop"


def test_gap_is_the_pair_per_call_with_its_windows_and_checksums():
    assert seed_calls.gap([SYSCALL, GLIBC], PAIR) == (
        "stock: fstat-loop 540 -> fstat-glibc 1,227 kernel instructions (+687), "
        "stac+clac 2.00 -> 4.00; the same checksum (x86_64-smap, seed-calls)")
    other = results.from_row(dict(GLIBC._row, checksum="bad"))
    assert "CHECKSUMS DIFFER" in seed_calls.gap([SYSCALL, other], PAIR)
    # Either side unpublished: nothing.
    assert seed_calls.gap([SYSCALL], PAIR) == ""


def test_gap_takes_the_rois_interrupts_out_and_says_only_what_was_counted():
    # seed-calls' stock pair as published (docs/data/seed-calls.jsonl.gz):
    # statx(fd, "") 1,286 and statx(fd, NULL) 601 kernel instructions per
    # call. The "" side's ROI took interrupts that ran 2,345 instructions:
    # out of the calls' count, so the gap is what the calls ran.
    loop = results.from_row(dict(_qemu("stock", "statx-loop", LOOP, 1286, 2)._row,
                                 insns_kernel=128_600 + 2_345, interrupt_insns=2_345))
    null = _qemu("stock", "statx-loop", dict(LOOP, path="null"), 601, 1)
    pair = {"sweep": "seed-calls", "variant": "stock", "from": "statx-loop",
            "to": "statx-null", "same_result": True}
    assert seed_calls.gap([loop, null], pair) == (
        "stock: statx-loop 1,286 -> statx-null 601 kernel instructions (-685), "
        "stac+clac 4.00 -> 2.00; the same checksum (x86_64-smap, seed-calls)")
    # An arch without STAC/CLAC counts (arm64) and a pair that asks for no
    # checksum: neither is said.
    arm = [results.from_row(dict(r._row, arch="arm64", profile="arm64", stac=None, clac=None))
           for r in (loop, null)]
    assert seed_calls.gap(arm, dict(pair, same_result=False)) == (
        "stock: statx-loop 1,286 -> statx-null 601 kernel instructions (-685) "
        "(arm64, seed-calls)")


def test_a_row_from_before_the_call_key_never_stands_for_the_system_call():
    # Only the old row published: it is fstat-glibc's side, and the system
    # call's side is missing, so the pair says nothing rather than 1,227
    # for the fstat system call.
    assert seed_calls.gap([BEFORE], PAIR) == ""
    assert seed_calls.gap([BEFORE, SYSCALL], PAIR).startswith(
        "stock: fstat-loop 540 -> fstat-glibc 1,227")
    # The newest run of an experiment is the one read.
    newer = _qemu("stock", "fstat-loop", dict(LOOP, call="syscall"), 530, 1,
                  recorded="2026-11-30")
    assert "fstat-loop 530 ->" in seed_calls.gap([SYSCALL, newer, GLIBC], PAIR)


def _row_of(seed_id, by_sweep):
    header, body = seed_calls.table(by_sweep)
    row = next(r for r in body if r[0] == seed_id)
    return dict(zip(header, row))


def test_the_claims_call_column_names_rows_that_made_another_call():
    column = "the call its claims take, and why"
    stale = _row_of("001_5dcad19959904b29", {"seeds": [BEFORE]})[column]
    assert stale.startswith("cp-new-stat: fstat-loop, the fstat system call")
    assert ("Until re-run, the published fstat-loop rows of seeds made fstat-glibc "
            "(recorded before fstat-loop's jobs named their call)") in stale
    fresh = _row_of("001_5dcad19959904b29", {"seed-calls": [SYSCALL, GLIBC]})
    assert "Until re-run" not in fresh[column]
    assert fresh["the gap per call, measured (QEMU-exact)"].startswith(
        "stock: fstat-loop 540 -> fstat-glibc 1,227")
    # A seed without claims on a choice of call says so with a dash.
    assert _row_of("004_19de4fc19931aa23", {})[column] == "-"


def _uses():
    with open(seed_calls.SEEDS_FILE, "rb") as f:
        seeds = tomllib.load(f)
    return [(sid, use) for sid, seed in seeds.items()
            for use in (seed.get("call") or {}).get("uses", [])]


def _workloads(claim) -> set:
    """The experiments a claim reads: its effect's two sides (variant,
    experiment), or its base's workload; none for the other kinds."""
    sides = [getattr(claim, side, None) for side in ("before", "after")]
    return ({s[1] for s in sides if isinstance(s, tuple)}
            | ({claim.workload} if isinstance(getattr(claim, "workload", None), str) else set()))


@pytest.mark.parametrize("sid,use", _uses(), ids=[f"{s}:{u['experiment']}" for s, u in _uses()])
def test_each_claims_call_is_the_one_its_claim_runs(sid, use):
    # What docs/seeds.md says a claim takes is what analysis/claims.toml
    # has it take (a side of an effect, a base's workload), and the claim
    # is that seed's.
    claims = {c.id: c for c in registry.CLAIMS.every()}
    for cid in use["claims"]:
        claim = claims[cid]
        assert claim.seed == sid, cid
        assert use["experiment"] in _workloads(claim), (cid, _workloads(claim))
    assert use["why"] and not use["why"].endswith(".")


def test_every_claim_that_takes_an_fstat_says_which():
    # Issue 62: the three claims that rest on fstat-loop each name the
    # call they take in docs/seeds.md's table.
    said = {cid for _, use in _uses() if use["experiment"] == "fstat-loop"
            for cid in use["claims"]}
    takes = set()
    for claim in registry.CLAIMS.every():
        if "fstat-loop" in _workloads(claim) and getattr(claim, "seed", None):
            takes.add(claim.id)
    assert takes == said == {"statx-vs-fstat", "fstat-base-2017", "cp-new-stat"}
