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
