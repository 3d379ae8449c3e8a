"""A run point says what its record and its store row hold, from one place
(configs/point.py): a run's record and a failure's row name it alike."""

import pytest

from configs import backends
from configs import point as point_mod
from configs.gem5.point import gem5_point, qemu_twin
from configs.qemu.point import qemu_point
from configs.gem5 import sampling as gem5_sampling
from lab import inputs
from lab.errors import UserError
from workloads import script

JOB = script.load(script.default_script("statx-loop"))


def test_a_gem5_point_names_the_preset_it_ran_with_its_overrides():
    p = gem5_point("x86_64", "stock", JOB, "x86_64-o3-default",
                             cpu_params=(("numROBEntries", 64),))
    # A failure's row and a finished record's point give the same profile:
    # the preset as run, not as named.
    assert p.columns()["profile"] == p.run.cpu.name == "x86_64-o3-default+numROBEntries=64"
    assert p.record() == {"arch": "x86_64", "variant": "stock", "workload": "statx-loop",
                          "backend": "gem5", "profile": "x86_64-o3-default+numROBEntries=64",
                          "cache": "classic-l1l2", "smap_model": "none"}
    assert p.columns()["warming"] == "none" and p.columns()["twin_of"] is None


def test_a_qemu_record_holds_the_keys_qemu_records_always_had():
    p = qemu_point("arm64", "stock", JOB)
    assert p.record() == {"arch": "arm64", "variant": "stock", "workload": "statx-loop",
                          "backend": "qemu", "profile": "arm64-pan", "smap_model": ""}
    assert p.label() == "arm64/stock/statx-loop"


def test_a_twin_profile_selects_its_model_without_a_command_line():
    # QEMU's CPU with SMAP is the twin of gem5's executed SMAP: no kernel
    # argument, so the run key is as before, but the point has the model.
    p = qemu_point("x86_64", "stock", JOB, "x86_64-gem5-smap", plugin=True)
    assert p.smap_model == "smap" and p.extra_args() == ()
    assert p.record()["smap_model"] == "smap"


def test_a_twin_is_labelled_and_names_its_boot_group():
    g = gem5_point("x86_64", "stock", JOB, smap_model="lfence")
    twin = backends.twin_point(qemu_twin(g, 300))
    assert twin.columns()["twin_of"] == "classic-l1l2/lfence"
    assert twin.label() == "x86_64/stock/statx-loop (qemu twin smap=lfence)"
    assert twin.extra_args() == g.extra_args() == ("uaccess_smap_model=lfence",)


def test_a_broken_rule_is_said_in_the_callers_words_and_names_its_setting():
    # The rules live with the constructor; the command line and a sweep
    # file get the same rule in their own words, and the sweep finds the
    # axis from the setting the error names.
    sampled = gem5_sampling.Settings()
    for spelling, says in ((point_mod.FLAGS, "--sampling simpoint needs --warming functional"),
                           (point_mod.SWEEP_KEYS,
                            'sampling "simpoint" needs warming "functional" only')):
        with pytest.raises(inputs.SettingError, match=says) as e:
            gem5_point("x86_64", "stock", JOB, simpoint=sampled, spelling=spelling)
        assert e.value.setting == "sampling"
    with pytest.raises(UserError, match="--commit-profile needs the whole ROI"):
        gem5_point("x86_64", "stock", JOB, warming="functional", simpoint=sampled,
                             commit_profile=True, spelling=point_mod.FLAGS)


def test_every_backend_comes_from_one_chooser_and_has_the_interface():
    q = qemu_point("x86_64", "stock", JOB)
    g = gem5_point("x86_64", "stock", JOB)
    gem5 = object()
    assert type(backends.backend_for(q)).__name__ == "QemuBackend"
    chosen = backends.backend_for(g, gem5)
    assert type(chosen).__name__ == "Gem5Backend" and chosen.gem5 is gem5
    assert backends.BACKENDS == ("qemu", "gem5")
    for b, p in ((backends.backend_for(q), q), (chosen, g)):
        assert b.name == p.backend
        for member in ("require", "key", "run", "result"):
            assert callable(getattr(b, member)), member
    record = {"result": {"ops": 10, "checksum": "ab"}, "counts": {"insns": {}},
              "gem5": {"summary": {"cycles": 5}}}
    assert backends.backend_for(q).result(record).counts == {"insns": {}}
    assert chosen.result(record).summary == {"cycles": 5}


def test_the_input_primitives_say_one_line_each():
    inputs.needs(False, "--br-kernel", "--builder buildroot")
    with pytest.raises(UserError, match="^--br-kernel needs --builder buildroot$"):
        inputs.needs(True, "--br-kernel", "--builder buildroot")
    with pytest.raises(UserError, match="^--plugin is for QEMU: gem5 counts itself$"):
        inputs.only_for(True, "--plugin", "QEMU", "gem5 counts itself")
    inputs.for_arch("CPU preset 'p'", "any", "arm64")
    with pytest.raises(UserError, match="^CPU preset 'p' is for x86_64, not arm64$"):
        inputs.for_arch("CPU preset 'p'", "x86_64", "arm64")
    with pytest.raises(UserError, match=r"^f.toml: missing 'b' \(a file sets a, b\)$"):
        inputs.required_keys({"a": 1}, ("a", "b"), "f.toml", "a file sets a, b")
    with pytest.raises(UserError, match=r"^s.toml: axes.arch\[1\]: unknown value 'sparc'"):
        inputs.each_in(["x86_64", "sparc"], ("x86_64", "arm64"), "s.toml: axes.arch")
    with pytest.raises(UserError, match="^s.toml: axes.workload: oops$"):
        with inputs.located("s.toml: axes.workload"):
            raise UserError("oops")
    with pytest.raises(inputs.SettingError) as e:
        with inputs.setting("cache"):
            raise UserError("l2_size must be a power of two")
    assert e.value.setting == "cache" and str(e.value) == "l2_size must be a power of two"
