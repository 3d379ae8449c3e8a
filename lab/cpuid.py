"""The CPUID an era CPU preset's guest sees (issues 53 and 62): one
description per hardware part, configs/gem5-presets/cpuid/<name>.toml,
read here once and turned into what each simulator takes.

A description states the part's own CPUID as published (vendor, brand
string, family/model/stepping, the feature registers of leaves 1, 7 and
8000_0001h, ...), each value with its public source beside it. What the
guest is given is the part less what gem5 cannot run as the kernel and
its userland would run it (WITHHELD below, each with why), less what the
part's own description holds back (its `held_back`, each with why), and
never SMAP or SMEP: those are the smap_model axis's (X86ISA.smap of our
gem5 series ORs them into leaf 7, configs/gem5-patches 0003), so a point
with smap_model = "none" keeps running without them. Every feature a
part has is either given, with the reason it is safe (GIVEN), or taken
off with its reason: a part that names a feature neither table knows is
refused, so adding a part means deciding each of its features.

Three readers, one description:
  gem5: X86ISA's CPUID parameters (x86isa), set on every core's ISA of
      the boot and of the ROI (configs/gem5/spec.py): Linux patches its
      alternatives at boot, so the CPUID is the boot checkpoint's;
  QEMU: the -cpu option of the gem5 era runs' twins (qemu_cpu;
      configs/qemu-profiles/x86_64-<era>-gem5[-smap].toml);
  a booted guest: the flags its /proc/cpuinfo must and must not show
      (disagreements), checked on every boot of either simulator.
Here, below both stages (configs/gem5 and configs/qemu read it).
"""

from dataclasses import dataclass
from pathlib import Path

from lab import inputs, tomlfile
from lab.errors import UserError

CPUID_DIR = Path(__file__).resolve().parents[1] / "configs" / "gem5-presets" / "cpuid"
GEM5 = "gem5"  # no description: gem5 v24's own X86ISA defaults (the cpuid knob's default)

# The registers a description states, as the SDM names them (vol. 2A,
# CPUID): leaf 1 ECX/EDX (Tables 3-10, 3-11), leaf 7 subleaf 0 EBX/ECX/EDX,
# 8000_0001h ECX/EDX and 8000_0007h EDX (the invariant TSC).
REGISTERS = ("leaf1_ecx", "leaf1_edx", "leaf7_ebx", "leaf7_ecx", "leaf7_edx",
             "ext1_ecx", "ext1_edx", "ext7_edx")

# Feature bits by register, named as Linux's /proc/cpuinfo shows them
# (arch/x86/include/asm/cpufeatures.h, whose bit numbers are the SDM's);
# a name in HIDDEN is one /proc/cpuinfo does not show.
_BITS = {
    "leaf1_edx": "fpu vme de pse tsc msr pae mce cx8 apic - sep mtrr pge mca cmov pat pse36 pn "
                 "clflush - dts acpi mmx fxsr sse sse2 ss ht tm ia64 pbe",
    "leaf1_ecx": "pni pclmulqdq dtes64 monitor ds_cpl vmx smx est tm2 ssse3 cid sdbg fma cx16 "
                 "xtpr pdcm - pcid dca sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes "
                 "xsave osxsave avx f16c rdrand hypervisor",
    "leaf7_ebx": "fsgsbase tsc_adjust sgx bmi1 hle avx2 fdp_excptn_only smep bmi2 erms invpcid "
                 "rtm cqm zero_fcs_fds mpx rdt_a avx512f avx512dq rdseed adx smap avx512ifma - "
                 "clflushopt clwb intel_pt",
    "ext1_ecx": "lahf_lm cmp_legacy svm extapic cr8_legacy abm sse4a misalignsse 3dnowprefetch",
    "ext1_edx": "- - - - - - - - - - - syscall - - - - - - - - nx - mmxext - - fxsr_opt pdpe1gb "
                "rdtscp - lm 3dnowext 3dnow",
    "ext7_edx": "- - - - - - - - invtsc",
}
FEATURES = {name: (reg, bit) for reg, names in _BITS.items()
            for bit, name in enumerate(names.split()) if name != "-"}
HIDDEN = {"osxsave", "fdp_excptn_only", "zero_fcs_fds", "invtsc"}

# Given: gem5 v24 (with our series) runs what the kernel and its userland
# then run. Most are gem5's own default CPUID's (src/arch/x86/X86ISA.py),
# with which every x86 gem5 run of this study has booted so far.
_DEFAULTS = "as gem5 v24's default CPUID gives it (src/arch/x86/X86ISA.py)"
GIVEN = dict.fromkeys(
    "fpu de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx "
    "fxsr sse sse2 ss pni monitor syscall nx rdtscp lm lahf_lm clflushopt".split(), _DEFAULTS)
GIVEN["acpi"] = (_DEFAULTS + "; it says thermal control MSRs exist, which gem5 v24 lacks, but "
                 "only the thermal drivers read it and these kernels build none")
GIVEN["ssse3"] = (_DEFAULTS + "; the kernel runs no SSSE3 here; of it gem5 v24 implements "
                  "PSHUFB, PALIGNR and PABS*, the rest warns unimplemented "
                  "(three_byte_0f38_opcodes.isa): the QEMU twin's checksum checks the userland")
GIVEN["erms"] = ("REP MOVSB/STOSB: gem5 v24 runs them correctly, one byte per loop iteration, "
                 "and our series' fast strings (patch 0030, a preset's fast_strings = "
                 "\"chunked\") a 64-byte line at a time")
GIVEN["cx16"] = ("CMPXCHG16B: gem5 v24 runs 0F C7 /1 with REX.W as its 16-byte form "
                 "(insts/general_purpose/semaphores.py); SLUB's per-cpu update is then one "
                 "cmpxchg16b, not this_cpu_cmpxchg16b_emu's PUSHF/CLI/POPF (issue 62: statx "
                 "1,697.7 -> 1,573.0 cycles, the same checksum)")

# Withheld: gem5 v24 (with our series) does not run what the kernel or
# its userland would run with the feature, or the QEMU twin cannot be
# given it (QEMU 7.2's TCG, target/i386/cpu.c TCG_*_FEATURES), so the two
# guests would run different code.
_NO_MSR = "gem5 v24 has none of its MSRs (src/arch/x86/regs/msr.cc)"
_NO_TWIN = "QEMU 7.2's TCG cannot give it, so the QEMU twin could not match"
_WARN = "gem5 v24 decodes its instructions as WarnUnimpl (warns, does nothing)"
_VEX = "gem5 v24 decodes no VEX-encoded instruction (two_byte_opcodes.isa: VEX -> UD2)"
WITHHELD = {
    "vme": "virtual-8086 mode extensions, which 64-bit Linux never uses; " + _NO_TWIN,
    "dts": "Debug Store: " + _NO_MSR, "dtes64": "Debug Store: " + _NO_MSR,
    "ds_cpl": "Debug Store: " + _NO_MSR,
    "ht": "the board has one hardware thread (leaf 1 EBX[23:16] says 0)",
    "tm": "thermal monitor: " + _NO_MSR + "; gem5's default CPUID gives it, but " + _NO_TWIN,
    "pbe": "pending break enable: " + _NO_MSR + "; gem5's default CPUID gives it, but "
           + _NO_TWIN,
    "tm2": "thermal monitor 2: " + _NO_MSR, "est": "Enhanced SpeedStep: " + _NO_MSR,
    "xtpr": "xTPR update control: " + _NO_MSR, "pdcm": "IA32_PERF_CAPABILITIES: " + _NO_MSR,
    "dca": "direct cache access: " + _NO_MSR, "sdbg": "IA32_DEBUG_INTERFACE: " + _NO_MSR,
    "tsc_adjust": "IA32_TSC_ADJUST: " + _NO_MSR,
    "vmx": "gem5 v24 implements no VMX (VMXON and the rest: WarnUnimpl)",
    "smx": "gem5 v24 implements no SMX (GETSEC unimplemented)",
    "pclmulqdq": "gem5 v24 decodes PCLMULQDQ (66 0F 3A 44) as UD2",
    "aes": "gem5 v24 decodes AESENC and the rest (66 0F 38 DB-DF) as UD2",
    "movbe": "gem5 v24 decodes MOVBE (0F 38 F0/F1) as UD2",
    "adx": "gem5 v24 decodes ADCX/ADOX (66/F3 0F 38 F6) as UD2",
    "invpcid": "gem5 v24 decodes INVPCID (66 0F 38 82) as UD2; " + _NO_TWIN,
    "fsgsbase": "gem5 v24 decodes RDFSBASE/WRFSBASE/RDGSBASE/WRGSBASE (F3 0F AE /0-3) as UD2, "
                "and Linux 6.1 would run them on every context switch",
    "sse4_1": "SSE4.1: " + _WARN + " for PTEST, PCMPEQQ, MOVNTDQA, ROUNDPS/PD, DPPS/PD "
              "(three_byte_0f38/0f3a_opcodes.isa)",
    "sse4_2": "SSE4.2: " + _WARN + " for CRC32 and PCMPISTRI/M, and does not decode "
              "PCMPESTRI/M: glibc's SSE4.2 strcspn, strspn and strpbrk would compute wrong",
    "popcnt": "gem5 v24's POPCNT counts all 64 bits of a register source even for a 32-bit "
              "operand (insts/general_purpose/compare_and_test/bit_scan.py: popcnt ... "
              "dataSize=8), so Linux's popcntl (hweight32) would count the upper half too; "
              "withheld until the series fixes it (Linux then runs __sw_hweight32, as on gem5's "
              "default CPUID)",
    "abm": "LZCNT: gem5 v24 decodes F3 0F BD as BSR, which returns another value",
    "x2apic": "gem5 v24's local APIC has no x2APIC mode; " + _NO_TWIN,
    "tsc_deadline_timer": "gem5 v24's local APIC has no TSC-deadline mode; " + _NO_TWIN,
    "pcid": "gem5 v24's handling of CR4.PCIDE and CR3's no-flush bit is unchecked; " + _NO_TWIN
            + " (no stat path uses it: these kernels have no PTI)",
    "xsave": "XSAVE/XRSTOR/XGETBV/XSETBV: " + _WARN + ", and Linux would save FPU state with it",
    "osxsave": "follows XSAVE", "avx": _VEX, "avx2": _VEX, "fma": _VEX, "f16c": _VEX,
    "bmi1": _VEX, "bmi2": _VEX,
    "rdrand": "gem5 v24 decodes 0F C7 /6 as VMPTRLD (WarnUnimpl), not RDRAND",
    "rdseed": "gem5 v24 decodes 0F C7 /7 as VMPTRST, not RDSEED; " + _NO_TWIN,
    "sgx": "gem5 v24 implements no SGX", "hle": "gem5 v24 implements no TSX",
    "rtm": "gem5 v24 implements no TSX", "mpx": "gem5 v24 implements no MPX",
    "intel_pt": "gem5 v24 implements no Processor Trace",
    "zero_fcs_fds": "says FXSAVE stores FCS/FDS as 0, which gem5 v24's FXSAVE is not checked to "
                    "do; nothing in these kernels reads it",
    "3dnowprefetch": "gem5 v24 runs PREFETCHW (0F 0D /1) as a prefetch, but " + _NO_TWIN
                     + " (Linux then prefetches with prefetcht0)",
    "pdpe1gb": "1 GiB pages: gem5 v24's page-table walker ignores a PDPT entry's PS bit "
               "(pagetable_walker.cc, LongPDP)",
    "invtsc": "invariant TSC: " + _NO_TWIN + "; Linux then omits nonstop_tsc, which nothing "
              "of these kernels reads (no deep C-states in either simulator)",
}
# The smap_model axis's, never a description's: X86ISA.smap (our series,
# configs/gem5-patches 0003) gives both with smap_model = "smap".
AXIS = {"smap": "the smap_model axis's (X86ISA.smap, configs/gem5-patches 0003)",
        "smep": "the smap_model axis's (X86ISA.smap, configs/gem5-patches 0003)"}

# What a booted guest's /proc/cpuinfo is checked for (disagreements): the
# features the stat paths' alternatives switch on, each present exactly
# where the CPUID gives it, and rep_good, which Linux sets on a family 6
# Intel part unless reading IA32_MISC_ENABLE says fast strings are off
# (arch/x86/kernel/cpu/intel.c, early_init_intel and init_intel).
CHECKED = ("cx16", "popcnt", "erms", "fsgsbase", "xsave", "pcid", "invpcid", "sse4_2", "avx2",
           "smap", "smep")

# QEMU 7.2's qemu64 model (target/i386/cpu.c, builtin_x86_defs), the base
# of a twin's -cpu, and the features a twin's -cpu removes from it where
# a description does not give them (QEMU adds "hypervisor" to every model;
# older qemu64 models had abm and sse4a).
QEMU_BASE = "qemu64"
QEMU64 = frozenset("fpu de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush "
                   "mmx fxsr sse sse2 pni cx16 syscall nx lm lahf_lm".split())
QEMU64_OFF = ("svm", "abm", "sse4a", "hypervisor")


@dataclass(frozen=True)
class Cpuid:
    """A hardware part's CPUID and what of it the guest is given."""
    name: str           # the description's file stem
    part: str           # the part it describes ("Intel Xeon X5650")
    vendor: str         # leaf 0's vendor string, 12 characters
    brand: str          # leaves 8000_0002h-8000_0004h's brand string
    family: int
    model: int
    stepping: int
    clflush_line: int   # bytes (leaf 1 EBX[15:8] x 8)
    registers: dict     # REGISTERS -> the part's own value, as published
    l2_cache: int       # 8000_0006h ECX
    address_sizes: int  # 8000_0008h EAX (physical bits, then virtual bits << 8)
    qemu_twin: str      # the QEMU profile of its twin ("-smap" added for smap_model smap)
    held_back: dict     # feature -> why, this part's own choice (erms was, until fast strings)

    def part_features(self) -> tuple:
        """The features the part has, by name, in register and bit order."""
        return tuple(n for n, (reg, bit) in FEATURES.items() if self.registers[reg] >> bit & 1)

    def withheld(self) -> dict:
        """The part's features the guest is not given -> why."""
        why = dict(WITHHELD, **AXIS, **self.held_back)
        return {f: why[f] for f in self.part_features() if f not in self.given()}

    def given(self) -> tuple:
        """The part's features the guest is given, by name."""
        return tuple(f for f in self.part_features() if f in GIVEN and f not in self.held_back)

    def register(self, reg: str) -> int:
        """The guest's value of a feature register."""
        return sum(1 << FEATURES[f][1] for f in self.given() if FEATURES[f][0] == reg)

    def signature(self) -> int:
        """Leaf 1 EAX (SDM vol. 2A, CPUID, Figure 3-6): stepping, model,
        family, with the extended model for family 6 and 15 and the
        extended family above 15."""
        base_family, ext_family = min(self.family, 0xF), max(self.family - 0xF, 0)
        return (self.stepping | (self.model & 0xF) << 4 | base_family << 8
                | (self.model >> 4) << 16 | ext_family << 20)

    def x86isa(self) -> dict:
        """gem5 v24's X86ISA CPUID parameters (src/arch/x86/X86ISA.py;
        cpuid.cc). Each vector is EAX, EBX, EDX, ECX, gem5's order."""
        leaf1_ebx = (self.clflush_line // 8) << 8  # APIC ID 0, no HTT count, brand index 0
        return {
            "vendor_string": self.vendor, "name_string": self.brand,
            "FamilyModelStepping": [self.signature(), leaf1_ebx, self.register("leaf1_edx"),
                                    self.register("leaf1_ecx")],
            # One value for every subleaf (gem5 indexes only leaf 0Dh): a
            # cache type there would make Linux count cache leaves forever;
            # 0 says none, and Linux reads 8000_0006h instead.
            "CacheParams": [0, 0, 0, 0],
            "ExtendedFeatures": [0, self.register("leaf7_ebx"), self.register("leaf7_edx"),
                                 self.register("leaf7_ecx")],
            "ExtendedState": [0] * 8,  # no XSAVE given: no state components
            # 8000_0001h EAX and EBX are reserved on Intel's parts (0).
            "FamilyModelSteppingBrandFeatures": [0, 0, self.register("ext1_edx"),
                                                 self.register("ext1_ecx")],
            "L1CacheAndTLB": [0, 0, 0, 0],  # reserved on Intel's parts (0)
            "L2L3CacheAndL2TLB": [0, 0, 0, self.l2_cache],
            "APMInfo": [0, 0, self.register("ext7_edx"), 0],
            "LongModeAddressSize": [self.address_sizes, 0, 0, 0],
        }

    def qemu_cpu(self, smap: bool) -> str:
        """QEMU's -cpu for the twin: qemu64 made into this guest's CPU, the
        same vendor, signature, brand and features; SMAP and SMEP as the
        smap model gives them."""
        given = set(self.given()) | ({"smap", "smep"} if smap else set())
        plus = [f for f in self.given() if f not in QEMU64]
        minus = sorted(QEMU64 - given) + [f for f in QEMU64_OFF if f not in given]
        axis = [("+" if smap else "-") + f for f in ("smap", "smep")]
        return ",".join([QEMU_BASE, f"vendor={self.vendor}", f"family={self.family}",
                         f"model={self.model}", f"stepping={self.stepping}",
                         f"model-id={self.brand}"] + [f"+{f}" for f in plus]
                        + [f"-{f}" for f in minus] + axis)

    def twin_profile(self, smap: bool) -> str:
        return self.qemu_twin + ("-smap" if smap else "")

    def as_record(self) -> dict:
        """What a run's key holds (the values gem5 is given, not the
        reasons: rewording one moves no key)."""
        return {"name": self.name, "part": self.part, "x86isa": self.x86isa()}

    def provenance(self) -> dict:
        """What a run's record says of it: the values and, by name, what
        the guest got and what it did not."""
        return dict(self.as_record(), given=list(self.given()),
                    withheld=sorted(self.withheld()))

    def disagreements(self, flags, smap: bool, cleared=()) -> list:
        """Where a booted guest's /proc/cpuinfo flags say it did not get
        this CPU (empty: it did). `cleared`: flags the kernel variant hides
        on purpose (nosmap)."""
        flags, out = set(flags), []
        for f in CHECKED:
            want = (f in self.given() or (smap and f in AXIS)) and f not in cleared
            if want != (f in flags):
                out.append(f"{f} {'missing' if want else 'present'}")
        if self.vendor == "GenuineIntel" and self.family == 6 and "rep_good" not in flags:
            out.append("rep_good missing (Linux turned fast strings off: it read "
                       "IA32_MISC_ENABLE, MSR 0x1a0, as 0: a gem5 without the series' patch 0029)")
        return out


def names() -> list:
    """The descriptions in the folder, by file stem."""
    return sorted(p.stem for p in CPUID_DIR.glob("*.toml"))


KEYS = ("part", "vendor", "brand", "family", "model", "stepping", "clflush_line", "registers",
        "l2_cache", "address_sizes", "qemu_twin", "held_back")


def load(name: str) -> Cpuid:
    """A description, checked whole: one line for anything off."""
    inputs.name_in(name, names(), "CPUID description")
    path = CPUID_DIR / f"{name}.toml"
    data = tomlfile.read(path, "CPUID description")
    inputs.known_keys(data, KEYS, str(path))
    inputs.required_keys(data, KEYS[:-1], str(path), "a CPUID description sets "
                         + ", ".join(KEYS[:-1]))
    for key in ("part", "vendor", "brand", "qemu_twin"):
        inputs.text(data[key], f"{path}: {key}")
    if len(data["vendor"]) != 12 or not data["vendor"].isascii():
        raise UserError(f"{path}: vendor must be 12 ASCII characters (gem5's CPUID takes no "
                        f"other), got {data['vendor']!r}")
    if len(data["brand"]) > 47 or not data["brand"].isascii() or "," in data["brand"]:
        raise UserError(f"{path}: brand must be at most 47 ASCII characters without a comma "
                        f"(leaves 8000_0002h-4h, and QEMU's model-id), got {data['brand']!r}")
    for key, most in (("family", 0xFF + 0xF), ("model", 0xFF), ("stepping", 0xF),
                      ("clflush_line", 8 * 0xFF), ("l2_cache", 2**32 - 1),
                      ("address_sizes", 0xFFFF)):
        inputs.number(data[key], f"{path}: {key}", integer=True, minimum=0, maximum=most)
    if data["model"] > 0xF and data["family"] not in (6, 0xF):
        raise UserError(f"{path}: model {data['model']:#x} needs family 6 or 15 (the SDM's "
                        f"extended model field)")
    regs = inputs.known_keys(inputs.table(data["registers"], str(path), "registers"),
                             REGISTERS, str(path), "registers")
    inputs.required_keys(regs, REGISTERS, f"{path}: [registers]",
                         "a description states " + ", ".join(REGISTERS))
    for reg, value in regs.items():
        inputs.number(value, f"{path}: [registers] {reg}", integer=True, minimum=0,
                      maximum=2**32 - 1)
        named = sum(1 << bit for f, (r, bit) in FEATURES.items() if r == reg)
        if value & ~named:
            raise UserError(f"{path}: [registers] {reg} sets bits {value & ~named:#x} this "
                            f"module does not name (lab/cpuid.py FEATURES): name them, and "
                            f"give or withhold each")
    held = inputs.table(data.get("held_back", {}), str(path), "held_back")
    cpuid = Cpuid(name, data["part"], data["vendor"], data["brand"], data["family"],
                  data["model"], data["stepping"], data["clflush_line"], dict(regs),
                  data["l2_cache"], data["address_sizes"], data["qemu_twin"], dict(held))
    has = set(cpuid.part_features())
    for f, why in held.items():
        if f not in has or f not in GIVEN or not isinstance(why, str) or not why.strip():
            raise UserError(f"{path}: held_back {f}: hold back a feature the part has and gem5 "
                            f"would be given, with why (a non-empty string)")
    undecided = sorted(has - set(GIVEN) - set(WITHHELD) - set(AXIS))
    if undecided:
        raise UserError(f"{path}: the part has {', '.join(undecided)}, which lab/cpuid.py "
                        f"neither gives nor withholds: decide each (GIVEN or WITHHELD)")
    return cpuid
