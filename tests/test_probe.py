"""The probe workload (workloads/src/probe.c), without gem5: it builds for
both arches, runs natively and under QEMU-TCG with the same checksum, and
does exactly the operations its job asks for. Its figures mean core
cycles only under gem5 (x86 RDTSC advances with gem5's CPU cycles); under
QEMU and natively they are TSC ticks, so only their presence is checked
here, and the gem5 figures are tests/test_gem5_real.py's and the
probe table's (analysis/probe.py)."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from buildroot import assemble
from kernels import build as kbuild
from workloads import script
import qemu_runs

REPO = Path(__file__).resolve().parent.parent
JOB = {"workload": "probe", "run": {"chase_loads": 1024, "branch_iterations": 5000,
                                   "add_iterations": 5000, "syscalls": 500, "rep_strings": 500,
                                   "settle_ms": 0}}
# Four chase levels, the branch loop over predictable and random bits,
# eight adds per iteration, the system calls, and (x86) a rep stosb, a
# rep movsb and a repe cmpsb per rep string.
OPS = 4 * 1024 + 2 * 5000 + 8 * 5000 + 500 + 3 * 500
FIGURES = ("probe_l1d", "probe_l2", "probe_l3", "probe_mem", "probe_mispredict",
           "probe_add", "probe_syscall", "probe_rep_stos", "probe_rep_movs",
           "probe_rep_cmps")


def _native(tmp_path) -> dict:
    out = tmp_path / "build"
    subprocess.run(["make", "-s", "-C", str(REPO / "workloads"), "ARCH=x86_64",
                    f"OUT={out}", str(out / "probe")], check=True)
    conf = tmp_path / "job.conf"
    conf.write_text(script.from_dict(JOB, "<test>").job_conf())
    line = subprocess.run([str(out / "probe"), str(conf)], check=True, capture_output=True,
                          text=True).stdout.strip()
    assert line.startswith("@@UACCESS-RESULT ")
    return json.loads(line.split(" ", 1)[1])


def test_probe_runs_natively_with_every_figure(tmp_path):
    res = _native(tmp_path)
    assert res["ops"] == OPS and res["errors"] == 0
    assert res["probe_unit"] == "cycles"
    assert all(res[f] > 0 for f in FIGURES)


def test_probe_script_bounds_its_work():
    job = script.from_dict(JOB, "<test>")
    assert dict(job.params)["chase_loads"] == "1024"
    with pytest.raises(Exception, match="run.chase_loads"):
        script.from_dict({"workload": "probe", "run": {"chase_loads": 10**7}}, "<test>")


@pytest.mark.skipif(not shutil.which("qemu-system-x86_64"),
                    reason="QEMU is missing: run 'make deps'")
def test_probe_under_qemu_does_the_same_work(tmp_path):
    native = _native(tmp_path)
    job = script.from_dict(JOB, "<test probe>")
    kernel = kbuild.build_kernel("x86_64", "stock")
    image = assemble.build_image("x86_64", job)
    rec = qemu_runs.run(kernel, image, job, "", 300, force=True, plugin=True)
    res = rec["result"]
    # The same chase, branches, adds and calls as on the host: one checksum.
    assert res["checksum"] == native["checksum"] and res["ops"] == OPS
    # Exact: an LFENCE before each of the 22 RDTSC reads (two per figure),
    # and no user access window opened by a getppid.
    x86 = rec["counts"]["x86"]
    assert x86["lfence"] - rec["counts"]["interrupts"]["x86"]["lfence"] == 22
    assert x86["stac"] - rec["counts"]["interrupts"]["x86"]["stac"] == 0
