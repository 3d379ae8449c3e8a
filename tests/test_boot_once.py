"""The boot-once scheme's accounting (analysis/boot_once.py) on records
whose answer is known, typed as the store hands them out."""

from analysis import boot_once, store


def _record(checkpoint, scheme, boot_insts, functional=0, roi_insts=1_000,
            boot_s=100.0, roi_s=20.0, warm_s=0.0, warming_block=True):
    warming = {"scheme": scheme, "boot_insts": boot_insts, "functional_insts": functional,
               "detailed_insts": 0}
    if scheme == "functional":
        warming["host_seconds"] = {"functional": warm_s, "roi": roi_s - warm_s}
    record = {"key": checkpoint, "result": {"ops": 500, "errors": 0, "checksum": "x"},
              "gem5": {"checkpoint": checkpoint, "boot_seconds": boot_s, "roi_seconds": roi_s,
                       "summary": {"insts": roi_insts}, "warming": warming},
              "point": {"arch": "x86_64", "variant": "stock", "workload": "statx-loop",
                        "backend": "gem5", "profile": "p"},
              "provenance": {"image": {"job": {"params": {"iterations": 500}}},
                             "kernel": {"source": {"version": "6.1"}},
                             "simulator": {"name": "gem5"}}}
    if not warming_block:
        del record["gem5"]["warming"]
    return store.from_record(record)


def test_a_shared_boot_counts_once_and_each_job_its_warming():
    cold = [_record("a", "none", 300), _record("b", "none", 310)]
    # Two jobs handed over on one boot checkpoint: its boot once, each
    # job's warming; the ROI process's time less the warming is the ROI's.
    warm = [_record("c", "functional", 300, functional=20, roi_s=30.0, warm_s=10.0),
            _record("c", "functional", 300, functional=25, roi_s=40.0, warm_s=15.0)]
    s = boot_once.by_scheme(warm + cold)
    assert list(s) == ["none", "functional"]
    assert s["none"] == boot_once.Phases(points=2, boots=2, boot_insts=610, warm_insts=0,
                                         roi_insts=2_000, boot_s=200.0, warm_s=0.0,
                                         roi_s=40.0)
    assert s["functional"] == boot_once.Phases(points=2, boots=1, boot_insts=300,
                                               warm_insts=45, roi_insts=2_000, boot_s=100.0,
                                               warm_s=25.0, roi_s=45.0)
    header, body = boot_once.table({"x86_64": cold + warm})
    assert body[0][3:] == ["2", "0.0M (boots 0.0M, warming 0.0M)", "2,000", "240 s",
                           "83 % / - / 17 %"]
    assert body[1][-1] == "59 % / 15 % / 26 %"
    assert boot_once.falls({"x86_64": cold + warm}) == [
        "x86_64: 1.8x fewer instructions outside the ROIs (target 5x), 1.4x less host time"]
    # Each handed-over job's cost beyond the boot; the cold jobs have none.
    assert boot_once.handoffs(cold + warm) == [
        "statx-loop 500 calls: checkpoint c, warming 20 instructions, ROI 1,000",
        "statx-loop 500 calls: checkpoint c, warming 25 instructions, ROI 1,000"]
    # A record from before the warming block (a boot per job) still counts.
    old = _record("d", "none", 0, warming_block=False)
    assert boot_once.by_scheme([old])["none"].boots == 1
