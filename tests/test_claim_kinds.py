"""A claim kind is one module (analysis/kinds/NAME.py) and its tables in
analysis/claims.toml: a kind the project has never seen, written to a
temporary folder, is read, judged, counted at a glance and shown in the
markdown and the terminal with no other file changed."""

import sys
from pathlib import Path

import pytest

import analysis.kinds
from analysis import results, scorecard, scorecard_text
from analysis.kinds import registry
from lab.errors import UserError

REPO = Path(__file__).resolve().parent.parent

# The whole of a new kind: a time per call, gem5's cycles at the board's
# 3 GHz against the seed's nanoseconds (docs/guide/extending.md, "A claim
# kind", walks a module like it).
TOY = '''
from dataclasses import dataclass

from analysis import claims
from analysis.judging import (Judged, cycles_per_op, era_machine, gem5_runs, model_of,
                              on_generic, setup, verdict)

SECTION = "Time per call"
ABOUT = "gem5's cycles at 3 GHz against the seed's time per call."
MEASURES = "effect"
HEADER = ["claim", "seed", "hardware", "gem5 ns", "sim/hw", "verdict", "cpu preset", "note"]
COLUMNS = ("claim", "gem5 ns", "sim/hw", "verdict", "cpu preset")


@dataclass(frozen=True)
class TimePerCall(claims.OneKernel):
    hw_ns: float


def read(r, loaded):
    c = r.fields(*claims.ONE_KERNEL)
    return TimePerCall(**c, hw_ns=r.number(c["seed"], "ns"))


def judged(scored, toys):
    out = []
    for c in toys:
        for run in gem5_runs(scored.rows):
            if ((run.point.variant, run.point.job_name) != (c.variant, c.workload)
                    or model_of(run) != c.smap_model):
                continue
            ns = cycles_per_op(run) / 3.0
            m = ns / c.hw_ns
            s = setup(run)
            out.append(Judged(MEASURES, c, s, m, verdict(m), on_generic(s, run["cache"]),
                              era_machine(c.seed, run, s), False,
                              [c.what, c.seed, c.hardware, f"{ns:.1f}", f"{m:.2f}x",
                               verdict(m), s, "a note no terminal shows"]))
    return out
'''

TOY_CLAIM = '''
[[toy_time]]
id = "statx-time-toy"
seed = "000_ccfae2f7fd7a499e"
what = "statx time per call, a toy kind's claim"
hardware = "10M statx in 1.624 s: 162.4 ns per call"
ns = "statx_after_ns"
variant = "stock"
workload = "statx-loop"
smap_model = "smap"
'''


def _row(cycles: int):
    """A gem5 statx run on the generic machine, 100 calls."""
    return results.from_row({"backend": "gem5", "arch": "x86_64", "params": "{}",
                             "variant": "stock", "workload": "statx-loop", "smap_model": "smap",
                             "profile": "x86_64-o3-calibrated", "cache": "classic-l1l2",
                             "cycles": cycles, "ops": 100})


@pytest.fixture
def toy_kind(tmp_path, monkeypatch):
    """The toy kind's module in a folder of its own (found as
    analysis.kinds.toy_time) and a claims file that lists it."""
    (tmp_path / "toy_time.py").write_text(TOY)
    monkeypatch.setattr(analysis.kinds, "__path__", [*analysis.kinds.__path__, str(tmp_path)])
    text = (REPO / "analysis" / "claims.toml").read_text()
    assert '"arm_view"]' in text
    path = tmp_path / "claims.toml"
    path.write_text(text.replace('"arm_view"]', '"arm_view", "toy_time"]', 1) + TOY_CLAIM)
    yield path
    sys.modules.pop("analysis.kinds.toy_time", None)


def test_a_new_kind_is_one_module_and_its_claims(toy_kind, monkeypatch):
    loaded = registry.load(toy_kind)
    [toy] = loaded.of("toy_time")
    assert toy.hw_ns == 162.4  # by name from analysis/seeds.toml, as every kind's
    assert toy in loaded.every()
    monkeypatch.setattr(registry, "CLAIMS", loaded)
    rows = [_row(48_720)]  # 487.2 cycles per call: 162.4 ns at 3 GHz
    sections = {s.title: s for s in scorecard.sections(rows)}
    # Judged, in its own table after the kinds before it.
    assert list(sections)[-2:] == ["Time per call", "The machine probes"]
    assert sections["Time per call"].body == [
        [toy.what, toy.seed, toy.hardware, "162.4", "1.00x", "agrees",
         "x86_64-o3-calibrated", "a note no terminal shows"]]
    # At a glance: its row on the generic machine, counted as a prediction.
    glance = sections["At a glance"]
    assert ["effect", toy.what, toy.hardware, "1.00x, agrees", "-", "-"] in glance.body
    assert "1 of 1 on the generic machine" in glance.what
    # Shown: the markdown every column, the terminal its COLUMNS.
    md = scorecard.markdown(rows)
    assert "### Time per call" in md and "a note no terminal shows" in md
    text = scorecard_text.render(rows, width=160)
    assert "Time per call" in text and "162.4" in text
    assert "a note no terminal shows" not in text
    # A miss is judged as one.
    [row] = scorecard.kind_table("toy_time", [_row(97_440)])[1]
    assert row[4:6] == ["2.00x", "too large"]


def test_a_kind_without_its_module_is_one_line(tmp_path):
    text = (REPO / "analysis" / "claims.toml").read_text()
    path = tmp_path / "claims.toml"
    path.write_text(text.replace('"arm_view"]', '"arm_view", "no_such_kind"]', 1))
    with pytest.raises(UserError, match=r"kinds names 'no_such_kind', which has no module "
                                        r"analysis/kinds/no_such_kind.py"):
        registry.load(path)


def test_the_kinds_are_the_files_in_the_scorecards_order():
    # Every module in analysis/kinds/ is a kind the file names, and the
    # sections follow the file's order.
    modules = {p.stem for p in (REPO / "analysis" / "kinds").glob("*.py")} - {"__init__",
                                                                             "registry"}
    assert set(registry.CLAIMS.kinds) == modules
    titles = [s.title for s in scorecard.sections([])]
    assert titles == ["At a glance", "The seeds' claims", "Base costs", "Per-byte lines",
                      "SMAP's share", "A function's share of a workload",
                      "The Arm copies' claims", "The Arm copies' bases", "On Arm",
                      "The machine probes"]


def test_a_sweeps_report_shows_every_kind_the_registry_has(toy_kind, monkeypatch):
    # Issue 67 item 9: the report named five kinds by hand, and a kind it
    # did not name (base) never reached a sweep's report. It lays out the
    # registry's now: the toy kind too, and a pending claim in the effects'
    # table, with no line of report.py changed.
    from analysis import report
    assert report.scorecard_sections([]) == []  # no gem5 run: no scorecard
    toy_kind.write_text(toy_kind.read_text() + PENDING)
    loaded = registry.load(toy_kind)
    monkeypatch.setattr(registry, "CLAIMS", loaded)
    sections = {t: body for t, _, body, *_ in report.scorecard_sections([_row(48_720)])}
    assert list(sections) == [f"Scorecard: {s}" for s in (
        "The seeds' claims", "Base costs", "Per-byte lines", "SMAP's share",
        "A function's share of a workload", "The Arm copies' claims", "The Arm copies' bases",
        "On Arm", "Time per call")]
    assert "a toy's pending number" in {row[0] for row in sections["Scorecard: The seeds' claims"]}
    [toy] = loaded.of("toy_time")
    assert sections["Scorecard: Time per call"] == [
        [toy.what, toy.seed, toy.hardware, "162.4", "1.00x", "agrees",
         "x86_64-o3-calibrated", "a note no terminal shows"]]


PENDING = '''
[[pending]]
seed = "000_ccfae2f7fd7a499e"
what = "a toy's pending number"
why = "not compared yet"
'''
