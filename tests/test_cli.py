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
    (["run", "--arch", "sparc"], "unknown arch 'sparc'"),
    (["run", "--arch", "x86_64", "--variant", "turbo"], "unknown variant 'turbo'"),
    (["run", "--arch", "arm64", "--variant", "dcache-repcmpsb"], "does not apply to arm64"),
    (["run", "--arch", "x86_64", "--workload", "ls"], "unknown workload 'ls'"),
    (["run", "--arch", "x86_64", "--backend", "bochs"], "unknown backend 'bochs'"),
    (["run", "--arch", "x86_64", "--profile", "arm64-pan"], "is for arm64"),
    (["study", "--variant", "turbo"], "unknown variant 'turbo'"),
    (["study", "--arch", "riscv64"], "unknown arch 'riscv64'"),
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
