"""The claim kind `pending` ([[pending]] in analysis/claims.toml): a
seed's number not compared yet, said in the effects' table rather than
dropped (seed, what, why); nothing is judged."""

from dataclasses import dataclass

from analysis.judging import Judged
from analysis.kinds import effect

SECTION = effect.SECTION  # a row of the effects' table
ABOUT = effect.ABOUT
MEASURES = None           # not scored: not in the at-a-glance line
HEADER = effect.HEADER
COLUMNS = effect.COLUMNS


@dataclass(frozen=True)
class Pending:
    seed: str
    what: str
    why: str


def read(r, loaded: dict) -> Pending:
    return Pending(**r.fields("seed", "what", "why"))


def judged(scored, pending: tuple) -> list:
    return [Judged("pending", p, "-", None, "pending", False, False, False,
                   [p.what, p.seed, "", "", "", "-", "-", "-", "", "", "", "", "", "", "pending",
                    p.why]) for p in pending]
