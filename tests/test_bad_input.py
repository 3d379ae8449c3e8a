"""The bad-input contract, table-driven: every way a path or a value comes
in (sweep files, workload scripts, presets, QEMU profiles, CLI flags) and
goes wrong ends with one line on stderr naming the problem, exit code 2,
and nothing written: not a kernel, not an image, not a result.

Each case runs run.py in a fresh cache and results folder; a case that
slipped past validation would start building (minutes) and hit the
subprocess timeout instead, so it fails loudly rather than passing slowly.
Cases about gem5 presets or QEMU profiles run run.py with its preset or
profile folder moved to a copy holding the case's file (the repository's
folders are never touched); cases about the environment set it.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
RUN = REPO / "run.py"
GOOD_SWEEP = '[axes]\narch = ["x86_64"]\nvariant = ["stock"]\nworkload = ["statx-loop"]\n'
GOOD_SCRIPT = 'workload = "statx-loop"\n[run]\niterations = 10\n'
GEM5_SWEEP = ('[fixed]\nbackend = "gem5"\n[axes]\narch = ["x86_64"]\nvariant = ["stock"]\n'
              'workload = ["statx-loop"]\n')
CPU = 'arch = "x86_64"\ntype = "o3"\n'
BIG = "100000000000000000000"  # 1e20: beyond 64 bits, which tomllib does not enforce
# run.py with its preset and profile folders moved (TEST_PRESETS,
# TEST_PROFILES): the only way into it the cases use besides argv and env.
SHIM = ("import os, runpy, sys; from pathlib import Path; sys.path.insert(0, {repo!r}); "
        "from configs.qemu import profile; from lab import cpu_presets; "
        "cpu_presets.PRESET_DIR = Path(os.environ.get('TEST_PRESETS', cpu_presets.PRESET_DIR)); "
        "profile.PROFILE_DIR = Path(os.environ.get('TEST_PROFILES', profile.PROFILE_DIR)); "
        "sys.argv = [{run!r}] + sys.argv[1:]; runpy.run_path({run!r}, run_name='__main__')"
        ).format(repo=str(REPO), run=str(RUN))


def _sweep(body):
    return ("sweep", "sw.toml", body)


def _script(body):
    return ("script", "s.toml", body)


def _cpu_preset(body):
    return ("preset", "cpu/p.toml", CPU + body)


def _cache_preset(body):
    return ("preset", "cache/p.toml", body)


def _profile(edit):
    """x86_64-smap's profile, edited by (old line, new line)."""
    return ("profile", "x86_64-smap.toml", edit)


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
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"], "unknown key 'run.speed'"),
    ("script-wrong-workload", [_script('workload = "ls"\n')],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"], "workload must be"),
    # --- CLI flags
    ("cli-unknown-arch", [], ["run", "--arch", "sparc"], "--arch: invalid choice: 'sparc'"),
    ("cli-unknown-sampling", [], ["run", "--arch", "x86_64", "--backend", "gem5",
                                  "--sampling", "smarts"], "--sampling: invalid choice: 'smarts'"),
    ("cli-simpoint-cold", [], ["run", "--arch", "x86_64", "--backend", "gem5", "--sampling",
                               "simpoint", "--warming", "none"], "needs --warming functional"),
    ("cli-simpoint-max-k", [], ["run", "--arch", "x86_64", "--backend", "gem5", "--sampling",
                                "simpoint", "--simpoint-max-k", "0"],
     "--simpoint-max-k must be at least 1"),
    ("cli-unknown-warming", [], ["run", "--arch", "x86_64", "--backend", "gem5",
                                 "--warming", "hot"], "--warming: invalid choice: 'hot'"),
    ("cli-simpoint-commit-profile", [], ["run", "--arch", "x86_64", "--backend", "gem5",
                                         "--sampling", "simpoint", "--commit-profile"],
     "--commit-profile needs the whole ROI"),
    ("cli-crosscheck-serialize", [], ["crosscheck", "--arch", "x86_64", "--smap-model",
                                      "serialize"], "serialize has no QEMU twin"),
    ("cli-unknown-mechanism", [], ["calibrate", "--mechanism", "tlb"],
     "--mechanism: invalid choice: 'tlb'"),
    ("cli-unknown-builder", [], ["build-image", "--arch", "x86_64", "--builder", "yocto"],
     "--builder: invalid choice: 'yocto'"),
    ("cli-unknown-br-toolchain", [], ["build-image", "--arch", "x86_64", "--builder",
                                      "buildroot", "--br-toolchain", "gnu"],
     "--br-toolchain: invalid choice: 'gnu'"),
    ("cli-br-kernel-without-buildroot", [], ["build-image", "--arch", "x86_64",
                                             "--br-kernel", "stock"],
     "--br-kernel needs --builder buildroot"),
    ("cli-br-kernel-unknown-variant", [], ["build-image", "--arch", "x86_64", "--builder",
                                           "buildroot", "--br-kernel", "turbo"],
     "--br-kernel: invalid choice: 'turbo'"),
    ("cli-br-kernel-gem5", [], ["run", "--arch", "x86_64", "--backend", "gem5", "--builder",
                                "buildroot", "--br-kernel"], "--br-kernel is for the QEMU"),
    ("cli-unknown-variant", [], ["run", "--arch", "x86_64", "--variant", "turbo"],
     "--variant: invalid choice: 'turbo'"),
    ("cli-variant-path", [], ["run", "--arch", "x86_64", "--variant", "../stock"],
     "--variant: invalid choice: '../stock'"),
    ("cli-unknown-profile", [], ["run", "--arch", "x86_64", "--profile", "../../x"],
     "--profile: invalid choice: '../../x'"),
    ("cli-unknown-cache", [], ["run", "--arch", "x86_64", "--backend", "gem5",
                               "--cache", "huge"], "--cache: invalid choice: 'huge'"),
    ("cli-kernel-entry-unknown", [], ["run", "--arch", "x86_64", "--backend", "gem5",
                                      "--kernel-entry", "fast"], "kernel-entry"),
    ("cli-kernel-entry-arm", [], ["run", "--arch", "arm64", "--backend", "gem5",
                                  "--kernel-entry", "sdm"], "x86-only"),
    # gem5's flags on the QEMU backend (the default) and QEMU's on gem5: each
    # refused in one line before anything is built (issue 58), not ignored.
    *[(f"cli-gem5-flag-on-qemu{flag}", [], ["run", "--arch", "x86_64", flag, *value],
       f"{flag} is for gem5 (--backend gem5): the qemu backend does not read it")
      for flag, *value in (("--cpu-preset", "x86_64-skylake"), ("--cache", "x86_64-skylake"),
                           ("--warming", "none"), ("--sampling", "simpoint"),
                           ("--kernel-entry", "sdm"), ("--stac-clac", "commit"),
                           ("--uops", "fused"), ("--fast-strings", "chunked"),
                           ("--branch-predictor", "LTAGE"),
                           ("--smap-model", "lfence"), ("--simpoint-max-k", "3"),
                           ("--simpoint-measure-all",), ("--gem5", "/nonexistent"))],
    # The same at their default value (issue 67): a flag given is given,
    # whatever its value; compared with its default it passed as absent and
    # a kernel build started.
    *[(f"cli-gem5-default-on-qemu{flag}", [], ["run", "--arch", "x86_64", flag, value],
       f"{flag} is for gem5 (--backend gem5): the qemu backend does not read it")
      for flag, value in (("--cache", "classic-l1l2"), ("--warming", "functional"),
                          ("--sampling", "none"), ("--smap-model", "none"),
                          ("--cpu-preset", "default"), ("--simpoint-max-k", "10"),
                          ("--fast-strings", "loop"))],
    ("cli-qemu-flag-on-gem5", [], ["run", "--arch", "x86_64", "--backend", "gem5",
                                   "--plugin"], "--plugin is for the QEMU backend"),
    ("cli-qemu-default-profile-on-gem5", [], ["run", "--arch", "x86_64", "--backend", "gem5",
                                              "--profile", "default"],
     "--profile is for the QEMU backend"),
    ("cli-unknown-cpu-preset", [], ["run", "--arch", "x86_64", "--backend", "gem5",
                                    "--cpu-preset", "pentium"], "pentium"),
    ("cli-unknown-smap-model", [], ["run", "--arch", "x86_64", "--backend", "gem5",
                                    "--smap-model", "magic"], "--smap-model: invalid choice: 'magic'"),
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
    # issue 57: a .bb is data (no size cap), checked line by line
    ("cli-simpoint-truncated-bb", [("file", "a.bb", "T:1:10 :2:5\nT:1:3 :2:")],
     ["simpoint", "{tmp}/a.bb"], "a.bb:2: ends without a newline"),
    ("cli-simpoint-garbled-bb", [("file", "a.bb", "T:1:10 :2:5\nT:1:3 :2:x\n")],
     ["simpoint", "{tmp}/a.bb"], "a.bb:2: bad entry ':2:x'"),
    ("cli-report-missing-sweep", [], ["report", "{tmp}/nope.toml"], "not found"),
    # --- issue 31: work that cannot be meant
    ("sweep-only-comments", [_sweep("# a plan, later\n\n# nothing yet\n")],
     ["sweep", "{tmp}/sw.toml"], "holds no setting"),
    ("sweep-empty-axes", [_sweep("[axes]\n")], ["sweep", "{tmp}/sw.toml"], "axes: is empty"),
    ("sweep-empty-axes-tables", [_sweep("[[axes]]\n[[axes]]\n")],
     ["sweep", "{tmp}/sw.toml"], "axes[0]: is empty"),
    ("sweep-repeated-axes-table", [_sweep(GOOD_SWEEP.replace("[axes]", "[[axes]]") * 2)],
     ["sweep", "{tmp}/sw.toml"], "axes[1]: adds no point"),
    ("sweep-jobs-huge", [("file", "sw.toml", GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml", "--jobs", BIG], "at most"),
    ("build-kernel-jobs-huge", [], ["build-kernel", "--arch", "x86_64", "--jobs", BIG],
     "--jobs"),
    ("sweep-workers-beyond-points", [("file", "sw.toml", GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml", "--workers", "5000"], "the most points a sweep may hold"),
    ("sweep-arch-empty", [("file", "sw.toml", GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml", "--arch", ""], "--arch: invalid choice: ''"),
    ("cache-preset-size-sets", [_cache_preset('l1d_size = "3KiB"\nl1i_size = "32KiB"\n'
                                              'l2_size = "512KiB"\n')],
     ["run", "--arch", "x86_64", "--backend", "gem5", "--cache", "p"], "power of two"),
    ("cache-preset-size-sets-in-sweep",
     [_cache_preset('l1d_size = "32KiB"\nl1i_size = "32KiB"\nl2_size = "384KiB"\n'),
      _sweep(GEM5_SWEEP + 'cache = ["p"]\n')], ["sweep", "{tmp}/sw.toml"], "l2_size"),
    # --- tracebacks that are now one line
    ("results-uncreatable", [("file", "sw.toml", GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml", "--results", "/proc/1/nope"], "cannot be made under /proc/1"),
    ("results-unwritable", [("file", "sw.toml", GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml", "--results", "/sys/kernel"], "choose a folder you can write"),
    ("results-under-a-file", [("file", "f", "x"), ("file", "sw.toml", GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml", "--results", "{tmp}/f/r"], "where a folder should be"),
    ("results-name-too-long", [("file", "sw.toml", GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml", "--results", "{tmp}/" + "r" * 300], "its filesystem allows"),
    ("results-empty", [("file", "sw.toml", GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml", "--results", ""], "--results is empty"),
    ("cache-env-is-a-file", [("file", "c", "x"), ("file", "sw.toml", GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml"], "the cache (UACCESS_CACHE)", {"UACCESS_CACHE": "{tmp}/c"}),
    ("cache-env-uncreatable", [], ["run", "--arch", "x86_64"], "cannot be made under /proc/1",
     {"UACCESS_CACHE": "/proc/1/uaccess-cache"}),
    ("cache-env-uncreatable-slurm", [("file", "sw.toml", GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml", "--executor", "slurm"], "the cache (UACCESS_CACHE)",
     {"UACCESS_CACHE": "/proc/1/uaccess-cache"}),
    ("cache-preset-missing-key", [_cache_preset('l1d_size = "32KiB"\nl1i_size = "32KiB"\n')],
     ["run", "--arch", "x86_64", "--backend", "gem5", "--cache", "p"], "missing 'l2_size'"),
    ("profile-memory-int", [_profile(('memory = "512M"', "memory = 512"))],
     ["run", "--arch", "x86_64"], "memory must be a string"),
    ("profile-binary-list", [_profile(('binary = "qemu-system-x86_64"',
                                       'binary = ["qemu-system-x86_64"]'))],
     ["run", "--arch", "x86_64"], "binary must be a string"),
    ("profile-memory-not-a-size", [_profile(('memory = "512M"', 'memory = "lots"'))],
     ["run", "--arch", "x86_64"], "memory must be a size"),
    ("profile-memory-beyond-host", [_profile(('memory = "512M"', 'memory = "999999G"'))],
     ["run", "--arch", "x86_64"], "more than this host's"),
    ("profile-missing-key", [_profile(('cpu = "qemu64,+smap,+smep"', ""))],
     ["run", "--arch", "x86_64"], "missing 'cpu'"),
    ("profile-unknown-key", [_profile(('console = "ttyS0"', 'console = "ttyS0"\ncolour = "red"'))],
     ["run", "--arch", "x86_64"], "unknown key 'colour'"),
    ("profile-broken-in-sweep", [_profile(('memory = "512M"', "memory = 512")),
                                 ("file", "sw.toml", GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml", "--dry-run"], "memory must be a string"),
    ("sweep-name-too-long", [_sweep(f'name = "{"n" * 300}"\n' + GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml"], "more than the 239"),
    ("sweep-file-name-too-long", [("file", "s" * 245 + ".toml", GOOD_SWEEP)],
     ["sweep", "{tmp}/" + "s" * 245 + ".toml"], "set name ="),
    ("sweep-name-not-ascii", [_sweep('name = "café"\n' + GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml"], "must be a word"),
    # --- keys nested beyond any file of the lab
    ("sweep-name-dotted-deep", [_sweep("name." + ".".join(["a"] * 20000) + " = 1\n")],
     ["sweep", "{tmp}/sw.toml"], "dotted key of 20,001 parts"),
    ("sweep-fixed-dotted-deep",
     [_sweep("[fixed]\ntimeout." + ".".join(["a"] * 20000) + " = 1\n" + GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml"], "dotted key of 20,001 parts"),
    ("sweep-table-header-deep", [_sweep("[" + ".".join(["a"] * 5000) + "]\n")],
     ["sweep", "{tmp}/sw.toml"], "dotted key of 5,000 parts"),
    ("sweep-inline-tables-deep", [_sweep("x = " + "{a=" * 400 + "1" + "}" * 400 + "\n")],
     ["sweep", "{tmp}/sw.toml"], "nested too deeply"),
    ("sweep-arrays-five-deep", [_sweep(GOOD_SWEEP + "[params]\n\"lstat-storm.tree.name_len\" = "
                                       "[[[[4, 4]]]]\n")],
     ["sweep", "{tmp}/sw.toml"], "deeper than 4 levels"),
    ("script-dotted-deep", [_script('workload = "statx-loop"\nrun.a.b.c.d = 1\n')],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"], "dotted key of 5 parts"),
    # --- silent wrong work
    ("script-readlink-only-no-symlinks",
     [_script('workload = "lstat-storm"\n[mix]\nlstat = 0\nreadlink = 1\n')],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"],
     "readlink would never run"),
    ("script-readlink-fs-unknown",
     [_script('workload = "readlink-loop"\n[run]\nfs = "xfs"\n')],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"],
     "run.fs must be one of tmpfs, ext4"),
    ("script-fstat-call-unknown",
     [_script('workload = "fstat-loop"\n[run]\ncall = "fstatat"\n')],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"],
     "run.call must be one of syscall, glibc"),
    ("script-readlink-ext4-buildroot",
     [_script('workload = "readlink-loop"\n[run]\nfs = "ext4"\n')],
     ["build-image", "--arch", "x86_64", "--builder", "buildroot", "--script", "{tmp}/s.toml"],
     "needs the assembler's image"),
    ("sweep-readlink-ext4-boot-once",
     [_script('workload = "readlink-loop"\n[run]\nfs = "ext4"\n'),
      _sweep('[fixed]\nbackend = "gem5"\nwarming = "functional"\n[axes]\narch = ["x86_64"]\n'
             'variant = ["stock"]\nworkload = ["s.toml"]\n')],
     ["sweep", "{tmp}/sw.toml", "--dry-run"], "needs warming \"none\""),
    ("script-make-build-no-dirs",
     [_script('workload = "make-build"\n[run]\ndirs = 0\n')],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"],
     "run.dirs must be between 1 and 8"),
    ("script-make-build-more-dirs-than-the-tree",
     [_script('workload = "make-build"\n[run]\ndirs = 9\n')],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"],
     "run.dirs must be between 1 and 8"),
    ("script-make-build-no-jobs",
     [_script('workload = "make-build"\n[run]\njobs = 0\n')],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"],
     "run.jobs must be between 1 and 64"),
    ("script-make-build-storm-key",
     [_script('workload = "make-build"\n[tree]\ndepth = 2\n')],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"],
     "unknown section [tree] for make-build"),
    ("script-make-build-buildroot",
     [_script('workload = "make-build"\n')],
     ["build-image", "--arch", "x86_64", "--builder", "buildroot", "--script", "{tmp}/s.toml"],
     "make-build needs the assembler's image"),
    ("script-readlink-no-files",
     [_script('workload = "lstat-storm"\n[tree]\nfiles = 0\ndirs = 3\nsymlink_ratio = 0.5\n'
              '[mix]\nreadlink = 1\n')],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"], "tree.files is 0"),
    ("sweep-readlink-ratio-zero-param",
     [_sweep('[axes]\narch = ["x86_64"]\nvariant = ["stock"]\nworkload = ["lstat-storm"]\n'
             '[params]\n"lstat-storm.tree.symlink_ratio" = [0.1, 0.0]\n')],
     ["sweep", "{tmp}/sw.toml"], "readlink would never run"),
    ("script-kernel-tree-synthetic-key",
     [_script('workload = "lstat-storm"\n[tree]\nmode = "kernel-tree"\ndepth = 3\n')],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"],
     "tree.depth is read in synthetic mode only"),
    ("script-synthetic-sample",
     [_script('workload = "lstat-storm"\n[tree]\nsample = 100\n')],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"],
     "tree.sample is read in kernel-tree mode only"),
    ("sweep-kernel-tree-synthetic-param",
     [("file", "kt.toml", 'workload = "lstat-storm"\n[tree]\nmode = "kernel-tree"\n'
                          'sample = 10\n'),
      _sweep('[axes]\narch = ["x86_64"]\nvariant = ["stock"]\nworkload = ["kt.toml"]\n'
             '[params]\n"lstat-storm.tree.name_len" = [[4, 4]]\n')],
     ["sweep", "{tmp}/sw.toml"], "tree.name_len is read in synthetic mode only"),
    ("cli-profile-path", [], ["run", "--arch", "x86_64", "--profile", "../qemu-profiles/x86_64-smap"],
     "--profile: invalid choice"),
    ("cli-cpu-preset-path", [], ["run", "--arch", "x86_64", "--backend", "gem5", "--cpu-preset",
                                 "../cpu/x86_64-o3-default"], "--cpu-preset: invalid choice"),
    ("cli-cache-preset-path", [], ["run", "--arch", "x86_64", "--backend", "gem5", "--cache",
                                   "../cache/classic-l1l2"], "--cache: invalid choice"),
    ("sweep-cache-preset-path", [_sweep(GEM5_SWEEP + 'cache = ["../cache/classic-l1l2"]\n')],
     ["sweep", "{tmp}/sw.toml"], "unknown value '../cache/classic-l1l2'"),
    # --- one checker for a table, a string, a table's keys and a closed set (issue 28)
    ("sweep-params-not-a-table", [_sweep(GOOD_SWEEP.replace("[axes]", "params = 3\n[axes]"))],
     ["sweep", "{tmp}/sw.toml"], "[params] must be a table"),
    ("script-section-not-a-table", [_script('workload = "statx-loop"\nrun = 3\n')],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"], "[run] must be a table"),
    ("cpu-preset-fu-latency-not-a-table", [_cpu_preset("fu_latency = 3\n")],
     ["run", "--arch", "x86_64", "--backend", "gem5", "--cpu-preset", "p"],
     "[fu_latency] must be a table"),
    ("cpu-preset-fu-latency-unknown-class", [_cpu_preset("[fu_latency]\nStac = 40\n")],
     ["run", "--arch", "x86_64", "--backend", "gem5", "--cpu-preset", "p"],
     "unknown key 'fu_latency.Stac'"),
    ("cpu-preset-documented-unknown", [_cpu_preset("[documented]\nl7 = 3\n")],
     ["run", "--arch", "x86_64", "--backend", "gem5", "--cpu-preset", "p"],
     "unknown key 'documented.l7'"),
    ("cache-preset-unknown-key", [_cache_preset('l1d_size = "32KiB"\nl1i_size = "32KiB"\n'
                                                'l2_size = "256KiB"\nl4_size = "1MiB"\n')],
     ["run", "--arch", "x86_64", "--backend", "gem5", "--cache", "p"],
     "(a two-level preset): unknown key 'l4_size'"),
    ("cli-build-kernel-unknown-variant", [], ["build-kernel", "--arch", "x86_64", "--variant",
                                              "turbo"], "--variant: invalid choice: 'turbo'"),
    ("cli-calibrate-unknown-cpu-preset", [], ["calibrate", "--cpu-preset", "pentium"],
     "--cpu-preset: invalid choice: 'pentium'"),
    ("cli-crosscheck-unknown-cache", [], ["crosscheck", "--arch", "x86_64", "--cache", "huge"],
     "--cache: invalid choice: 'huge'"),
    # --- accepted before, though no run can do it
    ("sweep-timeout-huge", [_sweep("[fixed]\ntimeout = 1e308\n" + GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml"], "longest wait Python's clock can count"),
    ("sweep-gem5-timeout-huge", [_sweep("[fixed]\ngem5_timeout = 1e300\n" + GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml"], "fixed.gem5_timeout (seconds) must be at most"),
    ("cli-timeout-huge", [], ["run", "--arch", "x86_64", "--timeout", "1e308"],
     "longest wait Python's clock can count"),
    ("sweep-bbv-interval-beyond-64-bits", [_sweep(f"[fixed]\nbbv_interval = {BIG}\n" + GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml"], "64-bit"),
    ("cli-simpoint-interval-beyond-64-bits", [],
     ["run", "--arch", "x86_64", "--backend", "gem5", "--sampling", "simpoint",
      "--simpoint-interval", BIG], "--simpoint-interval must be at most"),
    ("script-seed-beyond-64-bits", [_script(f'workload = "lstat-storm"\n[run]\nseed = {BIG}\n')],
     ["build-image", "--arch", "x86_64", "--script", "{tmp}/s.toml"], "run.seed"),
    ("sweep-cpu-axis-beyond-32-bits", [_sweep(GEM5_SWEEP + f'"cpu.numROBEntries" = [{BIG}]\n')],
     ["sweep", "{tmp}/sw.toml"], "Param.Unsigned"),
    ("sweep-cpu-axis-width", [_sweep(GEM5_SWEEP + '"cpu.issueWidth" = [8, 16]\n')],
     ["sweep", "{tmp}/sw.toml"], "MaxWidth"),
    ("sweep-cpu-axis-delay", [_sweep(GEM5_SWEEP + '"cpu.fetchToDecodeDelay" = [9]\n')],
     ["sweep", "{tmp}/sw.toml"], "exceeds backComSize 5"),
    ("sweep-cpu-axis-fetch-buffer", [_sweep(GEM5_SWEEP + '"cpu.fetchBufferSize" = [48]\n')],
     ["sweep", "{tmp}/sw.toml"], "64 B cache line"),
    ("cpu-preset-rob-beyond-32-bits", [_cpu_preset("[params]\nnumROBEntries = 100000000000\n")],
     ["run", "--arch", "x86_64", "--backend", "gem5", "--cpu-preset", "p"], "Param.Unsigned"),
    ("cpu-preset-width", [_cpu_preset("[params]\ncommitWidth = 13\n")],
     ["run", "--arch", "x86_64", "--backend", "gem5", "--cpu-preset", "p"], "MaxWidth"),
    ("cpu-preset-delay", [_cpu_preset("[params]\nbackComSize = 3\niewToCommitDelay = 4\n")],
     ["run", "--arch", "x86_64", "--backend", "gem5", "--cpu-preset", "p"],
     "exceeds backComSize 3"),
    ("cpu-preset-fu-latency-huge", [_cpu_preset("[fu_latency]\nIntAlu = 1000000000000\n")],
     ["run", "--arch", "x86_64", "--backend", "gem5", "--cpu-preset", "p"],
     "more than a DRAM access"),
    ("cpu-preset-malformed-named-in-sweep",
     [_cpu_preset('[params]\nnumROBEntries = "big"\n'), _sweep(GEM5_SWEEP + 'cpu_preset = ["p"]\n')],
     ["sweep", "{tmp}/sw.toml"], "numROBEntries must be an integer"),
    ("cli-calibrate-latency-huge", [], ["calibrate", "--latencies", "1,1000000000000"],
     "more than a DRAM access"),
    ("cli-export-unknown-calibration", [], ["export", "calibrate-smap-x86_64-nosuch-classic-l1l2",
                                            "--to", "{tmp}/out"],
     "not a calibration's name"),
    ("run-kernel-tree-passes", [_script('workload = "lstat-storm"\n[tree]\nmode = "kernel-tree"\n'
                                        '[run]\npasses = 1000000000\n')],
     ["run", "--arch", "x86_64", "--script", "{tmp}/s.toml"], "system calls take at least"),
    ("run-statx-beyond-timeout", [_script('workload = "statx-loop"\n[run]\n'
                                          'iterations = 1000000000\nwarmup = 1000000000\n')],
     ["run", "--arch", "x86_64", "--script", "{tmp}/s.toml"], "more than the 300 s timeout"),
    ("run-statx-beyond-own-timeout", [_script('workload = "statx-loop"\n[run]\n'
                                              'iterations = 100000000\n')],
     ["run", "--arch", "x86_64", "--script", "{tmp}/s.toml", "--timeout", "5"],
     "more than the 5 s timeout"),
    ("sweep-statx-beyond-timeout",
     [_sweep("[fixed]\ntimeout = 60\n" + GOOD_SWEEP + '[params]\n"statx-loop.run.iterations" = '
             '[1000, 1000000000]\n')], ["sweep", "{tmp}/sw.toml"], "more than the 60 s timeout"),
    ("sweep-storm-beyond-timeout",
     [_sweep('[axes]\narch = ["x86_64"]\nvariant = ["stock"]\nworkload = ["lstat-storm"]\n'
             '[params]\n"lstat-storm.run.passes" = [1000000000]\n')],
     ["sweep", "{tmp}/sw.toml"], "system calls take at least"),
    # --- Slurm, the gem5 flag, and names that hold a newline
    ("slurm-conf-missing", [("file", "sw.toml", GOOD_SWEEP)],
     ["sweep", "{tmp}/sw.toml", "--executor", "slurm"], "is not a file",
     {"SLURM_CONF": "{tmp}/none.conf"}),
    ("slurm-conf-garbage", [("file", "sw.toml", GOOD_SWEEP), ("file", "bad.conf", "x = = =\n")],
     ["sweep", "{tmp}/sw.toml", "--executor", "slurm"], "no Slurm cluster answers",
     {"SLURM_CONF": "{tmp}/bad.conf"}),
    ("gem5-flag-not-a-tree", [], ["run", "--arch", "x86_64", "--backend", "gem5", "--gem5",
                                  "/etc"], "/etc is not a gem5 source tree"),
    ("sweep-gem5-flag-not-a-tree", [_sweep(GEM5_SWEEP)],
     ["sweep", "{tmp}/sw.toml", "--gem5", "/etc"], "/etc is not a gem5 source tree"),
    # What is wrong with the path, said as it is (issue 67).
    ("gem5-flag-a-file", [], ["run", "--arch", "x86_64", "--backend", "gem5", "--gem5",
                              "/etc/passwd"], "/etc/passwd is not a directory"),
    ("doctor-gem5-flag-nonexistent", [], ["doctor", "--gem5", "{tmp}/nonexistent"],
     "nonexistent does not exist"),
    ("newline-in-variant", [], ["run", "--arch", "x86_64", "--variant", "sto\nck"],
     "--variant: invalid choice: 'sto\\nck'"),
    ("newline-in-sweep-path", [], ["sweep", "{tmp}/no\nsuch.toml"], "not found"),
    ("newline-in-profile", [], ["run", "--arch", "x86_64", "--profile", "x86_64-smap\n"],
     "--profile: invalid choice"),
    # predict: the variant, its patch file and the names it takes (issue 68).
    ("predict-unknown-variant", [], ["predict", "no-such-variant"],
     "unknown variant 'no-such-variant'"),
    ("predict-patch-missing", [], ["predict", "{tmp}/none.patch"],
     "none.patch not found: give a git format-patch file"),
    # Checked against the tarball itself in a fresh cache: nothing extracted.
    ("predict-patch-does-not-apply", [],
     ["predict", str(REPO / "tests" / "data" / "predict" / "stale-context.patch")],
     "stale-context.patch does not apply to linux-source-6.1"),
    ("predict-unknown-machine", [], ["predict", "stock", "--machines", "x86_64-haswell"],
     "unknown machine 'x86_64-haswell'"),
    ("predict-unknown-workload", [], ["predict", "stock", "--workloads", "statx-storm"],
     "unknown workload 'statx-storm'"),
    ("predict-against-itself", [], ["predict", "stock"],
     "stock is the kernel the prediction is against"),
    ("predict-unknown-against", [], ["predict", "stock", "--against", "nope"],
     "unknown variant 'nope'"),
]

# Cases that need a tool the test machine may lack: (case, tool).
NEEDS = {"slurm-conf-garbage": "sinfo", "slurm-conf-missing": "sinfo"}


def _folders(root: Path, files) -> dict:
    """Copies of the preset and profile folders holding the cases' files,
    and the environment that points run.py at them."""
    env = {}
    for kind, name, content in files:
        if kind == "preset":
            dest = root / "presets"
            if not dest.exists():
                shutil.copytree(REPO / "configs" / "gem5-presets", dest)
            (dest / name).write_text(content)
            env["TEST_PRESETS"] = str(dest)
        elif kind == "profile":
            dest = root / "profiles"
            if not dest.exists():
                shutil.copytree(REPO / "configs" / "qemu-profiles", dest)
            old, new = content
            text = (dest / name).read_text()
            assert old in text, (name, old)
            (dest / name).write_text(text.replace(old, new))
            env["TEST_PROFILES"] = str(dest)
    return env


def _snapshot(root: Path) -> dict:
    """Every path under `root` with its kind, and each file's size and
    modification time: what 'nothing written' compares. (Folders' times
    are left out: checking that a folder can be written makes and removes
    a probe in it.)"""
    out = {}
    for p in sorted(root.rglob("*")):
        st = p.lstat()
        out[str(p.relative_to(root))] = ("dir",) if p.is_dir() and not p.is_symlink() else \
            ("file", st.st_size, st.st_mtime_ns)
    return out


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


def test_the_table_is_at_least_eighty_inputs():
    assert len(CASES) >= 80
    assert len({c[0] for c in CASES}) == len(CASES)
    assert set(NEEDS) <= {c[0] for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, case):
    name, files, argv, says, extra_env = (case + ({},))[:5]
    if name in NEEDS and not shutil.which(NEEDS[name]):
        pytest.skip(f"{NEEDS[name]} is missing: apt-get install slurm-wlm")
    work = tmp_path / "in"
    work.mkdir()
    for kind, fname, content in files:
        if kind not in ("preset", "profile"):
            _make(work, "file" if kind in ("sweep", "script") else kind, fname, content)
    cache = tmp_path / "cache"
    argv = [a.replace("{tmp}", str(work)) for a in argv]
    if argv[0] in ("sweep", "report", "scorecard", "predict") and "--results" not in argv:
        argv += ["--results", str(tmp_path / "results")]
    env = dict(os.environ, UACCESS_CACHE=str(cache), **_folders(tmp_path, files))
    env.update({k: v.replace("{tmp}", str(work)) for k, v in extra_env.items()})
    for var in ("GEM5_HOME", "SLURM_CONF"):
        if var not in extra_env:
            env.pop(var, None)
    before = _snapshot(tmp_path)
    out = subprocess.run([sys.executable, "-c", SHIM, *argv], capture_output=True, text=True,
                         timeout=60, env=env, stdin=subprocess.DEVNULL)
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2, out.stderr
    assert len(lines) == 1, out.stderr
    assert says in lines[0], lines[0]
    assert not out.stdout.strip(), out.stdout
    # Nothing written: no cache, no results, the inputs as they were.
    assert not cache.exists() or not any(cache.rglob("*")), list(cache.rglob("*"))
    assert not (tmp_path / "results").exists()
    assert _snapshot(tmp_path) == before


def test_a_malformed_preset_breaks_only_what_names_it(tmp_path):
    """A broken CPU preset dropped into the folder: a QEMU sweep and a gem5
    sweep on other presets still plan, and `list` still lists the rest."""
    env = dict(os.environ, UACCESS_CACHE=str(tmp_path / "cache"),
               **_folders(tmp_path, [_cpu_preset('[params]\nnumROBEntries = "big"\n')]))
    env.pop("GEM5_HOME", None)
    (tmp_path / "q.toml").write_text(GOOD_SWEEP)
    (tmp_path / "g.toml").write_text(GEM5_SWEEP)
    for argv in (["list"], ["sweep", str(tmp_path / "q.toml"), "--dry-run"],
                 ["sweep", str(tmp_path / "g.toml"), "--dry-run"]):
        out = subprocess.run([sys.executable, "-c", SHIM, *argv], capture_output=True,
                             text=True, timeout=60, env=env, stdin=subprocess.DEVNULL)
        assert out.returncode == 0, out.stderr
    assert "x86_64-o3-default" in out.stdout and "needs gem5" in out.stdout
    assert not (tmp_path / "cache").exists()
