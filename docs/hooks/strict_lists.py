"""mkdocs hook: a list written straight under a paragraph line fails the
strict build.

Python-Markdown starts a list only after a blank line (or a heading); a
`- ` line right under a paragraph line is more of that paragraph, so the
site showed fifteen lists as raw `- **Ratios dilute.** ...` text run into
the sentence above (issue 67, item 3), and `mkdocs build --strict` said
nothing: to Markdown that is a paragraph, not a mistake. This hook looks
at each page's HTML for a paragraph or list item with a line that starts
like a list item and warns, naming the page and the line; under
`strict: true` (mkdocs.yml) a warning fails the build.
"""

import logging
import re
from html.parser import HTMLParser

log = logging.getLogger("mkdocs.hooks.strict_lists")

# A line of a paragraph that reads as a list item: "- x", "* x", "+ x", "1. x".
RAW_ITEM = re.compile(r"\n[ \t]*(?:[-*+]|\d+\.)[ \t]+\S[^\n]*")
_TEXT = ("p", "li")  # where a lazy line lands


class _Texts(HTMLParser):
    """Each paragraph's and list item's own text, a code span in backticks
    (as the page's markdown has it)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open, self.texts = [], []

    def handle_starttag(self, tag, attrs):
        if tag in _TEXT:
            self.open.append("")
        elif tag == "code" and self.open:
            self.open[-1] += "`"

    def handle_endtag(self, tag):
        if tag in _TEXT and self.open:
            self.texts.append(self.open.pop())
        elif tag == "code" and self.open:
            self.open[-1] += "`"

    def handle_data(self, data):
        if self.open:
            self.open[-1] += data


def raw_lists(html: str) -> list:
    """Each paragraph of `html` that has a list run into it: its first
    line meant as a list item."""
    texts = _Texts()
    texts.feed(html)
    return [m.group(0).strip() for m in map(RAW_ITEM.search, texts.texts) if m]


def on_page_content(html, page, **kwargs):
    for line in raw_lists(html):
        log.warning(f"{page.file.src_uri}: a list run into the paragraph above it, as text: "
                    f"'{line[:70]}': Markdown starts a list only after a blank line; add one "
                    f"above it")
    return html
