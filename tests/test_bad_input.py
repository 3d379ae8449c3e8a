"""The bad-input contract, table-driven: every way a path or a value comes
in (sweep files, workload scripts, presets, QEMU profiles, CLI flags) and
goes wrong ends with one line on stderr naming the problem, exit code 2,
and nothing written: not a kernel, not an image, not a result.

Each case runs run.py in a fresh cache and results folder; a case that
slipped past validation would start building (minutes) and hit the
subprocess timeout instead, so it fails loudly rather than passing slowly.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
RUN = REPO / "run.py"
GOOD_SWEEP = '[axes]\narch = ["x86_64"]\nvariant = ["stock"]\nworkload = ["statx-loop"]\n'
GOOD_SCRIPT = 'workload = "statx-loop"\n[run]\niterations = 10\n'


def _sweep(body):
    return ("sweep", "sw.toml", body)


def _script(body):
    return ("script", "s.toml", body)


# (id, files to make: (kind, name, content), argv with {tmp} and {name}
# placeholders, what the one line must say)
CASES = [
    # --- sweep files: the path itself
    ("sweep-missing", [], ["sweep", "{tmp}/nope.toml"], "not found"),
    ("sweep-directory", [("dir", "d", None)], ["sweep", "{tmp}/d"], "is a directory"),
    ("sweep-fifo", [("fifo", "f", None)], ["sweep", "{tmp}/f"], "not a regular file"),
    ("sweep-symlink-loop", [("loop", "l", None)], ["sweep", "{tmp}/l"], "symlink loop"),
    ("sweep-not-utf8", [_sweep(b"name = \"\xff\xfe\"\n")], ["sweep", "{tmp}/sw.toml"],
     "not UTF-8"),
    ("sweep-bom", [_sweep(b"\xef\xbb\xbf" + GOOD_SWEEP.encode())], ["sweep", "{tmp}/sw.toml"],
     "byte-order mark"),
    ("sweep-nested", [_sweep("x = " + "[" * 5000 + "]" * 5000 + "\n")],
     ["sweep", "{tmp}/sw.toml"], "nested too deeply"),
    ("sweep-empty", [_sweep("")], ["sweep", "{tmp}/sw.toml"], "is empty"),
    ("sweep-not-toml", [_sweep("[axes\n")], ["sweep", "{tmp}/sw.toml"], "not valid TOML"),
    # --- sweep files: values
    ("sweep-timeout-nan", [_sweep("[fixed]\ntimeout = nan\n" + GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml"], "fixed.timeout"),
    ("sweep-timeout-inf", [_sweep("[fixed]\ntimeout = inf\n" + GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml"], "fixed.timeout"),
    ("sweep-timeout-negative", [_sweep("[fixed]\ntimeout = -5\n" + GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml"], "fixed.timeout"),
    ("sweep-gem5-timeout-zero", [_sweep("[fixed]\ngem5_timeout = 0\n" + GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml"], "fixed.gem5_timeout"),
    ("sweep-duplicate-axis-value",
     [_sweep('[axes]\narch = ["x86_64"]\nvariant = ["stock", "stock"]\n')],
     ["sweep", "{tmp}/sw.toml"], "'stock' twice"),
    ("sweep-unknown-variant", [_sweep('[axes]\nvariant = ["turbo"]\n')],
     ["sweep", "{tmp}/sw.toml"], "unknown value 'turbo'"),
    ("sweep-unknown-top-key", [_sweep("colour = 1\n" + GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml"], "unknown key"),
    ("sweep-axes-not-table", [_sweep("axes = 3\n")], ["sweep", "{tmp}/sw.toml"],
     "must be a table"),
    ("sweep-name-not-a-file-name", [_sweep('name = "../x"\n' + GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml"], "name"),
    ("sweep-too-large",
     [_sweep('[axes]\narch = ["x86_64"]\nvariant = ["stock"]\nworkload = ["lstat-storm"]\n'
             '[params]\n"lstat-storm.run.seed" = [' + ", ".join(map(str, range(1, 3000)))
             + "]\n")],
     ["sweep", "{tmp}/sw.toml"], "points"),
    ("sweep-cpu-axis-zero",
     [_sweep('[fixed]\nbackend = "gem5"\n[axes]\narch = ["x86_64"]\nvariant = ["stock"]\n'
             '"cpu.numROBEntries" = [0]\n')],
     ["sweep", "{tmp}/sw.toml"], "positive integers"),
    # gem5 missing (GEM5_HOME is unset here): the line says how to run the
    # sweep's other arch alone.
    ("sweep-gem5-missing-other-arch",
     [_sweep('[fixed]\nbackend = "gem5"\n[axes]\narch = ["x86_64", "arm64"]\n'
             'variant = ["stock"]\nworkload = ["statx-loop"]\n')],
     ["sweep", "{tmp}/sw.toml"], "x86_64 gem5 points; to run the other points without it: "
     "--arch arm64"),
    ("sweep-unknown-preset",
     [_sweep('[fixed]\nbackend = "gem5"\n[axes]\narch = ["x86_64"]\nvariant = ["stock"]\n'
             'cpu_preset = ["pentium"]\n')],
     ["sweep", "{tmp}/sw.toml"], "unknown value 'pentium'"),
    ("sweep-kernel-entry-unknown",
     [_sweep('[fixed]\nbackend = "gem5"\n[axes]\narch = ["x86_64"]\nvariant = ["stock"]\n'
             '"cpu.kernel_entry" = ["fast"]\n')],
     ["sweep", "{tmp}/sw.toml"], "serialize or sdm"),
    ("sweep-kernel-entry-twice",
     [_sweep('[fixed]\nbackend = "gem5"\n[axes]\narch = ["x86_64"]\nvariant = ["stock"]\n'
             '"cpu.kernel_entry" = ["sdm", "sdm"]\n')],
     ["sweep", "{tmp}/sw.toml"], "twice"),
    ("sweep-workload-script-missing",
     [_sweep('[axes]\narch = ["x86_64"]\nvariant = ["stock"]\nworkload = ["no.toml"]\n')],
     ["sweep", "{tmp}/sw.toml"], "neither a workload"),
    # --- workload scripts
    ("script-missing", [], ["build-image", "--arch", "x86_64", "--script", "{tmp}/no.toml"],
     "not found"),
    ("script-directory", [("dir", "d", None)],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/d"], "is a directory"),
    ("script-empty", [_script("")],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"], "is empty"),
    ("script-bom", [_script(b"\xef\xbb\xbf" + GOOD_SCRIPT.encode())],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"], "byte-order mark"),
    ("script-iterations-zero", [_script('workload = "statx-loop"\n[run]\niterations = 0\n')],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"], "run.iterations"),
    ("script-warmup-negative", [_script('workload = "statx-loop"\n[run]\nwarmup = -1\n')],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"], "run.warmup"),
    ("script-ratio-nan",
     [_script('workload = "lstat-storm"\n[tree]\nsymlink_ratio = nan\n')],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"], "tree.symlink_ratio"),
    ("script-no-op-can-run",
     [_script('workload = "lstat-storm"\n[mix]\nlstat = 0\n')],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"], "mix"),
    ("script-tree-too-large",
     [_script('workload = "lstat-storm"\n[tree]\ndepth = 6\ndirs = 100\nfiles = 100\n')],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"], "entries"),
    ("script-probe-loads-zero", [_script('workload = "probe"\n[run]\nchase_loads = 0\n')],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"], "run.chase_loads"),
    ("script-probe-loads-huge",
     [_script('workload = "probe"\n[run]\nchase_loads = 100000000\n')],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"], "run.chase_loads"),
    ("script-unknown-key", [_script('workload = "statx-loop"\n[run]\nspeed = 3\n')],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"], "unknown key run.speed"),
    ("script-wrong-workload", [_script('workload = "ls"\n')],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"], "workload must be"),
    # --- CLI flags
    ("cli-unknown-arch", [], ["run", "--arch", "sparc"], "unknown arch 'sparc'"),
    ("cli-unknown-sampling", [], ["run", "--arch", "x86_64", "--backend", "gem5",
                                  "--sampling", "smarts"], "unknown sampling 'smarts'"),
    ("cli-simpoint-cold", [], ["run", "--arch", "x86_64", "--backend", "gem5", "--sampling",
                               "simpoint", "--warming", "none"], "needs --warming functional"),
    ("cli-simpoint-max-k", [], ["run", "--arch", "x86_64", "--backend", "gem5", "--sampling",
                                "simpoint", "--simpoint-max-k", "0"],
     "--simpoint-max-k must be at least 1"),
    ("cli-unknown-builder", [], ["build-image", "--arch", "x86_64", "--builder", "yocto"],
     "unknown --builder 'yocto'"),
    ("cli-unknown-br-toolchain", [], ["build-image", "--arch", "x86_64", "--builder",
                                      "buildroot", "--br-toolchain", "gnu"],
     "unknown Buildroot toolchain 'gnu'"),
    ("cli-br-kernel-without-buildroot", [], ["build-image", "--arch", "x86_64",
                                             "--br-kernel", "stock"],
     "--br-kernel needs --builder buildroot"),
    ("cli-br-kernel-unknown-variant", [], ["build-image", "--arch", "x86_64", "--builder",
                                           "buildroot", "--br-kernel", "turbo"],
     "unknown variant 'turbo'"),
    ("cli-br-kernel-gem5", [], ["run", "--arch", "x86_64", "--backend", "gem5", "--builder",
                                "buildroot", "--br-kernel"], "--br-kernel is for the QEMU"),
    ("cli-unknown-variant", [], ["run", "--arch", "x86_64", "--variant", "turbo"],
     "unknown variant 'turbo'"),
    ("cli-variant-path", [], ["run", "--arch", "x86_64", "--variant", "../stock"],
     "unknown variant"),
    ("cli-unknown-profile", [], ["run", "--arch", "x86_64", "--profile", "../../x"],
     "unknown QEMU profile"),
    ("cli-unknown-cache", [], ["run", "--arch", "x86_64", "--backend", "gem5",
                               "--cache", "huge"], "unknown cache preset"),
    ("cli-kernel-entry-unknown", [], ["run", "--arch", "x86_64", "--backend", "gem5",
                                      "--kernel-entry", "fast"], "kernel-entry"),
    ("cli-kernel-entry-arm", [], ["run", "--arch", "arm64", "--backend", "gem5",
                                  "--kernel-entry", "sdm"], "x86-only"),
    ("cli-unknown-cpu-preset", [], ["run", "--arch", "x86_64", "--backend", "gem5",
                                    "--cpu-preset", "pentium"], "pentium"),
    ("cli-unknown-smap-model", [], ["run", "--arch", "x86_64", "--backend", "gem5",
                                    "--smap-model", "magic"], "magic"),
    ("cli-timeout-zero", [], ["run", "--arch", "x86_64", "--timeout", "0"], "--timeout"),
    ("cli-timeout-nan", [], ["run", "--arch", "x86_64", "--timeout", "nan"], "--timeout"),
    ("cli-timeout-inf", [], ["run", "--arch", "x86_64", "--timeout", "inf"], "--timeout"),
    ("cli-jobs-negative", [], ["build-kernel", "--arch", "x86_64", "--jobs", "-3"], "--jobs"),
    ("cli-workers-negative", [("file", "sw.toml", GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml", "--workers", "-1"], "--workers"),
    ("cli-jobs-not-a-number", [], ["build-kernel", "--arch", "x86_64", "--jobs", "many"],
     "--jobs"),
    ("cli-unknown-flag", [], ["run", "--arch", "x86_64", "--turbo"], "--turbo"),
    ("cli-unknown-executor", [("file", "sw.toml", GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml", "--executor", "kubernetes"], "--executor"),
    ("cli-results-is-a-file", [("file", "r", "x"), ("file", "sw.toml", GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml", "--results", "{tmp}/r"], "not a directory"),
    ("cli-calibrate-mechanism", [], ["calibrate", "--mechanism", "tlb"], "tlb"),
    ("cli-calibrate-latencies", [], ["calibrate", "--latencies", "1,x"], "--latencies"),
    ("cli-calibrate-latency-zero", [], ["calibrate", "--latencies", "0,4"], "--latencies"),
    ("cli-simpoint-max-k-zero", [("file", "a.bb", "T:1:10\n")],
     ["simpoint", "{tmp}/a.bb", "--max-k", "0"], "--max-k"),
    ("cli-simpoint-empty-bb", [("file", "a.bb", "")], ["simpoint", "{tmp}/a.bb"], "empty"),
    ("cli-simpoint-bb-directory", [("dir", "d", None)], ["simpoint", "{tmp}/d"],
     "is a directory"),
    ("cli-report-missing-sweep", [], ["report", "{tmp}/nope.toml"], "not found"),
]


def _make(tmp: Path, kind: str, name: str, content):
    p = tmp / name
    if kind == "dir":
        p.mkdir()
    elif kind == "fifo":
        os.mkfifo(p)
    elif kind == "loop":
        p.symlink_to(tmp / "loop2")
        (tmp / "loop2").symlink_to(p)
    else:
        p.write_bytes(content if isinstance(content, bytes) else content.encode())


def test_the_table_is_at_least_forty_inputs():
    assert len(CASES) >= 40
    assert len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("files, argv, says", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, files, argv, says):
    work = tmp_path / "in"
    work.mkdir()
    for kind, name, content in files:
        _make(work, "file" if kind in ("sweep", "script") else kind, name, content)
    cache = tmp_path / "cache"
    argv = [a.replace("{tmp}", str(work)) for a in argv]
    if argv[0] in ("sweep", "report", "scorecard") and "--results" not in argv:
        argv += ["--results", str(tmp_path / "results")]
    before = sorted(p.name for p in work.iterdir())
    env = dict(os.environ, UACCESS_CACHE=str(cache))
    env.pop("GEM5_HOME", None)
    out = subprocess.run([sys.executable, str(RUN), *argv], capture_output=True, text=True,
                         timeout=60, env=env, stdin=subprocess.DEVNULL)
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2, out.stderr
    assert len(lines) == 1, out.stderr
    assert says in lines[0], lines[0]
    assert not out.stdout.strip(), out.stdout
    # Nothing written: no cache, no results, the inputs as they were.
    assert not cache.exists() or not any(cache.rglob("*")), list(cache.rglob("*"))
    assert not (tmp_path / "results").exists()
    assert sorted(p.name for p in work.iterdir()) == before
