"""The scorecard's claims, read once from analysis/claims.toml: each a
typed declaration (seed, its hardware number, kinds, variants, workload,
STAC/CLAC model, and the cause to measure where it misses) that the one
engine, analysis/scorecard.py, scores. Hardware numbers are looked up by
name in analysis/seeds.toml, the seeds' quoted numbers and those derived
from them, so no number is typed twice.

A bad claims file fails here, in one line naming the claim and the field.
"""

import tomllib
from dataclasses import dataclass
from pathlib import Path

from lab.errors import UserError

HERE = Path(__file__).resolve().parent
CLAIMS_FILE = HERE / "claims.toml"
SEEDS_FILE = HERE / "seeds.toml"
# The kinds of measured cause analysis/causes.py computes (its KINDS).
CAUSE_KINDS = ("per-byte profile", "per-byte profile change", "saving", "timing-noise")


def seed_numbers(seeds: dict) -> dict:
    """{seed id: {name: value}}: each seed's quoted numbers, then its
    derived ones (each a Python expression over the names before it, no
    builtins: the file's own arithmetic)."""
    out = {}
    for sid, seed in seeds.items():
        names = {n["name"]: n["value"] for q in seed.get("quote", []) for n in q["numbers"]}
        for name, expr in seed.get("derived", {}).items():
            names[name] = eval(expr, {"__builtins__": {}}, dict(names))  # noqa: S307 (repo data)
        out[sid] = names
    return out


@dataclass(frozen=True)
class Cause:
    """How a miss is explained: a kind of measurement (analysis/causes.py
    computes its figures from the runs) and the sentence they fill; `data`
    holds what no published run has, each with where it came from."""
    kind: str
    text: str
    data: dict


@dataclass(frozen=True)
class Cited:
    """What every claim has: its id, its seed, what it says, and the
    thread's own numbers as the thread gives them (for reading)."""
    id: str
    seed: str
    what: str
    hardware: str


@dataclass(frozen=True)
class Effect(Cited):
    """A time before and after a kernel change: after / before."""
    hw_ratio: float        # after / before, in time
    before: tuple          # (variant, workload)
    after: tuple
    smap_model: str        # the model matching the seed's hardware
    hw_ns: tuple = None    # (before, after) ns per call where the seed gives times
    cause: Cause = None


@dataclass(frozen=True)
class OneKernel(Cited):
    """A claim about one kernel's runs: its variant, workload and the
    STAC/CLAC model matching the seed's hardware."""
    variant: str
    workload: str
    smap_model: str


@dataclass(frozen=True)
class Line(OneKernel):
    """A cost the seed gives as a line, cycles per call = base + slope * n."""
    slope: float
    cause: Cause = None


@dataclass(frozen=True)
class SlopeChange:
    """The change between two of a seed's lines, judged as a change:
    `before` and `after` are the lines (the file names them by id), the
    seed is theirs."""
    id: str
    before: Line
    after: Line
    what: str
    cause: Cause = None

    @property
    def seed(self) -> str:
        return self.before.seed


@dataclass(frozen=True)
class Share(Cited):
    """SMAP's share of one function: its cycles with SMAP less without,
    over with (gem5's commit profile of the same ROI under both models);
    `after`: the kernel after the change, shown for contrast."""
    share: float
    function: str
    variant: str
    workload: str
    after: str = None


@dataclass(frozen=True)
class WorkloadShare(Share):
    """A function's share of a whole workload's cycles under `smap_model`."""
    smap_model: str = "smap"


@dataclass(frozen=True)
class Base(OneKernel):
    """What one call costs on the seed's hardware, absolute: cycles where
    the seed gives cycles, else its time per call."""
    hw_cycles: float = None   # the seed's own cycles
    hw_ns: float = None       # or its time per call
    hw_per_byte: float = None  # a line's slope: the call at a run's mean name length


@dataclass(frozen=True)
class ArmView:
    """A seed's change where Arm has the mechanism, beside the x86
    hardware's effect it mirrors (`mirrors`, an effect's id)."""
    id: str
    what: str
    name: str              # the mechanism, in words
    mechanism: str         # the same with the QEMU twins' counts (a template)
    before: tuple
    after: tuple
    mirrors: Effect = None


@dataclass(frozen=True)
class Claims:
    """Every claim of the file, by kind, and the scorecard's settings."""
    arch: str
    arm_arch: str
    miss: float
    generic_preset: str
    generic_cache: str
    clock_ghz: float
    clock_range_ghz: tuple
    era_preset: dict          # seed id -> the CPU preset of its era's machine
    effects: tuple
    lines: tuple
    slope_changes: tuple
    shares: tuple
    workload_shares: tuple
    bases: tuple
    arm_views: tuple
    pending: tuple            # (seed, what, why): numbers not compared yet

    def every(self) -> tuple:
        """Every claim that cites a seed, in the file's order by kind."""
        return (self.effects + self.lines + self.slope_changes + self.shares
                + self.workload_shares + self.bases)


def _need(table: dict, key: str, where: str):
    if key not in table:
        raise UserError(f"{CLAIMS_FILE.name}: {where} lacks {key}: add it (the kinds' fields "
                        f"are at the top of the file)")
    return table[key]


def _number(numbers: dict, seed: str, name, where: str) -> float:
    """A seed's number by its name in analysis/seeds.toml."""
    if name not in numbers.get(seed, {}):
        raise UserError(f"{CLAIMS_FILE.name}: {where}: {name!r} is not a number of seed "
                        f"{seed} in {SEEDS_FILE.name}: name a quoted or derived one")
    return numbers[seed][name]


def _cause(table: dict):
    c = table.get("cause")
    if c is None:
        return None
    if c.get("kind") not in CAUSE_KINDS:
        raise UserError(f"{CLAIMS_FILE.name}: {table.get('id', '?')}: cause kind "
                        f"{c.get('kind')!r} is not one of {', '.join(CAUSE_KINDS)}")
    return Cause(c["kind"], _need(c, "text", f"{table.get('id', '?')}'s cause"),
                 {k: v for k, v in c.items() if k not in ("kind", "text")})


def load(path: Path = CLAIMS_FILE, seeds_path: Path = SEEDS_FILE) -> Claims:
    with open(path, "rb") as f:
        data = tomllib.load(f)
    with open(seeds_path, "rb") as f:
        numbers = seed_numbers(tomllib.load(f))

    def fields_of(t: dict, kind: str, *keys) -> tuple:
        """The claim's `keys`, each required (one line naming the claim and
        the field where one is missing)."""
        where = f"[[{kind}]] {t.get('id', '?')}"
        return where, {k: _need(t, k, where) for k in keys}

    def number(t: dict, seed: str, key: str, where: str) -> float:
        return _number(numbers, seed, _need(t, key, where), where)

    common = ("id", "seed", "what", "hardware")
    effects = []
    for t in data.get("effect", []):
        where, c = fields_of(t, "effect", *common, "smap_model")
        ns = t.get("ns")
        effects.append(Effect(**c, hw_ratio=number(t, c["seed"], "ratio", where),
                              before=tuple(_need(t, "before", where)),
                              after=tuple(_need(t, "after", where)),
                              hw_ns=tuple(_number(numbers, c["seed"], n, where) for n in ns)
                              if ns else None, cause=_cause(t)))
    lines = {}
    for t in data.get("line", []):
        where, c = fields_of(t, "line", *common, "variant", "workload", "smap_model")
        lines[c["id"]] = Line(**c, slope=number(t, c["seed"], "slope", where), cause=_cause(t))
    changes = []
    for t in data.get("slope_change", []):
        where, c = fields_of(t, "slope_change", "id", "before", "after", "what")
        unknown = [c[k] for k in ("before", "after") if c[k] not in lines]
        if unknown:
            raise UserError(f"{CLAIMS_FILE.name}: {where}: {unknown[0]!r} is no [[line]]'s "
                            f"id: name one of {', '.join(lines)}")
        changes.append(SlopeChange(c["id"], lines[c["before"]], lines[c["after"]], c["what"],
                                   _cause(t)))
    shares, workload_shares = [], []
    for kind, into, cls in (("share", shares, Share),
                            ("workload_share", workload_shares, WorkloadShare)):
        for t in data.get(kind, []):
            more = ("smap_model",) if cls is WorkloadShare else ()
            where, c = fields_of(t, kind, *common, "function", "variant", "workload", *more)
            into.append(cls(**c, share=number(t, c["seed"], "share", where),
                            after=t.get("after")))
    bases = []
    for t in data.get("base", []):
        where, c = fields_of(t, "base", *common, "variant", "workload", "smap_model")
        hw = {f"hw_{k}": number(t, c["seed"], k, where)
              for k in ("cycles", "ns", "per_byte") if k in t}
        bases.append(Base(**c, **hw))
    by_id = {e.id: e for e in effects}
    arm = []
    for t in data.get("arm_view", []):
        where, c = fields_of(t, "arm_view", "id", "what", "name", "mechanism", "before", "after")
        mirrors = t.get("mirrors")
        if mirrors is not None and mirrors not in by_id:
            raise UserError(f"{CLAIMS_FILE.name}: {where}: mirrors {mirrors!r}, no [[effect]]'s "
                            f"id: name one of {', '.join(by_id)}")
        arm.append(ArmView(**dict(c, before=tuple(c["before"]), after=tuple(c["after"])),
                           mirrors=by_id.get(mirrors)))
    s = data["scorecard"]
    return Claims(s["arch"], s["arm_arch"], s["miss"], s["generic_preset"], s["generic_cache"],
                  s["clock_ghz"], tuple(s["clock_range_ghz"]), dict(data["era_preset"]),
                  tuple(effects), tuple(lines.values()), tuple(changes), tuple(shares),
                  tuple(workload_shares), tuple(bases), tuple(arm),
                  tuple((p["seed"], p["what"], p["why"]) for p in data.get("pending", [])))


CLAIMS = load()
