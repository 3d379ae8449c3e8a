"""A run point says what its record and its store row hold, from one place
(configs/point.py): a run's record and a failure's row name it alike."""

from configs import point as point_mod
from workloads import script

JOB = script.load(script.default_script("statx-loop"))


def test_a_gem5_point_names_the_preset_it_ran_with_its_overrides():
    p = point_mod.gem5_point("x86_64", "stock", JOB, "x86_64-o3-default",
                             cpu_params=(("numROBEntries", 64),))
    # A failure's row and a finished record's point give the same profile:
    # the preset as run, not as named.
    assert p.columns()["profile"] == p.run.cpu.name == "x86_64-o3-default+numROBEntries=64"
    assert p.record() == {"arch": "x86_64", "variant": "stock", "workload": "statx-loop",
                          "backend": "gem5", "profile": "x86_64-o3-default+numROBEntries=64",
                          "cache": "classic-l1l2", "smap_model": "none"}
    assert p.columns()["warming"] == "none" and p.columns()["twin_of"] is None


def test_a_qemu_record_holds_the_keys_qemu_records_always_had():
    p = point_mod.qemu_point("arm64", "stock", JOB)
    assert p.record() == {"arch": "arm64", "variant": "stock", "workload": "statx-loop",
                          "backend": "qemu", "profile": "arm64-pan", "smap_model": ""}
    assert p.label() == "arm64/stock/statx-loop"


def test_a_twin_profile_selects_its_model_without_a_command_line():
    # QEMU's CPU with SMAP is the twin of gem5's executed SMAP: no kernel
    # argument, so the run key is as before, but the point has the model.
    p = point_mod.qemu_point("x86_64", "stock", JOB, "x86_64-gem5-smap", plugin=True)
    assert p.smap_model == "smap" and p.extra_args() == ()
    assert p.record()["smap_model"] == "smap"


def test_a_twin_is_labelled_and_names_its_boot_group():
    g = point_mod.gem5_point("x86_64", "stock", JOB, smap_model="lfence")
    twin = point_mod.qemu_twin(g, 300)
    assert twin.columns()["twin_of"] == "classic-l1l2/lfence"
    assert twin.label() == "x86_64/stock/statx-loop (qemu twin smap=lfence)"
    assert twin.extra_args() == g.extra_args() == ("uaccess_smap_model=lfence",)
