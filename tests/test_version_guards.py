"""Each declared version is guarded (issue 63): a test fails when what a
version covers changes while the version does not.

A gem5 run's key holds the code that makes its result by a declared
version, never by that code's text (tests/test_keys_stable.py), so an
edit that changes a result must bump its version, or the store goes on
serving results the code no longer makes. The seven versions, each
guarded where its covered code can be checked:
  by a golden output computed without gem5, pinned beside the version:
      commit_profile.VERSION (test_commit_profile.py), uop_profile.VERSION
      (test_uop_profile.py), simpoint_method.METHOD_VERSION
      (test_simpoint.py), make_tree.TREE_VERSION (test_make_tree.py);
  by a fingerprint of the covered code, pinned beside the version (GUARDS
      below), where that code runs inside gem5 and so has no output to
      compute here: spec.FS_ROI_VERSION (fs_roi.py, simobject_set.py), THREE_LEVEL_VERSION
      (three_level_caches.py) and sampling.FLOW_VERSION (fs_simpoint.py,
      and sampling.py, whose steps decide what each gem5 process of the
      flow runs and how their outputs become the estimate; its plan and
      weighted estimate have golden outputs too, in test_sampling.py).
The fingerprint is of the normalised syntax tree (tests/code_fingerprint.py):
a comment, a docstring or a reformat leaves it as it was, a changed
constant or call moves it. The last tests show both on each covered file.
"""

import importlib
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from code_fingerprint import HARMLESS_EDITS, fingerprint

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Guard:
    """A declared version and the code it covers, pinned together."""
    version: str      # "<module>.<NAME>": where the version is declared
    value: int        # its value when the fingerprint was pinned
    covers: tuple     # the files it covers, relative to the repository
    pinned: str       # code_fingerprint.fingerprint(covers) at that value

    def current(self) -> int:
        module, _, name = self.version.rpartition(".")
        return getattr(importlib.import_module(module), name)

    def stale(self, root: Path = REPO) -> str:
        """What is wrong, in words, for the covered files under `root`:
        "" while the pin holds."""
        now, value = fingerprint([root / p for p in self.covers]), self.current()
        if value != self.value:
            return (f"{self.version} is {value}, but its row here pins {self.value}: pin "
                    f"{value} there, with the fingerprint {', '.join(self.covers)} have now, "
                    f"{now}")
        if now == self.pinned:
            return ""
        return (f"{', '.join(self.covers)} changed (fingerprint {now}, pinned "
                f"{self.pinned}) while {self.version} stayed {value}. If a result would "
                "change, bump it: every key that holds it moves, so record the moved keys "
                "with the date and the reason in tests/test_keys_stable.py, and pin the new "
                "version and fingerprint here. If what gem5 simulates is unchanged (a "
                "refactor), pin the new fingerprint here only after the gem5 smoke point's "
                "statistics (for the SimPoint flow, its SimPoint step's) are shown unchanged "
                "on a machine with gem5, and say so in the commit.")


# The pins. A version bumped or a fingerprint re-pinned changes its row
# here, and the commit says why (see Guard.stale's words).
GUARDS = (
    # Re-pinned 2026-11-30 (issue 65), version kept: fs_roi.py leaves gem5's
    # memory-mapped timer out of the device tree only where a spec says
    # "timer_mem_in_dtb": false, which arm64's specs alone do, and that
    # input is in arm64's checkpoint keys (spec.checkpoint_key); an x86 spec
    # never reaches the new code, so x86 simulates as before. Re-pinned
    # 2026-12-01 (issue 64), version kept: set_fu_latency also reads back
    # and reports patch 0043's RepCompareStartup op class where gem5 has
    # it; it sets no latency of its own (a preset's fu_latency still does),
    # so nothing gem5 simulates moved (the gem5 smoke set passed with the
    # change, its pinned cycles unchanged, 2026-12-01 06:51 and again
    # 08:23 for the short ROIs).
    Guard("configs.gem5.spec.FS_ROI_VERSION", 2,
          ("configs/gem5/fs_roi.py", "configs/gem5/simobject_set.py"), "c9b05a3d5c69479d75ff"),
    Guard("configs.gem5.cache_presets.THREE_LEVEL_VERSION", 1,
          ("configs/gem5/three_level_caches.py",), "41cdffe64b1e5519c1e5"),
    # Bumped 2026-11-30 (issue 66): the one-pass flow (simpoint_passes = 1,
    # checkpoints on a grid saved in the vectors' pass); the host's side of
    # the flow split out to simpoint_points.py, covered with it. Re-pinned
    # 2026-11-30, version kept: the two-pass store counts only this run's
    # warm-up folders, and two unused values dropped; nothing gem5 runs
    # changed (tests/test_gem5_smoke.py -k simpoint and test_gem5_real.py's
    # one-pass test passed on gem5 with the change).
    # Bumped 2026-12-02 (issue 64): the two-pass checkpoints replayed from
    # the ROI's start where a warm-up starts in the ROI, from a set-up
    # checkpoint (on to workbegin, checked by tick) where it starts before;
    # each interval records where its run met workbegin. An Arm replay of
    # the set-up met workbegin at the set-up run's tick 433 instructions
    # early, which the old flow's exact check failed on. The replays moved
    # to simpoint_checkpoints.py (sampling.py's line limit), covered here;
    # re-pinned for the ROI-start checkpoint's path named once
    # (simpoint_points.roi_start_checkpoint): test_gem5_real's SimPoint
    # tests found every cached step at its path, estimates unchanged.
    Guard("configs.gem5.sampling.FLOW_VERSION", 3,
          ("configs/gem5/sampling.py", "configs/gem5/simpoint_points.py",
           "configs/gem5/simpoint_checkpoints.py", "configs/gem5/fs_simpoint.py"),
          "f3b51106c0da0d379c7e"),
)
COVERED = [p for g in GUARDS for p in g.covers]


def _name(guard: Guard) -> str:
    return guard.version.rpartition(".")[2]


@pytest.mark.parametrize("guard", GUARDS, ids=_name)
def test_each_version_holds_the_code_it_was_pinned_with(guard):
    why = guard.stale()
    assert not why, why


def test_each_guarded_file_exists_and_is_guarded_once():
    # A renamed or split file is named here again, not silently dropped.
    assert [p for p in COVERED if not (REPO / p).is_file()] == []
    assert len(set(COVERED)) == len(COVERED)


# A real edit of each covered file, one that changes what gem5 simulates
# or what the flow estimates: (file, text it holds once, that text edited).
EDITS = [
    # The O3 pool keeps gem5's own latencies, not the preset's.
    ("configs/gem5/fs_roi.py", 'set_fu_latency(cpu, spec["cpu"].get("fu_latency", {}))',
     "pass"),
    # The preset's new SimObjects made after its attributes: the order
    # version 2 fixed, so a flag set on the replaced predictor is lost.
    ("configs/gem5/simobject_set.py",
     'for name, kind in settings.get("o3_new", {}).items():\n        set_path(cpu, name, new_object(kind))\n    for name, value in settings.get("o3", {}).items():\n        set_path(cpu, name, value)',
     'for name, value in settings.get("o3", {}).items():\n        set_path(cpu, name, value)\n    for name, kind in settings.get("o3_new", {}).items():\n        set_path(cpu, name, new_object(kind))'),
    # Fewer requests may wait on one miss (targets per MSHR), at every level.
    ("configs/gem5/three_level_caches.py", "tgts_per_mshr=20", "tgts_per_mshr=16"),
    # Each simulation point's interval measured twice as long as chosen.
    ("configs/gem5/fs_simpoint.py", "simulator.schedule_max_insts(length)",
     "simulator.schedule_max_insts(2 * length)"),
    # An interval that ends exactly at workend dropped from the vectors.
    ("configs/gem5/sampling.py", "if end + n > roi_insts:", "if end + n >= roi_insts:"),
    # Every point replayed from the set-up, none from the ROI's start.
    ("configs/gem5/simpoint_checkpoints.py",
     'if p["checkpoint_insts"] < r0], which,', 'if p["checkpoint_insts"] >= r0], which,'),
    # A point warmed up from the checkpoint after its warm-up's start.
    ("configs/gem5/simpoint_points.py", "before = [q for q in candidates if q <= position]",
     "before = [q for q in candidates if q >= position]"),
]


def _guard_of(path: str) -> Guard:
    return next(g for g in GUARDS if path in g.covers)


def _copy(guard: Guard, root: Path) -> Path:
    """The guard's covered files under `root`, at their own paths."""
    for rel in guard.covers:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / rel, root / rel)
    return root


def test_every_covered_file_has_a_real_edit_below():
    assert sorted(p for p, _, _ in EDITS) == sorted(COVERED)


@pytest.mark.parametrize("path,old,new", EDITS, ids=[Path(e[0]).stem for e in EDITS])
def test_the_guard_fails_on_a_real_edit_of_its_file(tmp_path, path, old, new):
    guard = _guard_of(path)
    copy = _copy(guard, tmp_path)
    text = (copy / path).read_text()
    assert text.count(old) == 1, f"{path} no longer holds {old!r} once: choose another edit"
    (copy / path).write_text(text.replace(old, new))
    assert fingerprint([copy / path]) != fingerprint([REPO / path])
    why = guard.stale(copy)
    assert f"while {guard.version} stayed" in why and "bump it" in why


@pytest.mark.parametrize("edit", sorted(HARMLESS_EDITS))
@pytest.mark.parametrize("path", COVERED, ids=[Path(p).stem for p in COVERED])
def test_a_comment_docstring_or_reformat_leaves_the_guard_as_it_was(tmp_path, path, edit):
    guard = _guard_of(path)
    copy = _copy(guard, tmp_path)
    text = (copy / path).read_text()
    edited = HARMLESS_EDITS[edit](text)
    assert edited != text
    (copy / path).write_text(edited)
    assert fingerprint([copy / p for p in guard.covers]) == \
        fingerprint([REPO / p for p in guard.covers])
