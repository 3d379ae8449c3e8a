"""The claim kind `slope_change` ([[slope_change]] in analysis/claims.toml):
the change between two of a seed's lines (analysis/kinds/line.py), judged
as a change on each setup where both lines were fitted."""

from dataclasses import dataclass

from analysis import causes, claims
from analysis.judging import Judged, setup, setup_label, verdict
from analysis.kinds import line
from analysis.kinds.line import Line, fitted, noted

SECTION = line.SECTION  # its rows follow the lines'
ABOUT = line.ABOUT
MEASURES = line.MEASURES
HEADER = line.HEADER
COLUMNS = line.COLUMNS


@dataclass(frozen=True)
class SlopeChange:
    """The change between two of a seed's lines, judged as a change:
    `before` and `after` are the lines (the file names them by id), the
    seed is theirs."""
    id: str
    before: Line
    after: Line
    what: str
    cause: claims.Cause = None

    @property
    def seed(self) -> str:
        return self.before.seed


def read(r: claims.Reader, loaded: dict) -> SlopeChange:
    c = r.fields("id", "before", "after", "what")
    lines = {ln.id: ln for ln in loaded.get("line", ())}
    before, after = (r.one_of(k, lines, "line") for k in ("before", "after"))
    return SlopeChange(c["id"], before, after, c["what"], r.cause())


def judged(scored, changes: tuple) -> list:
    """Each slope change on each setup where both of its lines were fitted."""
    rows, out = scored.rows, []
    for ch in changes:
        before, after = ch.before, ch.after
        hw = after.slope - before.slope
        after_by_setup = {setup(r): slope for r, _, slope in fitted(after, rows)}
        pairs = [(r, slope, after_by_setup[setup(r)])
                 for r, _, slope in fitted(before, rows) if setup(r) in after_by_setup]
        for r, s0, s1 in pairs:
            m = (s1 - s0) / hw
            v = verdict(m)
            out.append(noted(ch, r, m, v, [
                ch.what, ch.seed, f"{before.slope:g} -> {after.slope:g} per byte ({hw:+g})",
                f"{s0:.1f} -> {s1:.1f} per byte ({s1 - s0:+.1f})", f"{m:.2f}x", v, setup_label(r),
                "" if v == "agrees" else
                causes.measured(ch.cause, rows, change=ch) or "not measured yet"]))
        if not pairs:
            out.append(Judged(MEASURES, ch, "-", None, "not simulated", False, False, False,
                              [ch.what, ch.seed, f"{before.slope:g} -> {after.slope:g} per byte",
                               "-", "-", "not simulated", "-", ""]))
    return out
