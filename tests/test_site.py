"""The site `make docs` builds: every figure drawn from docs/data, a strict
mkdocs build, and every image, stylesheet, script and internal link of
the built HTML a file that is there (opened from disk, a link to a folder
is a directory listing, and a link to a missing anchor lands at the top).

The build runs on a copy of docs/ without a single PNG, so each image a
page shows must be one docs/figures.py draws from the published records,
with no simulator and no store; the pages themselves are the generated
ones in git (tests/test_docs.py checks those against the data). Seconds:
drawing the figures, then one mkdocs build."""

import json
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

import site_browser

REPO = Path(__file__).resolve().parents[1]
MKDOCS_MIN = (1, 5)
HOW = (f"'make docs' installs it, or 'PIP_BREAK_SYSTEM_PACKAGES=1 {sys.executable} -m pip "
       f"install \"mkdocs>=1.5\"' (the variable lets pip install beside Debian's own "
       f"packages)")
# The sections a reader opens the site for; each must be in the nav.
SECTIONS = ("Guide", "Tutorial", "Results", "Scorecard", "Reference")


def _need_mkdocs():
    """mkdocs >= 1.5 for this Python, or a failure that says how to get it:
    Debian 12's own mkdocs (1.4.2) cannot read mkdocs.yml, and a site test
    that skipped would let a broken site ship."""
    try:
        import mkdocs
    except ImportError:
        pytest.fail(f"mkdocs is not installed for {sys.executable}: {HOW}")
    version = tuple(int(x) for x in mkdocs.__version__.split(".")[:2])
    if version < MKDOCS_MIN:
        pytest.fail(f"mkdocs {mkdocs.__version__} ({mkdocs.__file__}) is older than "
                    f"{'.'.join(map(str, MKDOCS_MIN))}, which mkdocs.yml needs (exclude_docs, "
                    f"validation; Debian 12's package is 1.4.2): {HOW}")


def _hooks() -> list:
    """mkdocs.yml's hooks (paths from the repository's root)."""
    import yaml  # mkdocs's own dependency
    return yaml.safe_load((REPO / "mkdocs.yml").read_text()).get("hooks", [])


class _Page(HTMLParser):
    """The URLs a page loads or links to, and the ids it has."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.urls, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("id", "name") if tag == "a" else ("id",):
            if attrs.get(name):
                self.ids.add(attrs[name])
        for name in ("href", "src"):
            if attrs.get(name) is not None and tag in ("a", "img", "link", "script"):
                self.urls.append((tag, attrs[name]))


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    _need_mkdocs()
    tmp = tmp_path_factory.mktemp("site")
    docs = tmp / "docs"
    # No data (figures.py reads the repository's), no PNG: every image
    # must be drawn below.
    shutil.copytree(REPO / "docs", docs,
                    ignore=shutil.ignore_patterns("data", "__pycache__", "*.png", "*.py"))
    proc = subprocess.run([sys.executable, "docs/figures.py", "--all", "--docs", str(docs)],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"docs/figures.py --all:\n{proc.stdout}{proc.stderr}"
    config = tmp / "mkdocs.yml"
    config.write_text(f"INHERIT: {REPO / 'mkdocs.yml'}\n"
                      f"docs_dir: {docs}\n"
                      f"site_dir: {tmp / 'site'}\n"
                      # mkdocs finds a hook beside the config it was given.
                      f"hooks: {json.dumps([str(REPO / h) for h in _hooks()])}\n")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f",
                           str(config)], cwd=tmp, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stderr}"
    warnings = [line for line in proc.stderr.splitlines() if "WARNING" in line]
    assert not warnings, "\n".join(warnings)
    return tmp / "site"


def test_figures_help_is_help():
    proc = subprocess.run([sys.executable, "docs/figures.py", "--help"], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("usage:"), proc.stderr
    assert "docs/data" in proc.stdout


def test_the_site_has_every_section_as_files(site):
    index = (site / "index.html").read_text()
    for section in SECTIONS:
        assert f">{section}" in index, f"{section} is not in the site's navigation"
    # use_directory_urls: false: a page is page.html, never page/index.html.
    assert (site / "scorecard.html").is_file() and (site / "tutorial" / "smap.html").is_file()
    assert not (site / "scorecard").exists()


def test_every_image_and_internal_link_resolves(site):
    pages = {path: _parse(path) for path in sorted(site.rglob("*.html"))
             # 404.html is what a server answers for a missing path, so its
             # links are absolute: it is never opened from disk.
             if path.name != "404.html"}
    assert len(pages) >= 25
    broken, images = [], set()
    for path, page in pages.items():
        where = path.relative_to(site)
        for tag, url in page.urls:
            parts = urlsplit(url)
            if parts.scheme or url.startswith("//") or url == "#":
                continue  # another site's, or the theme's menu toggles
            if url.startswith("/"):
                broken.append(f"{where}: {tag} {url}: an absolute path, the disk's root "
                              f"when opened from a file")
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if not target.is_file():
                why = "a folder (a directory listing from disk)" if target.is_dir() \
                    else "missing"
                broken.append(f"{where}: {tag} {url}: {why}")
                continue
            if tag == "img":
                images.add(target)
            if parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{where}: {tag} {url}: no id '{parts.fragment}' there")
    assert not broken, f"{len(broken)} broken:\n" + "\n".join(broken[:40])
    # Every figure a page shows is a PNG drawn above, and the tutorial's
    # chapters show theirs.
    names = {p.name for p in images}
    assert {"smap.png", "batching.png", "pan.png", "namecmp.png", "symlink.png",
            "smap-cycles.png", "warmup-warmup.png", "verdicts.png"} <= names, names
    for image in images:
        assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and image.stat().st_size > 5000, \
            image


def test_make_docs_runs_no_simulation_and_installs_only_the_sites_needs():
    if not shutil.which("make"):
        pytest.skip("no make")
    proc = subprocess.run(["make", "-n", "docs"], cwd=REPO, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "run.py" not in proc.stdout, "make docs runs a sweep"
    assert "APT_PACKAGES" not in proc.stdout and "slurm" not in proc.stdout
    assert "mkdocs build --strict" in proc.stdout


class _Prose(HTMLParser):
    """A page's text outside links, code and the theme's navigation."""

    SKIP = ("a", "code", "pre", "script", "style", "nav", "header", "footer")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth, self.text = 0, []

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self.depth += 1

    def handle_endtag(self, tag):
        if tag in self.SKIP and self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if not self.depth:
            self.text.append(data)


def test_no_page_shows_a_page_path_as_text(site):
    # Issue 58: "(../machines.md)" on runs.html, "(docs/machines.md)" on
    # machines.html and calibration.html: a path a reader cannot click.
    import re
    shown = {}
    for path in sorted(site.rglob("*.html")):
        prose = _Prose()
        prose.feed(path.read_text(encoding="utf-8"))
        paths = re.findall(r"(?<![\w/.])(?:\.\./|docs/)?[\w-]+(?:/[\w-]+)*\.md\b",
                           " ".join(prose.text))
        if paths:
            shown[str(path.relative_to(site))] = paths
    assert shown == {}


def _main_column(html: str) -> str:
    """A built page's own content: what its markdown made, not the theme's
    menus (whose "1. SMAP and stac/clac" is a title, not a list)."""
    return html.partition('role="main">')[2].split("<footer", 1)[0]


def test_no_list_runs_into_its_paragraph(site):
    # Issue 67, item 3: fifteen lists (machines, simpoint, warmup,
    # reference/calibration, gem5, image) were a paragraph's raw
    # "- **...**" lines, a "- " line right under a paragraph line being,
    # to Markdown, more of that paragraph. docs/hooks/strict_lists.py fails
    # the strict build on one; this reads every built page on its own.
    import re
    run_in = {}
    for path in sorted(site.rglob("*.html")):
        for paragraph in re.findall(r"<p>(.*?)</p>", _main_column(path.read_text()), re.S):
            line = re.search(r"\n[ \t]*(?:[-*+]|\d+\.)[ \t][^\n]*", paragraph)
            if line:
                run_in.setdefault(str(path.relative_to(site)), []).append(line.group(0)[:60])
    assert run_in == {}


def test_a_list_run_into_its_paragraph_fails_the_strict_build(tmp_path):
    _need_mkdocs()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(
        "# A page\n\nThe causes:\n- **One.** The first.\n- **Two.** The second.\n\n"
        "In a list item:\n\n- An item.\n\n  Its second paragraph:\n  - its list\n")
    (tmp_path / "mkdocs.yml").write_text(
        f"site_name: x\nstrict: true\nhooks: {json.dumps([str(REPO / h) for h in _hooks()])}\n")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    warnings = [line for line in proc.stderr.splitlines() if "WARNING" in line]
    assert len(warnings) == 2, proc.stderr
    assert "index.md: a list run into the paragraph above it" in warnings[0]
    assert "'- One. The first.'" in warnings[0] and "'- its list'" in warnings[1]


def test_every_table_shows_every_column_at_1280_px(site):
    # Issue 67, item 3: at 1280 px the scorecard's claims table needed
    # 1,693 px in an 831 px box, every column after 'gem5 before -> after'
    # off-screen behind a scrollbar 1,800 px down the page, and thirteen
    # more tables scrolled too (scorecard, simpoint, machines, seeds,
    # make-build). Item 6: cells of 50 tables broke a name at its hyphen
    # (x86_64-skylake- / calibrated) or an arrow in two (0.92 s - / >).
    # Each built page in Chromium at 1280 px: no table needs more width
    # than it is shown in, no page scrolls sideways, no name breaks.
    if not site_browser.chromium():
        pytest.skip(f"no Chromium ('{site_browser.CHROMIUM}' is not on PATH): 'make deps' "
                    f"installs Debian's chromium package")
    try:
        import playwright  # noqa: F401
    except ImportError:
        pytest.skip(f"no playwright for {sys.executable}: 'make deps' installs it from PyPI "
                    f"(it drives Debian's Chromium; no browser of its own is downloaded)")
    pages = [path.relative_to(site) for path in sorted(site.rglob("*.html"))
             if path.name != "404.html"]
    measured = site_browser.measure(site, pages)
    wide, broken = [], []
    for name, page in measured.items():
        if page["page"][0] > page["page"][1]:
            wide.append(f"{name}: the page is {page['page'][0]} px in a "
                        f"{page['page'][1]} px window")
        for t in page["tables"]:
            where = f"{name}, table {t['index'] + 1} ({' | '.join(t['header'])} ...)"
            if t["needs"] > t["shown"] or t["width"] > t["column"]:
                wide.append(f"{where}: needs {t['needs']} px, shown in {t['shown']} px of a "
                            f"{t['column']} px column")
            if t["broken"]:
                broken.append(f"{where}: broke {', '.join(sorted(set(t['broken']))[:5])}")
    assert sum(len(page["tables"]) for page in measured.values()) >= 100
    assert not wide, f"{len(wide)} too wide at {site_browser.WIDTH} px:\n" + "\n".join(wide)
    assert not broken, "names broken across lines:\n" + "\n".join(broken)
