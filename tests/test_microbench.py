"""The microbenchmark harness (workloads/include/microbench.h), natively on
x86_64: every loop microbenchmark is its operation on the harness, and
what the harness does holds for each of them (the calls it counts, the one
result line, the same checksum for the same calls, the job keys it
checks). Under QEMU, test_checksum and test_probe boot them."""

import json
import re
import subprocess
from pathlib import Path

import pytest

from buildroot import assemble
from workloads import script

REPO = Path(__file__).resolve().parent.parent
LOOPS = ("fstat-loop", "statx-loop", "readlink-loop", "stat-namelen", "usercopy-loop")
LENGTHS = (3, 7)  # stat-namelen: five subjects, one a name length


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("workloads")
    subprocess.run(["make", "-s", "-C", str(REPO / "workloads"), "ARCH=x86_64", f"OUT={out}",
                    *(str(out / name) for name in LOOPS)], check=True)
    return out


def _run(programs: Path, tmp_path: Path, conf: str, workload: str):
    job = tmp_path / "job.conf"
    job.write_text(conf)
    return subprocess.run([str(programs / workload), str(job)], capture_output=True, text=True)


@pytest.mark.parametrize("workload", LOOPS)
def test_each_microbenchmark_counts_its_calls_in_one_result_line(programs, tmp_path,
                                                                  workload):
    params = {"iterations": 300, "warmup": 10, "detailed_warmup": 5, "settle_ms": 0}
    if workload == "stat-namelen":
        params["name_len"] = list(LENGTHS)
    conf = script.from_dict({"workload": workload, "run": params}, "<test>").job_conf()
    lines = []
    for _ in range(2):
        run = _run(programs, tmp_path, conf, workload)
        assert run.returncode == 0, run.stderr
        assert len(run.stdout.splitlines()) == 1
        assert run.stdout.startswith("@@UACCESS-RESULT {")
        lines.append(json.loads(run.stdout.split(" ", 1)[1]))
    first, second = lines
    subjects = LENGTHS[1] - LENGTHS[0] + 1 if workload == "stat-namelen" else 1
    # Only the ROI's calls: the warm-ups have a checksum state of their own.
    assert first["workload"] == workload and first["ops"] == 300 * subjects
    assert first["errors"] == 0 and re.fullmatch(r"[0-9a-f]{16}", first["checksum"])
    assert first["checksum"] == second["checksum"]  # the same calls on the same files
    if workload == "stat-namelen":
        assert first["name_lens"] == list(LENGTHS) and len(first["per_len_ns"]) == subjects


def test_the_harness_checks_the_loop_keys_for_every_microbenchmark(programs, tmp_path):
    # The host's checks (script.py) refuse this job first; the guest's are
    # the harness's, one message for every microbenchmark.
    for workload in LOOPS:
        run = _run(programs, tmp_path, f"workload={workload}\niterations=0\n", workload)
        assert run.returncode == 2 and run.stdout == ""
        assert run.stderr == (f"{workload}: need iterations >= 1, warmup >= 0, "
                              "detailed_warmup >= 0\n")


def test_every_program_of_the_image_is_a_workload_a_script_can_name():
    # One file in workloads/src is one program in every image (the
    # Makefile, the assembler and the Buildroot package build them all):
    # each needs its job keys in script.SCHEMAS.
    assert set(assemble.programs()) <= set(script.workload_names())
    assert set(LOOPS) <= set(assemble.programs())


def test_the_guide_shows_fstat_loop_as_it_is():
    guide = (REPO / "docs" / "guide" / "extending.md").read_text()
    shown = guide.split("## A microbenchmark", 1)[1].split("```c\n", 1)[1].split("```", 1)[0]
    source = (REPO / "workloads" / "src" / "fstat-loop.c").read_text()
    assert source.split(" */\n", 1)[1] == shown
