"""The built site as a reader's browser lays it out: Debian's Chromium,
headless, driven by playwright, at a laptop's 1280 px, each page served
over HTTP from 127.0.0.1 (tests/test_site.py).

Only the layout is measured, so a page loads nothing from another host
(the theme asks a CDN for highlight.js): Chromium resolves no name but
127.0.0.1, and the test needs no network. (Refusing those requests in
playwright instead took each of the site's requests through Python and
doubled the test's time.)
"""

import contextlib
import functools
import http.server
import shutil
import threading
from pathlib import Path

WIDTH, HEIGHT = 1280, 800
CHROMIUM = "chromium"  # Debian's package and command (Makefile: APT_PACKAGES)

# How wide the page is against the window, and per table of the page's
# main column: its header's first cells, the
# width its cells need (scrollWidth) against the width it is shown in
# (clientWidth, where overflow-x scrolls), and the words of its cells
# that Chromium broke across lines although they are one name: a word
# with a hyphen or an arrow in it, between the spaces, slashes and pluses
# a compound name may break at.
_MEASURE = r"""() => {
  const broken = (cell) => {
    const out = [], walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    while (walk.nextNode()) {
      const node = walk.currentNode;
      for (const m of node.data.matchAll(/[^\s\/+]*-[^\s\/+]*/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
        if (tops.size > 1) out.push(m[0]);
      }
    }
    return out;
  };
  const tables = [...document.querySelectorAll('div[role="main"] table')].map((table, i) => ({
    index: i,
    header: [...table.querySelectorAll('th')].slice(0, 3).map(th => th.textContent.trim()),
    needs: table.scrollWidth,
    shown: table.clientWidth,
    column: table.parentElement.clientWidth,
    width: table.offsetWidth,
    broken: [...table.querySelectorAll('td, th')].flatMap(broken),
  }));
  return {page: [document.documentElement.scrollWidth, window.innerWidth], tables};
}"""


def chromium():
    """Chromium's path, or None."""
    return shutil.which(CHROMIUM)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def handle(self):
        try:
            super().handle()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the browser closed a page it had what it needed of


@contextlib.contextmanager
def served(site: Path):
    """`site` over HTTP on 127.0.0.1 (a free port): its base URL; the
    server stops when the block ends."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def measure(site: Path, pages: list) -> dict:
    """Each page (named relative to `site`) as _MEASURE gives it, at
    WIDTH px."""
    from playwright.sync_api import sync_playwright
    found = {}
    with served(site) as base, sync_playwright() as play:
        browser = play.chromium.launch(executable_path=chromium(), args=[
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"])
        try:
            page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            for name in pages:
                page.goto(base + str(name))
                found[str(name)] = page.evaluate(_MEASURE)
        finally:
            browser.close()
    return found
