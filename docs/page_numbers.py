"""Numbers docs/generate.py writes into hand-written pages: the default
study's size inside sentences of the README, the home page and
docs/reference/runs.md (NUMBERS), and the home page's "what is exact"
bullet (a generated section), each from the published data."""

import re
import textwrap

from analysis import compare
from lab.errors import UserError


# The home page's "what is exact": which QEMU counts are, and how far the
# ones that are not moved between the published records' own reruns.
def qemu_exact(by_sweep: dict) -> list:
    every = [r for rows in by_sweep.values() for r in rows]
    text = ("- QEMU-TCG's counts of the calls (the guest's result and checksum, user "
            "instructions, `stac`/`clac`, `lfence`, each REP kind's iterations, PSTATE.PAN "
            "writes, LDTR/STTR, instructions in the kernel functions no interrupt runs), with "
            "what the ROI's "
            "interrupts ran taken out, are exact: the same on every boot, asserted exactly by "
            "the tests and by `./run.py compare`. Two are not: QEMU delivers interrupts by "
            "the host's clock, and an interrupt can leave work behind that the plugin counts "
            "as the calls' own. Kernel instructions move by a few, or now and then by a step "
            "of about a scheduler round trip (most likely what it is; `./run.py compare` "
            f"allows {compare.INSNS_PER_INTERRUPT:,} per interrupt taken), and an "
            "interrupt that splits a REPE CMPS or REPNE SCAS adds an instance (compare allows "
            f"one per interrupt taken). {compare.measured_text(compare.residues(every))}. "
            "Guest time under TCG is not a cycle count and is shown last, as a rough guide.")
    return textwrap.wrap(text, 72, subsequent_indent="  ", break_on_hyphens=False,
                         break_long_words=False)


# Numbers inside hand-written sentences: on a page, every match of a
# pattern has its one group replaced by what the data gives (a sentence
# reworded so that none matches is one line naming it, like a lost
# section marker). The default study's size: what `make run` runs.
def _default_points(by_sweep: dict) -> str:
    return f"{len(by_sweep.get('default', [])):,}"


def _default_kernels(by_sweep: dict) -> str:
    return f"{len({(r['arch'], r['variant']) for r in by_sweep.get('default', [])}):,}"


NUMBERS = {
    ("../README.md", "default-points"): (r"\((\d[\d,]*)\s+QEMU\s+points\)", _default_points),
    ("../README.md", "default-progress"): (r"\] \d+/(\d[\d,]*) \(\d+ cached", _default_points),
    ("index.md", "default-points"): (r"\((\d[\d,]*)\s+QEMU\s+points", _default_points),
    ("reference/runs.md", "default-cold"):
        (r"built\s+(\d[\d,]*)\s+kernels\s+and\s+ran\s+\d[\d,]*\s+points", _default_kernels),
    ("reference/runs.md", "default-cold-points"):
        (r"built\s+\d[\d,]*\s+kernels\s+and\s+ran\s+(\d[\d,]*)\s+points", _default_points),
}


def with_numbers(page: str, text: str, by_sweep: dict) -> str:
    """`text` with each of `page`'s generated numbers made from the data."""
    for (name, fact), (pattern, make) in NUMBERS.items():
        if name != page:
            continue
        value = make(by_sweep)
        text, n = re.subn(pattern, lambda m: m.group(0)[:m.start(1) - m.start(0)] + value
                          + m.group(0)[m.end(1) - m.start(0):], text)
        if not n:
            shown = page[3:] if page.startswith("../") else f"docs/{page}"
            raise UserError(f"{shown} has no sentence matching {pattern!r} "
                            f"({fact}): put the number back in one, or change NUMBERS")
    return text
