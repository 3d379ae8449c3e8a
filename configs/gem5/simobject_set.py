# Part of the gem5 side (configs/gem5/fs_roi.py imports it by its path):
# how a spec's "set" (lab/gem5_knobs.py's table, made into attributes by
# configs/gem5/spec.py) lands on a core's SimObjects. It imports nothing
# of gem5, so what lands where is tested without gem5
# (tests/test_gem5_config.py); spec.FS_ROI_VERSION covers it with
# fs_roi.py.
#
# The order is the point: "o3_new" gives an O3 attribute a new SimObject
# (a preset's branch predictor takes the place of O3's default), so it
# goes first, and the "o3" attributes on the path below it
# (branchPred.requiresBTBHit, which the fetch-ahead walk needs on every
# taken branch) are set on the object the run simulates. Until 2026-11-29
# the new object came last and replaced the one the flag was set on: on
# x86_64-skylake's LTAGE the flag was lost (issue 53's audit, item 3).


def set_path(obj, path: str, value) -> None:
    """obj.<path> = value, along a dotted path (mmu.dtb.smap_at_commit)."""
    *parents, last = path.split(".")
    for name in parents:
        obj = getattr(obj, name)
    setattr(obj, last, value)


def on_isa(cpu, settings: dict) -> None:
    """The "isa" attributes on every ISA object of the core: micro-ops are
    shared by every core, so every ISA says the same (gem5 stops on a
    disagreement); a part's CPUID is among them (lab/cpuid.py)."""
    for name, value in settings.get("isa", {}).items():
        for isa in cpu.isa:
            set_path(isa, name, value)


def on_o3(cpu, settings: dict, new_object) -> None:
    """The detailed O3 core's: first the new SimObjects ("o3_new", made by
    new_object(class name)), then the attributes ("o3"), so an attribute
    of a replaced child is set on its replacement."""
    for name, kind in settings.get("o3_new", {}).items():
        set_path(cpu, name, new_object(kind))
    for name, value in settings.get("o3", {}).items():
        set_path(cpu, name, value)
