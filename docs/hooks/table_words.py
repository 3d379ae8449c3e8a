"""mkdocs hook: in a site table, a line breaks at a space, or between the
parts of a compound name, never inside a name.

Chromium breaks a line after any hyphen, so a narrow column showed
`x86_64-skylake-` over `calibrated`, and an arrow as `0.92 s -` over
`> 0.80 s` (issue 67, item 6). And it never breaks after a `/` or a `+`,
so a run's `statx-putuser/statx-loop` or a preset's overrides
(`x86_64-skylake+decodeWidth=4+...`) were one word as wide as three
columns. In every table cell (prose is left as it is) this hook keeps
each hyphenated part in a `nowrap` span (docs/css/tables.css) and puts a
`<wbr>` after each `/` and `+` that joins two names: the words keep their
characters, so a name copied from the page is the name.

A Python-Markdown tree processor, added by this hook to every page's
markdown (mkdocs.yml `hooks:`). It runs after the inline patterns, where
a cell's raw HTML is still a placeholder: those stay outside the spans.
"""

import re
import xml.etree.ElementTree as etree

from markdown import Extension
from markdown.treeprocessors import Treeprocessor

NOWRAP = "nowrap"  # the class docs/css/tables.css keeps on one line
# Where Chromium would break inside a word: after a hyphen or a dash.
_BREAKS_INSIDE = re.compile(r"[-\u2010\u2013\u2014]")
# Where a compound name may break: after a / or + between two word characters.
_JOINS = re.compile(r"(?<=\w[/+])(?=\w)")
# A number and its unit ("0.80 s", "1.5 %"): one piece, the unit never
# alone at the start of a line.
_QUANTITY = re.compile(r"(?<![\w.])[-+]?\d[\d,.]*\s(?:[mun]?s|%|[KMG]i?B)(?![\w%])")
# What splits a cell's text: a raw HTML placeholder (markdown's
# htmlStash), a quantity, and runs of spaces.
_SPLIT = re.compile(rf"(\x02wzxhzdk:\d+\x03|{_QUANTITY.pattern}|\s+)")


def _pieces(text: str) -> list:
    """`text` as strings and elements: each part of a word that Chromium
    would break inside, and each quantity, a nowrap span; a <wbr> at
    each join."""
    out = []
    for chunk in _SPLIT.split(text):
        if _QUANTITY.fullmatch(chunk):
            out.append(_nowrap(chunk))
            continue
        if not chunk or _SPLIT.fullmatch(chunk):
            out.append(chunk)
            continue
        for i, part in enumerate(_JOINS.split(chunk)):
            if i:
                out.append(etree.Element("wbr"))
            out.append(_nowrap(part) if _BREAKS_INSIDE.search(part) else part)
    return out


def _nowrap(text: str):
    span = etree.Element("span", {"class": NOWRAP})
    span.text = text
    return span


def _place(parent, index: int, before: str, pieces: list) -> str:
    """Insert `pieces`' elements into `parent` from `index`, each string
    as the tail of the element before it; returns the leading string."""
    lead, last = before, None
    for piece in pieces:
        if isinstance(piece, str):
            if last is None:
                lead += piece
            else:
                last.tail = (last.tail or "") + piece
        else:
            parent.insert(index, piece)
            index, last = index + 1, piece
    return lead


def keep_words(element) -> None:
    """Every text inside `element` (a cell), its children's included."""
    children = list(element)
    if element.text:
        element.text = _place(element, 0, "", _pieces(element.text))
    for child in children:
        if child.get("class") != NOWRAP and child.tag != "wbr":
            keep_words(child)
        if child.tail:
            tail, child.tail = child.tail, None
            child.tail = _place(element, list(element).index(child) + 1, "", _pieces(tail)) \
                or None


class _Cells(Treeprocessor):
    def run(self, root):
        for cell in [e for e in root.iter() if e.tag in ("td", "th")]:
            keep_words(cell)


class TableWords(Extension):
    def extendMarkdown(self, md):
        # After the inline patterns (20), before prettify (10).
        md.treeprocessors.register(_Cells(md), "table_words", 15)


def on_config(config, **kwargs):
    config.markdown_extensions.append(TableWords())
    return config
