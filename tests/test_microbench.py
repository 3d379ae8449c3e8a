"""The microbenchmark harness (workloads/include/microbench.h), natively on
x86_64: every loop microbenchmark is its operation on the harness, and
what the harness does holds for each of them (the calls it counts, the one
result line, the same checksum for the same calls, the job keys it
checks). Under QEMU, test_checksum and test_probe boot them."""

import json
import re
import shutil
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


def test_fstat_loop_returns_the_same_stat_through_either_call(programs, tmp_path):
    # The fstat system call (the default) and glibc's fstat() (newfstatat
    # with "" in the image's glibc) fill the same struct stat of the same
    # file: one checksum. A call the guest does not know is refused as the
    # harness refuses a bad loop key: one line, exit 2 (the host's schema
    # refuses it first, in tests/test_script.py).
    sums = []
    for call in ("syscall", "glibc"):
        conf = script.from_dict({"workload": "fstat-loop",
                                 "run": {"iterations": 200, "warmup": 10, "settle_ms": 0,
                                         "call": call}}, "<test>").job_conf()
        assert f"call={call}" in conf.splitlines()
        run = _run(programs, tmp_path, conf, "fstat-loop")
        assert run.returncode == 0, run.stderr
        result = json.loads(run.stdout.split(" ", 1)[1])
        assert result["ops"] == 200 and result["errors"] == 0
        sums.append(result["checksum"])
    assert sums[0] == sums[1]
    run = _run(programs, tmp_path, "workload=fstat-loop\ncall=fstatat\n", "fstat-loop")
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == "fstat-loop: call must be syscall or glibc, not fstatat\n"


@pytest.mark.skipif(not shutil.which("strace"), reason="strace is missing: apt-get install strace")
def test_fstat_loop_makes_the_call_its_job_names(programs, tmp_path):
    # What the kernel is asked, seen by strace natively (the program links
    # the host's libc.a statically, as the image's do: Debian 12's glibc
    # 2.36): the default makes the fstat system call on the target's fd,
    # every call of the loop; call = "glibc" makes glibc's
    # newfstatat(fd, "", AT_EMPTY_PATH) instead.
    calls = 50 + 5
    for call, made, other in (("syscall", "fstat(3,", "newfstatat(3, \"\""),
                              ("glibc", "newfstatat(3, \"\"", "fstat(3,")):
        job = tmp_path / f"{call}.conf"
        job.write_text(script.from_dict({"workload": "fstat-loop",
                                         "run": {"iterations": 50, "warmup": 5,
                                                 "settle_ms": 0, "call": call}},
                                        "<test>").job_conf())
        trace = tmp_path / f"{call}.strace"
        traced = subprocess.run(["strace", "-e", "trace=fstat,newfstatat", "-o", str(trace),
                                 str(programs / "fstat-loop"), str(job)],
                                capture_output=True, text=True)
        if traced.returncode != 0 and "ptrace" in traced.stderr:
            pytest.skip(f"strace cannot trace here: {traced.stderr.strip()}")
        assert traced.returncode == 0, traced.stderr
        lines = trace.read_text().splitlines()
        # The loop's calls at least; reading job.conf (also fd 3, then
        # closed) is one glibc newfstatat more, whatever the call.
        assert sum(line.startswith(made) for line in lines) >= calls, lines[:5]
        assert sum(line.startswith(other) for line in lines) <= 1, lines[:5]
