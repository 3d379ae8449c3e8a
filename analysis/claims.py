"""Reading analysis/claims.toml: the scorecard's settings (SETTINGS: the
arch the seeds measured, the miss factor, the generic and era machines,
the assumed clock) and, for each kind of claim, the one Reader its module
(analysis/kinds/) reads its tables with. Hardware numbers are looked up
by name in analysis/seeds.toml, the seeds' quoted numbers and those
derived from them, so no number is typed twice. Which kinds there are,
and in what order, is analysis/kinds/registry.py's (the file's `kinds`).

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
CAUSE_KINDS = ("per-byte profile", "per-byte profile change", "saving")


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
class OneKernel(Cited):
    """A claim about one kernel's runs: its variant, workload and the
    STAC/CLAC model matching the seed's hardware."""
    variant: str
    workload: str
    smap_model: str


CITED = ("id", "seed", "what", "hardware")  # Cited's fields, as the file names them
ONE_KERNEL = CITED + ("variant", "workload", "smap_model")


@dataclass(frozen=True)
class Settings:
    """The scorecard's [scorecard] table and its [era_preset]."""
    arch: str
    arm_arch: str
    miss: float
    generic_preset: str
    generic_cache: str
    clock_ghz: float
    clock_range_ghz: tuple
    era_preset: dict          # seed id -> the CPU preset of its era's machine
    kinds: tuple              # the claim kinds, in the scorecard's order


def settings(data: dict) -> Settings:
    s = data["scorecard"]
    return Settings(s["arch"], s["arm_arch"], s["miss"], s["generic_preset"],
                    s["generic_cache"], s["clock_ghz"], tuple(s["clock_range_ghz"]),
                    dict(data["era_preset"]), tuple(s["kinds"]))


def read_file(path: Path = CLAIMS_FILE) -> dict:
    with open(path, "rb") as f:
        return tomllib.load(f)


def read_numbers(path: Path = SEEDS_FILE) -> dict:
    with open(path, "rb") as f:
        return seed_numbers(tomllib.load(f))


class Reader:
    """One claim's table as its kind's module reads it: each field it
    needs (one line naming the claim and the field where one is missing)
    and the seed's numbers by the names the table gives."""

    def __init__(self, kind: str, table: dict, numbers: dict):
        self.kind, self.table, self.numbers = kind, table, numbers
        self.where = f"[[{kind}]] {table.get('id', '?')}"

    def fail(self, problem: str):
        raise UserError(f"{CLAIMS_FILE.name}: {self.where}: {problem}")

    def need(self, key: str):
        if key not in self.table:
            raise UserError(f"{CLAIMS_FILE.name}: {self.where} lacks {key}: add it (the "
                            f"kinds' fields are at the top of the file)")
        return self.table[key]

    def fields(self, *keys) -> dict:
        return {k: self.need(k) for k in keys}

    def get(self, key: str, default=None):
        return self.table.get(key, default)

    def seed_number(self, seed: str, name) -> float:
        """A seed's number by its name in analysis/seeds.toml."""
        if name not in self.numbers.get(seed, {}):
            self.fail(f"{name!r} is not a number of seed {seed} in {SEEDS_FILE.name}: name a "
                      f"quoted or derived one")
        return self.numbers[seed][name]

    def number(self, seed: str, key: str) -> float:
        """The seed's number that the table's `key` names."""
        return self.seed_number(seed, self.need(key))

    def cause(self):
        c = self.table.get("cause")
        if c is None:
            return None
        if c.get("kind") not in CAUSE_KINDS:
            raise UserError(f"{CLAIMS_FILE.name}: {self.table.get('id', '?')}: cause kind "
                            f"{c.get('kind')!r} is not one of {', '.join(CAUSE_KINDS)}")
        if "text" not in c:
            raise UserError(f"{CLAIMS_FILE.name}: {self.table.get('id', '?')}'s cause lacks "
                            f"text: add it (the kinds' fields are at the top of the file)")
        return Cause(c["kind"], c["text"],
                     {k: v for k, v in c.items() if k not in ("kind", "text")})

    def one_of(self, key: str, claims: dict, kind: str):
        """The claim of `kind` (among `claims`, by id) that the table's `key` names."""
        name = self.need(key)
        if name not in claims:
            self.fail(f"{name!r} is no [[{kind}]]'s id: name one of {', '.join(claims)}")
        return claims[name]


SETTINGS = settings(read_file())
