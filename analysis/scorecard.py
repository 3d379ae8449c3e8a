"""The scorecard: each seed's hardware number beside the simulated one.

The claims are data (analysis/claims.toml), each of a kind whose module
(analysis/kinds/, in the order analysis/kinds/registry.py reads them)
reads its tables, selects the runs that stand for a claim, computes the
simulated effect, share, slope or base against the hardware's, and the
verdict: agrees within 1.5x either way, else too large, too small or the
wrong direction, with the cause measured where one was
(analysis/causes.py), "not measured yet" where none was: never a guess.
Here the runs are selected once (Scored), every kind judges them once
(judge), and the views across kinds are made of their rows: each claim on
the generic and the era machine (at a glance), the kinds' tables in
their order, every claim under each STAC/CLAC model; the renderers show
the sections (analysis/scorecard_markdown.py, analysis/scorecard_text.py).

The store's typed runs are the input: analysis reads results, it runs
nothing, and reads each run's machine from its record.
"""

from dataclasses import dataclass

from analysis import claims, judging, metrics, probe, scorecard_markdown, store
from analysis.judging import MISS, cycles_per_op, gem5_runs, model_of
from analysis.kinds import registry
from analysis.kinds.line import slopes_by_model

ARCH, ARM_ARCH = claims.SETTINGS.arch, claims.SETTINGS.arm_arch
GENERIC_PRESET, GENERIC_CACHE = claims.SETTINGS.generic_preset, claims.SETTINGS.generic_cache
# What the at-a-glance table's rows are, in its order (a kind's MEASURES):
# the summary counts effects and shares as predictions, gives the bases' range.
GLANCE = ("effect", "share", "base")


@dataclass(frozen=True)
class Scored:
    """The runs a scorecard judges, selected once for every kind: `rows`,
    the newest run of each experiment, and `history`, every run they were
    picked from (an effect's other runs)."""
    rows: list
    history: list = ()

    @classmethod
    def of(cls, rows: list) -> "Scored":
        return cls(store.newest_per_experiment(rows), rows)


@dataclass(frozen=True)
class Section:
    """One of the scorecard's tables: its title, the sentence that says
    what it shows, its header and rows, the columns a terminal keeps
    (None: all), and `key`, the column that names what a row is about (a
    terminal too narrow for the table shows one block per key)."""
    title: str
    what: str
    header: list
    body: list
    columns: tuple = None
    key: str = None  # None: the first column


def judge(scored: Scored, kinds: tuple = None) -> dict:
    """{kind: its rows (judging.Judged)}: every kind (or those of
    `kinds`) judged once, in the scorecard's order."""
    c = registry.CLAIMS
    return {name: m.judged(scored, c.of(name)) for name, m in c.kinds.items()
            if kinds is None or name in kinds}


def _kind_sections(judged: dict) -> list:
    """The kinds' tables in their order, kinds of one SECTION in one table."""
    out = {}
    for name, rows in judged.items():
        m = registry.CLAIMS.kinds[name]
        if m.SECTION not in out:
            out[m.SECTION] = Section(m.SECTION, m.ABOUT, m.HEADER, [], m.COLUMNS)
        out[m.SECTION].body.extend(j.cells for j in rows)
    return list(out.values())


def kind_sections(rows: list) -> list:
    """Every kind's table (Section), in the scorecard's order, the kinds of
    one SECTION in one: `rows` judged once, as sections() judges them."""
    return _kind_sections(judge(Scored.of(rows)))


def kind_table(kind: str, rows: list, history: list = ()) -> tuple:
    """(header, body): the table of `kind`'s section (every kind in it)
    from `rows` as given; `history`, every run they were picked from."""
    title = registry.CLAIMS.kinds[kind].SECTION
    names = tuple(n for n, m in registry.CLAIMS.kinds.items() if m.SECTION == title)
    [section] = _kind_sections(judge(Scored(rows, history), names))
    return section.header, section.body


# A claim's STAC/CLAC model is the one its seed's hardware had; the same
# comparison under the other models says how much of a ratio the model
# moves (the seeds sweep runs every claim under all four).
def model_table(rows: list, preset: str, cache: str) -> tuple:
    """(header, body): each effect's gem5 after/before on `preset` and
    `cache` (cold scheme, default parameters) under every STAC/CLAC model,
    the claim's own model marked; then each stat-namelen kernel's fitted
    slope, in cycles per name byte, under every model."""
    gem5 = [r for r in gem5_runs(rows) if r["profile"] == preset and r["cache"] == cache
            and r.scheme == "none"]
    models = [m for m in metrics.SMAP_MODEL_ORDER if any(model_of(r) == m for r in gem5)]
    cycles = {(r.point.variant, r.point.job_name, model_of(r)): cycles_per_op(r)
              for r in gem5}
    body = []
    for c in registry.CLAIMS.of("effect"):
        cells = []
        for m in models:
            b, a = cycles.get((*c.before, m)), cycles.get((*c.after, m))
            cells.append("-" if not (a and b) else
                         f"{a / b:.3f}" + (" (its model)" if m == c.smap_model else ""))
        if any(cell != "-" for cell in cells):
            body.append([f"{c.what} ({c.hw_ratio:.3f})"] + cells)
    return (["claim (hardware after/before)"] + models,
            body + slopes_by_model(gem5, models, registry.CLAIMS.of("line")))


# -- what the machine model moves ------------------------------------------------
# Issue 26: "the generic preset's table stays beside it: how much the
# machine model moves each verdict is itself a finding". Each scored
# claim's verdict on the generic core every claim first ran on, and on
# its era's machine (the seed's own preset on its own caches).

@dataclass(frozen=True)
class Cell:
    """One claim's result on one machine: simulated over hardware, and
    the verdict; `fitted` where the row checks a latency fitted on it."""
    ratio: float
    verdict: str
    fitted: bool = False

    def text(self) -> str:
        return f"{self.ratio:.2f}x, {self.verdict}" + (" (fitted on it)" if self.fitted else "")


def _machine_entries(judged: dict) -> dict:
    """(kind, claim) -> {"hardware", "generic": Cell, "era": Cell,
    "era preset"}, from every kind's scored rows, effects first, then
    shares, then bases; each kind lists its preferred row first, so the
    first row on a machine is the one kept."""
    kinds = registry.CLAIMS.kinds
    found = {}
    for group in GLANCE:
        for j in (j for name, rows in judged.items() if kinds[name].MEASURES == group
                  for j in rows):
            if j.ratio is None:
                continue
            entry = found.setdefault((j.kind, j.claim.what),
                                     {"hardware": j.cells[2], "id": j.claim.id})
            side = "generic" if j.generic else "era" if j.era else None
            if side and side not in entry:
                entry[side] = Cell(j.ratio, j.verdict, j.fitted)
                if side == "era":
                    # A run of a preset changed since (each kind lists
                    # those last, so only where no run of today's is) says so.
                    entry["era preset"] = j.preset
                    entry["era earlier"] = any(judging.EARLIER in str(cell) for cell in j.cells)
    return found


def _machine_table(entries: dict) -> tuple:
    header = ["kind", "claim", "hardware", f"generic machine ({GENERIC_PRESET}, "
              f"{GENERIC_CACHE})", "era machine", "era preset"]
    body = [[kind, what, e["hardware"],
             e["generic"].text() if "generic" in e else "-",
             e["era"].text() if "era" in e else "-",
             e.get("era preset", "-") + (f" ({judging.EARLIER})" if e.get("era earlier") else "")]
            for (kind, what), e in entries.items()]
    return header, body


def machine_table(rows: list) -> tuple:
    """(header, body): one row per scored claim, its effect (or base, or
    share) over the hardware's with the verdict, on the generic machine
    and on the era machine; "-" where that machine did not run it."""
    return _machine_table(_machine_entries(judge(Scored.of(rows))))


def _summary(entries: dict) -> str:
    def cells(side: str, kinds: tuple) -> list:
        return [e[side] for (kind, _), e in entries.items() if kind in kinds and side in e]

    def count(side: str) -> str:
        predicted = [c for c in cells(side, ("effect", "share")) if not c.fitted]
        return f"{sum(c.verdict == 'agrees' for c in predicted)} of {len(predicted)}"

    def span(side: str) -> str:
        xs = sorted(c.ratio for c in cells(side, ("base",)))
        return f"{xs[0]:.2f}x to {xs[-1]:.2f}x" if xs else "none run"
    # The Arm claims on a line of their own: the x86 counts are what the
    # x86 issues' targets name, and an Arm row moves none of them.
    arm = [c for c in cells("era", ("arm_effect",))]
    arm_bases = sorted(c.ratio for c in cells("era", ("arm_base",)))
    arm_line = (f" On Arm: {sum(c.verdict == 'agrees' for c in arm)} of {len(arm)} copy effects "
                f"within {MISS:g}x of the Arm hardware's on the Neoverse V2 machine"
                + (f", its copy bases {arm_bases[0]:.2f}x to {arm_bases[-1]:.2f}x"
                   if arm_bases else "") + "." if arm or arm_bases else "")
    return (f"Predicted effects and shares (rows not fitted on their own data) within "
            f"{MISS:g}x of the hardware's: {count('generic')} on the generic machine, "
            f"{count('era')} on the era machines. Absolute bases over the hardware's: "
            f"{span('generic')} on the generic machine, {span('era')} on the era machines."
            + arm_line)


def glance(rows: list) -> dict:
    """(kind, claim) -> {"hardware", "id", "generic": Cell, "era": Cell,
    "era preset"}: the at-a-glance rows as numbers (docs/figures.py
    draws them)."""
    return _machine_entries(judge(Scored.of(rows)))


def machine_summary(rows: list) -> str:
    """One sentence: how many predictions (rows not fitted on their own
    data) agree on each machine, and the range of the bases."""
    return _summary(_machine_entries(judge(Scored.of(rows))))


def sections(rows: list) -> list:
    """The scorecard's tables (Section), the one-line-per-claim view
    first, then each kind's, then the machine probes; the runs selected
    and judged once for all of them."""
    scored = Scored.of(rows)
    judged = judge(scored)
    entries = _machine_entries(judged)
    return [Section("At a glance", _summary(entries) + " One row per claim; the tables below "
                    "give each machine's run.", *_machine_table(entries), key="claim"),
            *_kind_sections(judged),
            Section("The machine probes", "Each preset's measured figures against its "
                    "documentation.", *probe.table(scored.rows))]


def markdown(rows: list) -> str:
    """The scorecard as markdown (analysis/scorecard_markdown.py)."""
    return scorecard_markdown.render(sections(rows))
