"""The era CPU presets' CPUID (issues 53 and 62, lab/cpuid.py), without
gem5 or QEMU: each era preset names its part, and the spec gem5 is given
holds that part's CPUID as X86ISA parameters, bit for bit, on the boot's
cores and the ROI's; the CPUID is in the boot's and the run's keys and in
the record; the QEMU twins' -cpu is made from the same description; and a
guest whose flags say otherwise is caught. The real boots are
tests/test_era_profiles.py's (QEMU, and gem5 where GEM5_HOME is set).
"""

import dataclasses
import json
import tomllib
from pathlib import Path

import pytest

from configs import backends, sweep
from configs.gem5 import backend as gem5_backend
from configs.gem5 import cache_presets, spec
from configs.gem5.point import gem5_point, qemu_twin
from analysis import crosscheck, results
from configs.qemu import profile as qemu_profile
from lab import cpu_presets, cpuid
from lab.errors import UserError
from workloads import script

from test_gem5_config import GEM5, IMAGE, KERNEL

JOB = script.load(script.default_script("statx-loop"))
PARTS = {"x86_64-westmere": "intel-xeon-x5650", "x86_64-westmere-calibrated": "intel-xeon-x5650",
         "x86_64-skylake": "intel-core-i7-6700", "x86_64-skylake-calibrated": "intel-core-i7-6700"}
# SDM vol. 2A, CPUID: leaf 1 ECX bit 13 CMPXCHG16B, bit 23 POPCNT, bit 20
# SSE4.2; leaf 7 EBX bit 9 ERMS, bit 7 SMEP, bit 20 SMAP.
CX16, POPCNT, SSE42 = 1 << 13, 1 << 23, 1 << 20
ERMS, SMEP, SMAP = 1 << 9, 1 << 7, 1 << 20


def _group(cpu, smap_model="none", cache="classic-l1l2", warming="none"):
    return spec.BootGroup("x86_64", KERNEL, IMAGE, smap_model, cache_presets.load_cache(cache),
                          GEM5, warming, cpu.cpuid)


def test_each_era_preset_names_its_part():
    for preset, part in PARTS.items():
        assert cpu_presets.load_cpu(preset, "x86_64").cpuid == part, preset
    # Every other preset keeps gem5's own CPUID, and its record as it was.
    for name in cpu_presets.cpu_preset_names("x86_64"):
        if name not in PARTS:
            cpu = cpu_presets.load_cpu(name, "x86_64")
            assert cpu.cpuid == "gem5" and "cpuid" not in cpu.as_record(), name


def test_the_parts_signatures_and_the_registers_their_guests_get():
    # The signatures Intel publishes: Westmere-EP B1 0x206C2, Skylake-S R0
    # 0x506E3 (family 6; models 0x2C and 0x5E; steppings 2 and 3).
    x5650, i7 = cpuid.load("intel-xeon-x5650"), cpuid.load("intel-core-i7-6700")
    assert (x5650.family, x5650.model, x5650.stepping, x5650.signature()) == (6, 0x2C, 2, 0x206C2)
    assert (i7.family, i7.model, i7.stepping, i7.signature()) == (6, 0x5E, 3, 0x506E3)
    # gem5's vectors are EAX, EBX, EDX, ECX. Leaf 1: CLFLUSH 8 x 8 bytes;
    # EDX the parts' 0xBFEBFBFF less vme, dts, ht, tm, pbe; ECX pni,
    # monitor, ssse3, cx16.
    for c in (x5650, i7):
        isa = c.x86isa()
        assert isa["vendor_string"] == "GenuineIntel"
        assert isa["FamilyModelStepping"] == [c.signature(), 0x800, 0x0FCBFBFD, 0x2209]
        assert isa["FamilyModelSteppingBrandFeatures"] == [0, 0, 0x28100800, 0x1]
        assert isa["CacheParams"] == [0] * 4 and isa["ExtendedState"] == [0] * 8
        assert isa["L1CacheAndTLB"] == [0] * 4 and isa["APMInfo"] == [0] * 4
        assert isa["L2L3CacheAndL2TLB"] == [0, 0, 0, 0x01006040]
    assert x5650.x86isa()["name_string"] == "Intel(R) Xeon(R) CPU           X5650  @ 2.67GHz"
    assert i7.x86isa()["name_string"] == "Intel(R) Core(TM) i7-6700 CPU @ 3.40GHz"
    assert x5650.x86isa()["ExtendedFeatures"] == [0, 0, 0, 0]
    assert i7.x86isa()["ExtendedFeatures"] == [0, 0x00800200, 0, 0]  # clflushopt, erms
    assert x5650.x86isa()["LongModeAddressSize"] == [0x3028, 0, 0, 0]
    assert i7.x86isa()["LongModeAddressSize"] == [0x3027, 0, 0, 0]


def test_cx16_and_erms_with_fast_strings():
    for name in ("intel-xeon-x5650", "intel-core-i7-6700"):
        c = cpuid.load(name)
        leaf1_ecx = c.x86isa()["FamilyModelStepping"][3]
        leaf7_ebx = c.x86isa()["ExtendedFeatures"][1]
        assert leaf1_ecx & CX16 and c.registers["leaf1_ecx"] & CX16
        # The parts have POPCNT and SSE4.2; gem5 v24 runs neither as Linux
        # and glibc would, so the guest gets neither.
        assert c.registers["leaf1_ecx"] & (POPCNT | SSE42) == POPCNT | SSE42
        assert not leaf1_ecx & (POPCNT | SSE42)
        # Never SMAP or SMEP: the smap_model axis's (X86ISA.smap).
        assert not leaf7_ebx & (SMAP | SMEP)
    # erms: the i7's since fast strings (issue 64: its presets run rep
    # movsb a line at a time); none on Westmere.
    i7 = cpuid.load("intel-core-i7-6700")
    assert i7.registers["leaf7_ebx"] & (ERMS | SMAP | SMEP) == ERMS | SMAP | SMEP
    assert i7.x86isa()["ExtendedFeatures"][1] & ERMS and "erms" in i7.given()
    assert i7.held_back == {}
    assert "fast strings" in cpuid.GIVEN["erms"]
    assert "erms" not in cpuid.load("intel-xeon-x5650").part_features()
    for name in ("x86_64-skylake", "x86_64-skylake-calibrated"):
        sky = cpu_presets.load_cpu(name, "x86_64")
        assert sky.cpuid == "intel-core-i7-6700" and sky.fast_strings == "chunked", name


def test_every_feature_of_a_part_is_given_or_withheld_with_a_reason():
    for name in cpuid.names():
        c = cpuid.load(name)
        given, withheld = set(c.given()), c.withheld()
        assert given | set(withheld) == set(c.part_features()) and not given & set(withheld)
        assert given <= set(cpuid.GIVEN)
        assert all(isinstance(why, str) and len(why) > 10 for why in withheld.values())
        assert {"smap", "smep"} & set(c.part_features()) <= {
            f for f, why in withheld.items() if "smap_model" in why}
        # Each given feature's bit is set in the guest's register, and no other.
        for reg in cpuid.REGISTERS:
            bits = {f for f, (r, _) in cpuid.FEATURES.items() if r == reg and c.register(reg)
                    >> cpuid.FEATURES[f][1] & 1}
            assert bits == {f for f in given if cpuid.FEATURES[f][0] == reg}, (name, reg)
    assert cpuid.load("intel-xeon-x5650").given() == (
        "fpu", "de", "pse", "tsc", "msr", "pae", "mce", "cx8", "apic", "sep", "mtrr", "pge",
        "mca", "cmov", "pat", "pse36", "clflush", "acpi", "mmx", "fxsr", "sse", "sse2", "ss",
        "pni", "monitor", "ssse3", "cx16", "lahf_lm", "syscall", "nx", "rdtscp", "lm")
    assert set(cpuid.load("intel-core-i7-6700").given()) == \
        set(cpuid.load("intel-xeon-x5650").given()) | {"clflushopt", "erms"}


@pytest.mark.parametrize("preset", sorted(PARTS))
def test_the_spec_gives_the_boot_and_the_roi_the_parts_cpuid(preset):
    cpu = cpu_presets.load_cpu(preset, "x86_64")
    want = cpuid.load(cpu.cpuid).x86isa()
    for model, warming in (("none", "none"), ("smap", "functional")):
        group = _group(cpu, model, cache=preset.replace("-calibrated", ""), warming=warming)
        # The boot (another CPU preset: atomic, or the default O3 switched
        # out) and the ROI set the same X86ISA values on every core's ISA.
        for s in (spec.boot_spec(group), spec.roi_spec(group, cpu)):
            isa = s["cpu"]["set"]["isa"]
            assert {k: isa[k] for k in want} == want
            # SMAP and SMEP from X86ISA.smap alone, as smap_model says.
            assert isa.get("smap", False) is (model == "smap")


def test_the_cpuid_is_in_the_boots_and_the_runs_keys():
    sky = cpu_presets.load_cpu("x86_64-skylake", "x86_64")
    own = cpu_presets.with_params(sky, {"cpuid": "gem5"})  # the same core, gem5's own CPUID
    assert own.name == "x86_64-skylake+cpuid=gem5" and own.cpuid == "gem5"
    assert "cpuid" not in own.as_record() and own.as_record()["overrides"] == {"cpuid": "gem5"}
    part, plain = _group(sky, "smap"), _group(own, "smap")
    assert part.cpuid == "intel-core-i7-6700" and plain.cpuid == "gem5"
    assert spec.checkpoint_key(part) != spec.checkpoint_key(plain)
    # gem5's own CPUID keeps the key a boot had before the knob existed.
    assert spec.checkpoint_key(plain) == spec.checkpoint_key(
        spec.BootGroup("x86_64", KERNEL, IMAGE, "smap", plain.cache, GEM5))
    assert gem5_backend.gem5_key(part, sky) != gem5_backend.gem5_key(plain, own)
    # A run's preset and its boot group give the guest one CPUID.
    with pytest.raises(UserError, match="gives the guest CPUID intel-core-i7-6700, but its "
                                        "boot group boots with gem5"):
        gem5_backend.gem5_key(plain, sky)
    # The key holds the values gem5 gets, not the reasons' words.
    record = cpuid.load("intel-core-i7-6700").as_record()
    assert record == {"name": "intel-core-i7-6700", "part": "Intel Core i7-6700",
                      "x86isa": cpuid.load("intel-core-i7-6700").x86isa()}


def test_a_point_boots_with_its_presets_cpuid_and_its_twin_gets_the_same():
    for preset, model, profile in (("x86_64-skylake", "smap", "x86_64-skylake-gem5-smap"),
                                   ("x86_64-skylake-calibrated", "none", "x86_64-skylake-gem5"),
                                   ("x86_64-westmere", "none", "x86_64-westmere-gem5"),
                                   ("x86_64-westmere", "smap", "x86_64-westmere-gem5-smap"),
                                   ("x86_64-o3-default", "smap", "x86_64-gem5-smap")):
        p = gem5_point("x86_64", "stock", JOB, preset, cache="classic-l1l2", smap_model=model)
        assert p.boot_group(GEM5, KERNEL, IMAGE).cpuid == p.run.cpu.cpuid
        twin = backends.twin_point(qemu_twin(p, 300))
        assert twin.run.profile.name == profile
        if p.run.cpu.cpuid != "gem5":
            assert twin.run.profile.cpuid == p.run.cpu.cpuid
            assert twin.run.profile.cpu == cpuid.load(p.run.cpu.cpuid).qemu_cpu(model == "smap")


def test_the_twins_cpu_is_made_from_the_description():
    for name in ("x86_64-westmere-gem5", "x86_64-westmere-gem5-smap",
                 "x86_64-skylake-gem5", "x86_64-skylake-gem5-smap"):
        p = qemu_profile.load_profile(name)
        c = cpuid.load(p.cpuid)
        smap = name.endswith("-smap")
        assert p.twin_of_smap_model == ("smap" if smap else "")
        assert p.cpu == c.qemu_cpu(smap) and p.as_record()["cpuid"] == c.name
        parts = p.cpu.split(",")
        assert parts[:6] == ["qemu64", "vendor=GenuineIntel", "family=6", f"model={c.model}",
                             f"stepping={c.stepping}", f"model-id={c.brand}"]
        assert "+cx16" not in parts and "-cx16" not in parts  # qemu64 has it
        for off in ("-hypervisor", "-svm", "-abm"):
            assert off in parts
        assert ("+smap" in parts and "+smep" in parts) is smap
        assert ("-smap" in parts and "-smep" in parts) is not smap
    assert "+clflushopt" in qemu_profile.load_profile("x86_64-skylake-gem5").cpu.split(",")
    assert "+clflushopt" not in qemu_profile.load_profile("x86_64-westmere-gem5").cpu
    # The profiles of gem5's own CPU keep their hand-made -cpu and records.
    assert "cpuid" not in qemu_profile.load_profile("x86_64-gem5-smap").as_record()


def test_a_sweep_cross_checks_each_cpu_against_its_own_twin():
    sw = sweep.expand(tomllib.loads('''
[fixed]
backend = "gem5"
cross_check = true
[axes]
arch = ["x86_64"]
variant = ["stock"]
workload = ["statx-loop"]
smap_model = ["smap"]
cpu_preset = ["x86_64-o3-default", "x86_64-skylake", "x86_64-skylake-calibrated"]
cache = ["x86_64-skylake"]
warming = ["none"]
'''), Path("s.toml"))
    twins = [p.run.profile.name for p in sw.points if p.backend == "qemu"]
    assert twins == ["x86_64-gem5-smap", "x86_64-skylake-gem5-smap"]


def test_a_guest_that_did_not_get_the_cpu_is_caught():
    i7 = cpuid.load("intel-core-i7-6700")
    flags = set(i7.given()) | {"rep_good", "constant_tsc"}
    assert i7.disagreements(flags, smap=False) == []
    assert i7.disagreements(flags | {"smap", "smep"}, smap=True) == []
    assert i7.disagreements(flags, smap=True) == ["smap missing", "smep missing"]
    # nosmap hides it on purpose.
    assert i7.disagreements(flags | {"smep"}, smap=True, cleared=("smap",)) == []
    assert i7.disagreements(flags - {"cx16", "erms"}, smap=False) == [
        "cx16 missing", "erms missing"]
    # Linux read IA32_MISC_ENABLE as 0 (gem5 has no such MSR) and turned
    # fast strings off: the copies are not the hardware's.
    (why,) = i7.disagreements(flags - {"rep_good"}, smap=False)
    assert why.startswith("rep_good missing") and "0x1a0" in why


def test_a_description_decides_every_feature_of_its_part(tmp_path, monkeypatch):
    text = (cpuid.CPUID_DIR / "intel-core-i7-6700.toml").read_text()
    monkeypatch.setattr(cpuid, "CPUID_DIR", tmp_path)
    for old, new, error in [
            ("leaf7_ebx = 0x029C6FBF", "leaf7_ebx = 0x039C6FBF", "neither gives nor withholds: "
             "decide each"),  # clwb (bit 24): no table has it
            ("leaf7_ecx = 0 ", "leaf7_ecx = 4 ", "does not name"),
            ("\n[registers]", '\n[held_back]\npopcnt = "why"\n\n[registers]',
             "held_back popcnt: hold back a feature"),
            ('vendor = "GenuineIntel"', 'vendor = "Intel"', "12 ASCII characters"),
            ("stepping = 3", "stepping = 16", "stepping")]:
        assert old in text, old
        (tmp_path / "p.toml").write_text(text.replace(old, new))
        with pytest.raises(UserError, match=error):
            cpuid.load("p")
    with pytest.raises(UserError, match="unknown CPUID description 'nope'"):
        cpuid.load("nope")


def test_the_cpuid_knob_is_x86s_and_names_a_description():
    sky = cpu_presets.load_cpu("x86_64-skylake", "x86_64")
    with pytest.raises(UserError, match="cpuid"):
        cpu_presets.with_params(sky, {"cpuid": "intel-pentium-4"})
    assert cpu_presets.with_params(sky, {"cpuid": "intel-xeon-x5650"}).cpuid == "intel-xeon-x5650"
    arm = cpu_presets.load_cpu("arm64-o3-default", "arm64")
    bad = dataclasses.replace(arm, choices={"cpuid": "intel-xeon-x5650"})
    from lab import gem5_knobs
    with pytest.raises(UserError, match="is x86_64's"):
        gem5_knobs.BY_NAME["cpuid"].check(bad.cpuid, "arm64", "CPU preset arm64-o3-default")


def test_the_record_says_what_the_guest_got_and_what_it_did_not():
    prov = cpuid.load("intel-xeon-x5650").provenance()
    assert prov["x86isa"]["vendor_string"] == "GenuineIntel" and "cx16" in prov["given"]
    assert {"popcnt", "sse4_2", "pcid", "vme"} <= set(prov["withheld"])


def _row(backend, profile, cpu_record, **metrics):
    sim = {"cpu_preset": cpu_record} if backend == "gem5" else {"profile": cpu_record}
    return results.from_row(dict({
        "backend": backend, "arch": "x86_64", "variant": "stock", "workload": "statx-loop",
        "params": "{}", "smap_model": "smap", "profile": profile,
        "record": json.dumps({"provenance": {"simulator": sim}})}, **metrics))


def test_the_cross_check_pairs_each_gem5_run_with_its_own_cpus_twin():
    rows = [_row("gem5", "x86_64-o3-default", {"name": "x86_64-o3-default"}, gem5_insts=1000),
            _row("gem5", "x86_64-skylake", {"name": "x86_64-skylake",
                                            "cpuid": "intel-core-i7-6700"}, gem5_insts=2000),
            _row("qemu", "x86_64-gem5-smap", {"name": "x86_64-gem5-smap"}, insns_total=1001),
            _row("qemu", "x86_64-skylake-gem5-smap",
                 {"name": "x86_64-skylake-gem5-smap", "cpuid": "intel-core-i7-6700"},
                 insns_total=2002)]
    assert [r.cpuid for r in rows] == ["", "intel-core-i7-6700", "", "intel-core-i7-6700"]
    header, body = crosscheck.cross_check(rows)
    got = {row[header.index("cpu preset")]: row[header.index("QEMU insts")] for row in body}
    assert got == {"x86_64-o3-default": "1,001", "x86_64-skylake": "2,002"}
