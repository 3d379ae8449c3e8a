"""The tutorial cannot rot: every command it shows runs, and every answer
it promises (`# expect: ...` under the command) is in the output. Then the
teaching sweep, the figures and the HTML build, as `make docs` does them."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = sorted((REPO / "docs" / "tutorial").glob("*.md"))

pytestmark = pytest.mark.skipif(
    not all(shutil.which(p) for p in ("qemu-system-x86_64", "qemu-system-aarch64")),
    reason="QEMU is missing: run 'make deps'")


def _blocks():
    """(page, commands, expectations) per ```sh block that runs run.py."""
    out = []
    for page in PAGES:
        for block in re.findall(r"```sh\n(.*?)```", page.read_text(), re.S):
            lines = block.strip().splitlines()
            if any("gem5" in l for l in lines if l.startswith("./run.py ")):
                continue  # how a gem5 figure was made: hours of gem5, not an exercise
            commands = [l for l in lines if l.startswith("./run.py ")]
            expects = [l.split(":", 1)[1].strip() for l in lines if l.startswith("# expect:")]
            if commands:
                out.append((page.name, commands, expects))
    return out


BLOCKS = _blocks()


def test_every_chapter_has_checked_exercises():
    pages = {page for page, _, expects in BLOCKS if expects}
    assert pages == {"smap.md", "batching.md", "pan.md", "namecmp.md", "symlink.md"}


@pytest.mark.parametrize("page,commands,expects", BLOCKS,
                         ids=[f"{p}:{c[0].split('--variant ')[1].split()[0]}"
                              for p, c, _ in BLOCKS])
def test_the_command_runs_and_gives_the_answer(page, commands, expects):
    output = ""
    for cmd in commands:
        proc = subprocess.run(cmd.split(), cwd=REPO, capture_output=True, text=True,
                              timeout=900)
        assert proc.returncode == 0, f"{page}: {cmd}\n{proc.stderr[-2000:]}"
        output += proc.stdout
    for expect in expects:
        assert expect in output, f"{page}: '{expect}' not in the output of {commands}"


def test_make_docs_steps_build_the_pages(tmp_path):
    results = tmp_path / "results"
    subprocess.run([sys.executable, "run.py", "sweep", "configs/sweeps/teaching.toml",
                    "--results", str(results)], cwd=REPO, check=True, capture_output=True)
    subprocess.run([sys.executable, "docs/figures.py", str(results / "results.sqlite")],
                   cwd=REPO, check=True, capture_output=True)
    figures = REPO / "docs" / "tutorial" / "figures"
    assert {p.name for p in figures.glob("*.png")} >= {
        "smap.png", "batching.png", "pan.png", "namecmp.png", "symlink.png"}
    try:
        import mkdocs  # noqa: F401
    except ImportError:
        pytest.skip("mkdocs is missing: run 'make deps'")
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", "mkdocs.yml",
                    "-d", str(site)], cwd=REPO, check=True, capture_output=True)
    html = (site / "tutorial" / "smap.html").read_text()
    assert "stac 28.00" in html and 'src="figures/smap.png"' in html
