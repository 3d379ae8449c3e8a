"""run.py's contract for bad input: one line, exit code 2, nothing built."""

import subprocess
import sys
from pathlib import Path

import pytest

RUN = Path(__file__).resolve().parent.parent / "run.py"


def _run(*args):
    return subprocess.run([sys.executable, str(RUN), *args], capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("args, says", [
    (["run", "--arch", "sparc"], "--arch: invalid choice: 'sparc'"),
    (["run", "--arch", "x86_64", "--variant", "turbo"], "--variant: invalid choice: 'turbo'"),
    (["run", "--arch", "arm64", "--variant", "dcache-repcmpsb"], "does not apply to arm64"),
    (["run", "--arch", "x86_64", "--workload", "ls"], "unknown workload 'ls'"),
    (["run", "--arch", "x86_64", "--backend", "bochs"], "--backend: invalid choice: 'bochs'"),
    (["run", "--arch", "x86_64", "--profile", "arm64-pan"], "is for arm64"),
])
def test_bad_input_is_one_line_and_exit_2(args, says):
    out = _run(*args)
    assert out.returncode == 2, out.stderr
    assert says in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr


def test_malformed_script(tmp_path):
    bad = tmp_path / "s.toml"
    bad.write_text('workload = "lstat-storm"\n[tree]\ndepth = "deep"\n')
    out = _run("build-image", "--arch", "x86_64", "--script", str(bad))
    assert out.returncode == 2
    assert "tree.depth must be an integer" in out.stderr


def test_list():
    out = _run("list")
    assert out.returncode == 0
    assert "statx-putuser" in out.stdout and "x86_64-smap" in out.stdout


def test_malformed_sweep_is_one_line(tmp_path):
    bad = tmp_path / "sw.toml"
    bad.write_text('[axes]\nvariant = ["stock", "turbo"]\n')
    out = _run("sweep", str(bad), "--dry-run")
    assert out.returncode == 2
    assert "axes.variant[1]: unknown value 'turbo' (valid:" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_dry_run_prints_the_plan(tmp_path):
    sw = tmp_path / "sw.toml"
    sw.write_text('[axes]\narch = ["x86_64"]\nvariant = ["stock"]\n'
                  'workload = ["fstat-loop", "statx-loop"]\n')
    out = _run("sweep", str(sw), "--dry-run", "--results", str(tmp_path / "r"))
    assert out.returncode == 0, out.stderr
    assert "2 points:" in out.stdout and "x86_64/stock/statx-loop" in out.stdout
    assert not (tmp_path / "r").exists()  # a dry run writes nothing


def test_a_dry_run_writes_nothing_into_the_cache(tmp_path):
    """The plan hashes the kernel source; the hash is memoised only once
    something is built, so a dry run leaves a fresh cache absent."""
    import os
    sw = tmp_path / "sw.toml"
    sw.write_text('[axes]\narch = ["x86_64"]\nvariant = ["stock"]\nworkload = ["statx-loop"]\n')
    env = dict(os.environ, UACCESS_CACHE=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, str(RUN), "sweep", str(sw), "--dry-run", "--results",
                          str(tmp_path / "r")], capture_output=True, text=True, timeout=120,
                         env=env)
    assert out.returncode == 0, out.stderr
    assert "1 points:" in out.stdout
    assert not (tmp_path / "cache").exists() and not (tmp_path / "r").exists()


def test_a_dry_run_plans_gem5_points_without_gem5(tmp_path):
    """Planning a study before gem5 is built: every point listed, the gem5
    ones marked as needing it, exit 0."""
    import os
    sw = tmp_path / "sw.toml"
    sw.write_text('[fixed]\nbackend = "gem5"\n[axes]\narch = ["x86_64", "arm64"]\n'
                  'variant = ["stock"]\nworkload = ["statx-loop"]\n')
    env = dict(os.environ, UACCESS_CACHE=str(tmp_path / "cache"))
    env.pop("GEM5_HOME", None)
    out = subprocess.run([sys.executable, str(RUN), "sweep", str(sw), "--dry-run", "--results",
                          str(tmp_path / "r")], capture_output=True, text=True, timeout=120,
                         env=env)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    gem5 = [l for l in lines if "needs gem5" in l]
    twins = [l for l in lines if "qemu twin" in l]
    assert len(gem5) == 2 and len(twins) == 2, out.stdout
    assert "4 points: 0 finished, 4 to run" in out.stdout
    assert "2 of them need gem5, which is missing: gem5 not found" in out.stdout
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize("module,package,argvs", [
    ("numpy", "numpy", (["list"], ["doctor"], ["scorecard", "--records", "docs/data"])),
    # rich draws the scorecard for a terminal; run.py imports it first.
    ("rich", "rich", (["list"], ["gem5", "setup", "--dry-run"])),
    # scikit-learn is imported only by what clusters (SimPoint's method).
    ("sklearn", "scikit-learn", (["simpoint", "{tmp}/roi.bb", "--out", "{tmp}/roi"],))])
def test_a_clone_without_its_python_packages_says_make_deps(tmp_path, module, package, argvs):
    # Before `make deps`, every command names the missing package and the
    # fix in one line, exit 2, instead of an import traceback.
    (tmp_path / f"{module}.py").write_text(
        f"raise ModuleNotFoundError(\"No module named '{module}'\", name={module!r})\n")
    import os
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    (tmp_path / "roi.bb").write_text("T:1:10 :2:5 \nT:1:8 :3:7 \nT:2:9 :3:1 \n")
    for argv in argvs:
        argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
        out = subprocess.run([sys.executable, str(RUN), *argv], capture_output=True, text=True,
                             timeout=60, env=env)
        lines = out.stderr.strip().splitlines()
        assert out.returncode == 2 and not out.stdout, out.stderr
        assert lines == [f"run.py: the Python package {package} is missing: run 'make deps' "
                         f"(it installs the study's packages)"]


# -- what a newcomer reads: --help, list, doctor (issue 58, item 7) ----------

def _parser():
    sys.path.insert(0, str(RUN.parent))
    import run as run_py
    return run_py.parser()


def _subparsers(parser):
    import argparse
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices


def test_help_lists_commands_without_suppress_markers_or_every_name_in_braces():
    out = _run("--help")
    assert out.returncode == 0
    assert "SUPPRESS" not in out.stdout and "slurm-task" not in out.stdout
    assert out.stdout.startswith("usage: run.py [-h] COMMAND ...")


def test_every_subcommand_says_what_it_does_and_every_flag_has_help():
    undocumented = []
    for name, sp in _subparsers(_parser()).items():
        if name == "slurm-task":
            continue  # internal: the Slurm job script's, not listed
        if not sp.description:
            undocumented.append(f"{name} (no description)")
        for a in sp._actions:
            if a.help is None:
                undocumented.append(f"{name} {'/'.join(a.option_strings) or a.dest}")
    assert undocumented == []


@pytest.mark.parametrize("command", ["run", "sweep", "doctor", "calibrate", "crosscheck",
                                     "reproduce"])
def test_help_shows_no_empty_choice_and_the_default_gem5_home(command):
    out = _run(command, "--help")
    assert out.returncode == 0
    text = " ".join(out.stdout.split())
    assert "{," not in text and ",}" not in text
    assert "default: $GEM5_HOME)" not in text
    assert "./run.py gem5 setup" in text  # where --gem5 defaults to, without a variable


def test_buildroot_setup_help_is_its_own_page():
    # Issue 67: setup was a choice of buildroot, so its --help printed
    # buildroot's page, with a default ("beside the clone") never so.
    out = _run("buildroot", "setup", "--help")
    assert out.returncode == 0 and out.stdout.startswith("usage: run.py buildroot setup ")
    said = " ".join(out.stdout.split())
    assert "beside the clone" not in said and "$BUILDROOT_HOME" in said


def test_gem5_setup_help_is_its_own_page():
    # As buildroot setup's (issue 67): setup was a choice of gem5, so its
    # --help printed gem5's page, "positional arguments: {setup}" first.
    out = _run("gem5", "setup", "--help")
    assert out.returncode == 0 and out.stdout.startswith("usage: run.py gem5 setup ")
    said = " ".join(out.stdout.split())
    assert "{setup}" not in said and "v24.0.0.1" in said and "--dry-run" in said
    # A parse error names setup's page; gem5 alone asks for the action.
    out = _run("gem5", "setup", "--jobs", "many")
    line, = out.stderr.strip().splitlines()
    assert out.returncode == 2 and line.endswith("(see run.py gem5 setup --help)")
    out = _run("gem5")
    assert out.returncode == 2 and "ACTION" in out.stderr


def test_a_parse_error_names_run_py_once():
    out = _run("run", "--arch", "x86_64", "--variant", "turbo")
    line, = out.stderr.strip().splitlines()
    assert line.startswith("run.py: run: argument --variant: invalid choice: 'turbo'")
    assert line.count("run.py") == 2  # the prefix, and "(see run.py run --help)"


def test_list_shows_whole_patch_subjects_in_aligned_columns():
    out = _run("list")
    assert out.returncode == 0
    # Subjects folded over two lines in the patch are shown whole (wrapped
    # at spaces to the terminal's width, as any line of list is).
    said = " ".join(out.stdout.split())
    assert "arm64: uaccess: toggle PSTATE.PAN around every user access" in said
    assert "one PAN window around a batch of unsafe accesses" in said
    rows = [l for l in out.stdout.splitlines() if l.startswith("  ") and "[" in l]
    # Every variant's arches start in the same column, long names included.
    assert len({l.index("[") for l in rows}) == 1, rows
    assert any(l.split()[0] == "namei-bytewise-bytecmp" for l in rows)


def test_doctor_on_a_machine_without_gem5_exits_0_and_says_gem5_once(tmp_path):
    # No gem5 at all (a cache without one, no GEM5_HOME): what make run
    # needs decides the exit code; the gem5 lines are not repeated.
    import os
    env = {k: v for k, v in os.environ.items() if k != "GEM5_HOME"}
    env["UACCESS_CACHE"] = str(tmp_path / "cache")
    shutil_which = __import__("shutil").which
    if not all(shutil_which(q) for q in ("qemu-system-x86_64", "qemu-system-aarch64", "gcc")):
        pytest.skip("QEMU or gcc is missing: run 'make deps'")
    out = subprocess.run([sys.executable, str(RUN), "doctor"], capture_output=True, text=True,
                         timeout=600, env=env)
    lines = out.stdout.splitlines()
    assert out.returncode == 0, out.stdout + out.stderr
    # Said once (a line's detail may wrap onto the next lines).
    assert out.stdout.count("gem5 not found") == 1, out.stdout
    assert sum(l[9:31].strip().startswith("gem5") for l in lines) == 1, out.stdout
    said = " ".join(out.stdout.split())  # the closing line may wrap
    assert said.endswith("make run needs none of them)") or "0 missing" in said


def test_doctor_with_a_gem5_source_and_nothing_built_says_so_once(tmp_path):
    # A gem5 checkout with no gem5.opt: not "ok gem5 24.0.0.1" over an arch
    # line each repeating the fix (issue 67), but one line, missing.
    import os
    tree = tmp_path / "gem5"
    (tree / "src" / "base").mkdir(parents=True)
    (tree / "src" / "base" / "version.cc").write_text('const char *gem5Version = "24.0.0.1";\n')
    env = dict(os.environ, UACCESS_CACHE=str(tmp_path / "cache"), COLUMNS="80")
    if not all(__import__("shutil").which(q) for q in ("qemu-system-x86_64", "gcc")):
        pytest.skip("QEMU or gcc is missing: run 'make deps'")
    out = subprocess.run([sys.executable, str(RUN), "doctor", "--gem5", str(tree)],
                         capture_output=True, text=True, timeout=600, env=env)
    said = " ".join(out.stdout.split())
    gem5 = [l for l in out.stdout.splitlines() if l[9:31].strip().startswith("gem5")]
    assert [l.split()[0] for l in gem5] == ["MISSING"], out.stdout
    assert f"gem5 24.0.0.1 source at {tree}, no gem5.opt built: build them" in said
    assert said.count("gem5's documentation lists its build dependencies") == 1, said
    assert out.returncode == 0, out.stdout  # gem5 is the gem5 backend's, optional


def test_doctor_with_a_bad_gem5_path_names_it_and_the_fix(tmp_path):
    bad = tmp_path / "nonexistent"
    out = _run("doctor", "--gem5", str(bad))
    assert out.returncode == 2 and out.stdout == ""
    line, = out.stderr.strip().splitlines()
    assert f"--gem5 {bad}: {bad} does not exist" in line and "GEM5_HOME" not in line
    assert "./run.py gem5 setup" in line
