"""Numbers inside hand-written pages, from the published data (docs/data),
for docs/generate.py: written by `make docs`, checked by tests/test_docs.py.
(And linked(): the analysis' page paths as links on a generated page.)

Two kinds:

- A tutorial exercise's answer. Under a command
      ./run.py run --arch A --variant V --workload W --plugin
  the line `# expect: COUNT VALUE` is what `run --plugin` prints for that
  point (analysis/table.py's per_op_counts), read off the published row
  of the point (the teaching sweep's, else the default study's). An
  exercise run with --script (its point published nowhere) keeps its
  line, checked where test_tutorial runs it; an expect whose COUNT the
  output lacks is an error.
- A number in prose: `<!-- n:NAME -->VALUE<!-- /n -->`, VALUE being what
  NUMBERS[NAME] gives from the data (an HTML comment shows on no page).

And sentences the data rewrites where a marker cannot go (inside a code
span, say): SENTENCES, a pattern whose one group is replaced (the default
study's size); and the home page's "what is exact" bullet (qemu_exact, a
generated section of docs/generate.py).
"""

import re
import textwrap
from pathlib import Path

from analysis import claims, compare, judging, probe, table, uop_table, x86_core
from analysis.kinds import registry
from lab import cpu_presets
from lab.errors import UserError

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent

ANSWER_SWEEPS = ("teaching", "default")  # where an exercise's point is looked up
_COMMAND = re.compile(r"^\./run\.py run --arch (\S+) --variant (\S+) --workload (\S+) --plugin$")
_EXPECT = re.compile(r"^# expect: (.+?) (-?[\d,]+\.\d+)$")
_INLINE = re.compile(r"<!-- n:([\w-]+) -->(.*?)<!-- /n -->")


def _published_point(by_sweep: dict, arch: str, variant: str, workload: str):
    for sweep in ANSWER_SWEEPS:
        for r in by_sweep.get(sweep, []):
            p = r.point
            if (p.arch, p.variant, p.workload, p.backend) == (arch, variant, workload, "qemu") \
                    and not p.params:
                return r
    return None


def _answer(run, count: str) -> str:
    """`count`'s value as `run --plugin` prints it for `run`."""
    printed = table.per_op_counts(run).splitlines()[0].removeprefix("per op: ")
    values = dict(item.rsplit(" ", 1) for item in printed.split(", "))
    if count not in values:
        raise UserError(f"'# expect: {count} ...' names no count `run --plugin` prints "
                        f"({', '.join(values)}): name one of those")
    return values[count]


def with_answers(page: str, text: str, by_sweep: dict) -> str:
    """`text` with each exercise's expected answer from the published row."""
    lines = text.splitlines()
    point = None
    for i, line in enumerate(lines):
        m = _COMMAND.match(line)
        if m:
            point = _published_point(by_sweep, *m.groups())
            continue
        e = _EXPECT.match(line)
        if e and point is not None:
            lines[i] = f"# expect: {e.group(1)} {_answer(point, e.group(1))}"
        if not line.startswith("#"):
            point = None  # an expect belongs to the command right above it
    return "\n".join(lines) + "\n"


def _gem5_points(by_sweep: dict) -> str:
    return str(sum(1 for r in by_sweep.get("tutorial-gem5", []) if r.point.backend == "gem5"))


def _default_points(by_sweep: dict) -> str:
    return str(len(by_sweep.get("default", [])))


def _x86_core(what: str, spec: str):
    """One figure of the Skylake preset's statx in x86-core's records
    (analysis/x86_core.preset_statx), as `spec` formats it."""
    def made(by_sweep: dict) -> str:
        got = x86_core.preset_statx(by_sweep.get("x86-core", []))
        return format(got[what], spec) if got else "(x86-core not published)"
    return made


def _skylake_slots(by_sweep: dict) -> str:
    """The stock statx(fd, NULL)'s instructions at Skylake's fused counts
    (analysis/uop_table.py; uop-profile's records)."""
    got = uop_table.skylake_slots_per_insn(by_sweep.get("uop-profile", []))
    return f"{got:.2f}" if got is not None else "(uop-profile not published)"


def _claim(kind: str, claim_id: str):
    return next(c for c in registry.CLAIMS.of(kind) if c.id == claim_id)


def _tutorial_statx(what: str, spec: str):
    """One figure of chapter 1's two gem5 runs (tutorial-gem5: statx-loop
    under the smap model, the calibrated preset), beside the statx seed's:
    what the calibration fits (the per-call difference) and what the
    scorecard's effect is (after/before), so the chapter can say why one
    matches and the other does not."""
    def made(by_sweep: dict) -> str:
        cycles = {r["variant"]: r["cycles"] / r["ops"] for r in by_sweep.get("tutorial-gem5", [])
                  if r.gem5 and r.point.arch == "x86_64" and r["workload"] == "statx-loop"
                  and r["smap_model"] == "smap" and r.get("cycles")}
        if not {"stock", "statx-putuser"} <= set(cycles):
            return "(tutorial-gem5 not published)"
        before, after = cycles["statx-putuser"], cycles["stock"]
        board_ghz = float(cpu_presets.CLOCK.removesuffix("GHz"))
        seed = _claim("effect", "statx-copy")
        base = _claim("base", "statx-base-2017")
        hw = seed.hw_ratio
        got = {"before": before, "after": after, "added": before - after,
               "added_ns": (before - after) / board_ghz,
               "seed_added_ns": seed.hw_ns[0] - seed.hw_ns[1],
               "ratio": after / before, "seed_ratio": hw,
               "effect": (after / before - 1) / (hw - 1),
               "seed_base_ns": base.hw_ns,
               "seed_base_cycles": base.hw_ns * claims.SETTINGS.clock_ghz,
               "assumed_ghz": claims.SETTINGS.clock_ghz}
        if what == "verdict":  # the scorecard's word for this effect, by its rule
            return judging.effect_verdict(got["ratio"], hw)[1]
        return format(got[what], spec)
    return made


NUMBERS = {
    # docs/tutorial/smap.md: the calibrated statx against the thread's.
    "statx-smap-before": _tutorial_statx("before", ",.0f"),
    "statx-smap-after": _tutorial_statx("after", ",.0f"),
    "statx-smap-added": _tutorial_statx("added", ",.0f"),
    "statx-smap-added-ns": _tutorial_statx("added_ns", ",.0f"),
    "statx-seed-added-ns": _tutorial_statx("seed_added_ns", ".1f"),
    "statx-smap-ratio": _tutorial_statx("ratio", ".3f"),
    "statx-seed-ratio": _tutorial_statx("seed_ratio", ".3f"),
    "statx-smap-effect": _tutorial_statx("effect", ".2f"),
    "statx-smap-verdict": _tutorial_statx("verdict", ""),
    "statx-seed-base-ns": _tutorial_statx("seed_base_ns", ".1f"),
    "statx-seed-base-cycles": _tutorial_statx("seed_base_cycles", ",.0f"),
    "statx-assumed-ghz": _tutorial_statx("assumed_ghz", "g"),
    "tutorial-gem5-points": _gem5_points,
    "default-points": _default_points,
    # docs/machines.md: where the Skylake preset's statx goes, per call.
    "x86-core-statx-cycles": _x86_core("cycles", ",.1f"),
    "x86-core-rename-run": _x86_core("rename_run", ",.1f"),
    "x86-core-icache-stall": _x86_core("icache_stall", ",.1f"),
    "x86-core-slots": _x86_core("slots", ",.1f"),
    "x86-core-slot-floor": _x86_core("slot_floor", ",.1f"),
    "x86-core-slots-per-insn": _x86_core("slots_per_insn", ".2f"),
    "x86-core-rename-width": _x86_core("rename_width", "d"),
    # docs/machines.md: the stock statx's slots at Skylake's measured counts.
    "skylake-statx-slots-per-insn": _skylake_slots,
    # docs/machines.md: how far a probe figure may be off its documented one.
    "probe-tolerance": lambda by_sweep: f"{probe.TOLERANCE * 100:g} %",
}


def inline(text: str, by_sweep: dict) -> str:
    """`text` with each marked number made from the data."""
    def made(m):
        if m.group(1) not in NUMBERS:
            raise UserError(f"'<!-- n:{m.group(1)} -->' names no number docs/page_numbers.py "
                            f"makes ({', '.join(NUMBERS)})")
        return f"<!-- n:{m.group(1)} -->{NUMBERS[m.group(1)](by_sweep)}<!-- /n -->"
    return _INLINE.sub(made, text)


def linked(lines: list) -> list:
    """The analysis names pages as paths from the repository's top
    (docs/machines.md), right in a terminal; on a page at docs/'s top,
    where the site shows them, each is a link."""
    return [re.sub(r"(?<!\]\()(?<![\w/\[`])docs/([\w/-]+\.md)\b", r"[docs/\1](\1)", line)
            for line in lines]


def numbered(pages: dict, by_sweep: dict) -> dict:
    """{page named as generate.py names it: its text} of each hand-written
    page whose numbers the data changes: the tutorial's answers, and every
    page's marked numbers (README.md is "../README.md")."""
    out = {}
    for path in [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]:
        name = str(path.relative_to(DOCS)) if path.is_relative_to(DOCS) else "../README.md"
        text = pages.get(name) or path.read_text()
        made = inline(text, by_sweep)
        if name.startswith("tutorial/"):
            made = with_answers(name, made, by_sweep)
        if made != text:
            out[name] = made
    return out


def _default_points_commas(by_sweep: dict) -> str:
    return f"{len(by_sweep.get('default', [])):,}"


# The home page's "what is exact": which QEMU counts are, and how far the
# ones that are not moved between the published records' own reruns.
def qemu_exact(by_sweep: dict) -> list:
    every = [r for rows in by_sweep.values() for r in rows]
    text = ("- QEMU-TCG's counts of the calls (the guest's result and checksum, user "
            "instructions, `stac`/`clac`, `lfence`, each REP kind's iterations, PSTATE.PAN "
            "writes, LDTR/STTR, instructions in the kernel functions no interrupt runs), with "
            "what the ROI's "
            "interrupts ran taken out, are exact: the same on every boot, asserted exactly by "
            "the tests and by `./run.py compare`. Three are not: QEMU delivers interrupts by "
            "the host's clock, and an interrupt can leave work behind that the plugin counts "
            "as the calls' own. Kernel instructions move by a few, or now and then by a step "
            "of about a scheduler round trip (most likely what it is; `./run.py compare` "
            f"allows {compare.INSNS_PER_INTERRUPT:,} per interrupt taken), and an "
            "interrupt that splits a REPE CMPS or REPNE SCAS adds an instance (compare allows "
            f"one per interrupt taken). {compare.measured_text(compare.residues(every))}. "
            "And stat-namelen reads the clock between name lengths, inside its ROI: the "
            "vDSO's read retries when an interrupt updates the timekeeper under it "
            f"({compare.CLOCK_RETRY['x86_64']} user instructions and an LFENCE on x86, "
            f"{compare.CLOCK_RETRY['arm64']} on arm64) and carries a second over when one "
            f"began since the last update ({compare.CLOCK_CROSSING['x86_64']} and "
            f"{compare.CLOCK_CROSSING['arm64']}), so its user instructions, and x86 LFENCEs, "
            "move by those steps (compare allows a retry per interrupt taken and a carry per "
            "read). Guest time under TCG is not a cycle count and is shown last, as a rough "
            "guide.")
    return textwrap.wrap(text, 72, subsequent_indent="  ", break_on_hyphens=False,
                         break_long_words=False)


# Numbers inside hand-written sentences: on a page, every match of a
# pattern has its one group replaced by what the data gives (a sentence
# reworded so that none matches is one line naming it, like a lost
# section marker). The default study's size: what `make run` runs.
def _default_kernels(by_sweep: dict) -> str:
    return f"{len({(r['arch'], r['variant']) for r in by_sweep.get('default', [])}):,}"


SENTENCES = {
    ("../README.md", "default-points"): (r"\((\d[\d,]*)\s+QEMU\s+points\)", _default_points_commas),
    ("../README.md", "default-progress"): (r"\] \d+/(\d[\d,]*) \(\d+ cached", _default_points_commas),
    ("index.md", "default-points"): (r"\((\d[\d,]*)\s+QEMU\s+points", _default_points_commas),
    ("reference/runs.md", "default-cold"):
        (r"builds\s+(\d[\d,]*)\s+kernels\s+and\s+runs\s+\d[\d,]*\s+points", _default_kernels),
    ("reference/runs.md", "default-cold-points"):
        (r"builds\s+\d[\d,]*\s+kernels\s+and\s+runs\s+(\d[\d,]*)\s+points", _default_points_commas),
}


def with_sentences(page: str, text: str, by_sweep: dict) -> str:
    """`text` with each of `page`'s generated numbers made from the data."""
    for (name, fact), (pattern, make) in SENTENCES.items():
        if name != page:
            continue
        value = make(by_sweep)
        text, n = re.subn(pattern, lambda m: m.group(0)[:m.start(1) - m.start(0)] + value
                          + m.group(0)[m.end(1) - m.start(0):], text)
        if not n:
            shown = page[3:] if page.startswith("../") else f"docs/{page}"
            raise UserError(f"{shown} has no sentence matching {pattern!r} "
                            f"({fact}): put the number back in one, or change SENTENCES")
    return text
