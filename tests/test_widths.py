"""What a newcomer reads fits the terminal, and no name is cut (issue 67,
item 6): at COLUMNS 80 and 100, every line of `--help`, `run --help`,
`list`, `doctor`, `compare` and `reproduce --dry-run` is within COLUMNS,
broken only at spaces. A line may be longer only where it is one word
(a path deeper than the terminal is wide): a name is never split to fit.

argparse breaks at hyphens (namei-bytewise- over bytecmp) and inside
long words (a URL in two); the lab's lines were laid out by hand, up to
420 columns (list's presets) and 399 (compare's)."""

import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
RUN = REPO / "run.py"
sys.path.insert(0, str(REPO))

from analysis import published, store  # noqa: E402
from buildroot import release  # noqa: E402
from configs.gem5 import cache_presets  # noqa: E402
from configs.qemu import profile  # noqa: E402
from kernels import variants  # noqa: E402
from lab import cpu_presets, text  # noqa: E402
from workloads import script  # noqa: E402

DATA = REPO / "docs" / "data"


def _names() -> dict:
    """What each command must show whole: the names it lists."""
    kernels = list(variants.names())
    machines = (profile.profile_names() + sorted(cpu_presets.preset_files("cpu"))
                + cache_presets.cache_preset_names())
    return {"run --help": kernels + machines,
            "list": kernels + list(script.workload_names()) + machines,
            "reproduce --dry-run": sorted(published.by_sweep(DATA)),
            "buildroot setup --help": [release.REPOSITORY, release.COMMIT]}


@pytest.fixture(scope="module")
def places(tmp_path_factory) -> dict:
    """A cache of its own (doctor builds QEMU's plugin into it) and a
    results store holding the default study's published runs as if run
    here, for compare."""
    root = tmp_path_factory.mktemp("widths")
    results = root / "results"
    results.mkdir()
    lines = gzip.decompress((DATA / "default.jsonl.gz").read_bytes()).decode().splitlines()
    with store.connect(results / "results.sqlite") as conn:
        for line in lines[1:]:
            row = json.loads(line)
            store.add_record(conn, "default", json.loads(row["record"]),
                             json.loads(row["params"]))
    return {"cache": root / "cache", "results": results}


COMMANDS = {
    "--help": ["--help"],
    "run --help": ["run", "--help"],
    "buildroot setup --help": ["buildroot", "setup", "--help"],
    "list": ["list"],
    "doctor": ["doctor"],
    "compare": ["compare", "--results", "{results}"],
    "reproduce --dry-run": ["reproduce", "--dry-run", "--results", "{results}/none"],
}


def _split_name(line: str) -> bool:
    """Whether a line ends inside a hyphenated name (argparse's break)."""
    return bool(re.search(r"[A-Za-z0-9]-$", line.rstrip()))


@pytest.mark.parametrize("columns", [80, 100])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_lines_fit_columns_and_keep_names_whole(places, command, columns):
    if command == "doctor" and not all(__import__("shutil").which(t) for t in (
            "qemu-system-x86_64", "gcc")):
        pytest.skip("QEMU or gcc is missing: run 'make deps'")
    argv = [a.format(results=places["results"]) for a in COMMANDS[command]]
    env = {k: v for k, v in os.environ.items() if k != "GEM5_HOME"}
    env.update(COLUMNS=str(columns), UACCESS_CACHE=str(places["cache"]))
    out = subprocess.run([sys.executable, str(RUN), *argv], capture_output=True, text=True,
                         timeout=600, env=env)
    assert out.returncode in (0, 1), out.stderr  # doctor: 1 where make run lacks a tool
    lines = out.stdout.splitlines()
    over = [l for l in lines if len(l) > columns and len(l.split()) > 1]
    assert not over, f"{len(over)} lines over {columns}: {max(over, key=len)!r}"
    split = [l for l in lines if _split_name(l)]
    assert not split, split
    for name in _names().get(command, ()):
        whole = re.compile(rf"(?<![\w./-]){re.escape(name)}(?![\w-])")
        assert any(whole.search(l) for l in lines), f"{name} is not whole in {command}"


def test_a_percentage_stays_with_its_number():
    # predict's line "... 1,562 -> 1,429, -133 (-8.5 %)" broke between
    # "-8.5" and "%" at 80 columns: a number without its unit reads wrong.
    line = "x86_64-westmere (x86_64-westmere, x86_64-westmere): 1,562 -> 1,429, -133 (-8.5 %)"
    assert text.wrap(line, 80, "  ") == [
        "  x86_64-westmere (x86_64-westmere, x86_64-westmere): 1,562 -> 1,429, -133",
        "  (-8.5 %)"]
    assert text.wrap("a b -8.5 %", 8) == ["a b", "-8.5 %"]
