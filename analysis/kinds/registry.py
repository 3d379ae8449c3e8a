"""The claim kinds the scorecard has, and its claims: analysis/claims.toml's
[scorecard] kinds names each kind's module (analysis/kinds/NAME.py, whose
fields analysis/kinds/__init__.py lists), in the order of the scorecard's
sections; each module reads its [[NAME]] tables. Adding a kind is its
module and its tables: nothing here names one.
"""

import importlib
from dataclasses import dataclass
from pathlib import Path

from analysis import claims
from lab.errors import UserError

# What every kind's module declares (analysis/kinds/__init__.py).
FIELDS = ("SECTION", "ABOUT", "HEADER", "COLUMNS", "MEASURES", "read", "judged")
MEASURES = ("effect", "share", "base", None)


def kind_module(name: str):
    """The module of the claim kind `name`, checked for what a kind declares."""
    try:
        module = importlib.import_module(f"analysis.kinds.{name}")
    except ModuleNotFoundError as e:
        if e.name != f"analysis.kinds.{name}":
            raise
        raise UserError(f"{claims.CLAIMS_FILE.name}: [scorecard] kinds names {name!r}, which "
                        f"has no module analysis/kinds/{name}.py: add it or drop the name")
    missing = [f for f in FIELDS if not hasattr(module, f)]
    if missing or module.MEASURES not in MEASURES:
        raise UserError(f"analysis/kinds/{name}.py: declare {', '.join(missing) or 'MEASURES'} "
                        f"(a kind's fields: analysis/kinds/__init__.py)")
    return module


@dataclass(frozen=True)
class Claims:
    """Every claim of the file by kind, and the kinds' modules in the
    scorecard's order (the settings are claims.SETTINGS)."""
    kinds: dict               # kind name -> its module, in the scorecard's order
    by_kind: dict             # kind name -> its claims, in the file's order

    def of(self, kind: str) -> tuple:
        return self.by_kind[kind]

    def every(self) -> tuple:
        """Every claim that is scored against a seed (kinds that MEASURE)."""
        return tuple(c for name, m in self.kinds.items() if m.MEASURES
                     for c in self.by_kind[name])


def load(path: Path = claims.CLAIMS_FILE, seeds_path: Path = claims.SEEDS_FILE) -> Claims:
    data, numbers = claims.read_file(path), claims.read_numbers(seeds_path)
    settings = claims.settings(data)
    unknown = [k for k, v in data.items() if isinstance(v, list) and k not in settings.kinds]
    if unknown:
        raise UserError(f"{claims.CLAIMS_FILE.name}: [[{unknown[0]}]] is no kind the scorecard "
                        f"has: add {unknown[0]!r} to [scorecard] kinds, with its module")
    kinds, loaded = {}, {}
    for name in settings.kinds:
        kinds[name] = module = kind_module(name)
        loaded[name] = tuple(module.read(claims.Reader(name, t, numbers), dict(loaded))
                             for t in data.get(name, []))
    return Claims(kinds, loaded)


CLAIMS = load()
