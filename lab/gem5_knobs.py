"""The gem5 CPU settings a preset, a sweep's cpu.* axis or a run flag may
set, each declared once, as gem5's src/cpu/o3/BaseO3CPU.py declares a
Param: its name, type and range or choices, default, whether it needs our
gem5 patch series, the SimObject attributes it sets, and its help.

Everything else derives from this table: which keys a preset file takes
(lab/cpu_presets.py), the sweep's cpu.<name> axes (configs/gem5/
sweep_axes.py), the run command's gem5 flags (configs/gem5/run_flags.py,
choice knobs only: counts are swept), what a preset's record holds and
how calibrate writes a preset back, what the gem5 side sets
(simobject_settings -> the spec's "set", applied by fs_roi.py), and what
marks a gem5 binary as built with the series (configs/gem5/locate.py).
Adding a knob is one row here (docs/guide/extending.md).

It lives in lab/, below both stages, with the preset reader: the run
stage reads it to run a point and the scorecard (analysis/judging.py)
to compare a run's preset with today's, and analysis imports nothing of
configs.

Two kinds:
  a count: an O3 Param.Unsigned of the same name, set on the detailed
      core where a preset or an override names it (absent, gem5's own
      default stands: the preset's record holds it under "params");
  a choice: one of a few values, the first its default; each other value
      sets the SimObject attributes `sets` gives it ("isa": every ISA
      object of every core, the warming core's too, since gem5 shares
      decoded micro-ops; "o3": the detailed O3 core, by dotted path;
      "o3_new": an O3 attribute given a new SimObject of that class, made
      before the "o3" attributes are set, which may reach into it).
One choice sets nothing itself: cpuid, the CPUID the guest sees, whose
X86ISA parameters are the boot's as much as the ROI's (Linux patches its
alternatives at boot), so configs/gem5/spec.py sets them from the boot
group (lab/cpuid.py).
"""

from dataclasses import dataclass, field

from lab import arches, inputs
from lab import cpuid as cpuid_mod
from lab.errors import UserError

CACHE_LINE = 64
UNSIGNED_MAX = 2**32 - 1
UNSIGNED_WHY = "gem5's Param.Unsigned, 32 bits"
# The most units of one kind gem5's O3 could use, and its widest stage:
# its compiled MaxWidth (src/cpu/o3/limits.hh, 12).
MAX_WIDTH = 12
WIDTH_WHY = "O3's compiled MaxWidth, src/cpu/o3/limits.hh"


@dataclass(frozen=True)
class Knob:
    name: str
    help: str
    choices: tuple = ()        # a choice knob's values, its default first; () for a count
    least: int = 1             # a count's least value (0 where 0 means none)
    most: int = UNSIGNED_MAX   # a count's greatest
    why_most: str = UNSIGNED_WHY
    series: bool = False       # our series has it: a point that sets it needs the series
    #                            (which models x86 alone: other arches keep gem5's)
    sets: dict = field(default_factory=dict)  # choice -> {scope: {attribute: value}};
    #                            a count: {scope: {attribute: value}} added where it is non-zero
    delay: bool = False        # a stage-to-stage delay, within backComSize's past
    what: str = ""             # a series choice's subject, for the x86-only message
    arch: str = ""             # the one arch whose gem5 has what it sets ("": every arch's)
    default: object = None     # a count's: its Param's default in BaseO3CPU.py (or our
    #                            series'), what runs where nothing sets it (None: the ISA's);
    #                            a choice's: its first value, always

    def __post_init__(self):
        if self.choices:  # a choice's default is its first value, never said twice
            if self.default is not None:
                raise ValueError(f"{self.name}: a choice's default is its first value")
            object.__setattr__(self, "default", self.choices[0])

    def needs_series(self, value) -> bool:
        """Whether `value` needs our series: a series count set at all (a
        gem5 without the series lacks the parameter), a series choice off
        its default."""
        return self.series and (not self.choices or value != self.default)

    @property
    def named(self) -> tuple:
        """The choices a user writes ("" is gem5's default, unnamed)."""
        return tuple(c for c in self.choices if c)

    def check(self, value, arch: str, where: str):
        """`value` for this knob on `arch`, or one line naming what is wrong."""
        if self.choices:
            if value != self.default:
                inputs.one_of(value, self.named, f"{where}: {self.name}")
        else:
            inputs.number(value, where, integer=True, minimum=self.least, maximum=UNSIGNED_MAX,
                          why_maximum=UNSIGNED_WHY)
            if self.most < UNSIGNED_MAX:
                inputs.number(value, where, integer=True, maximum=self.most,
                              why_maximum=self.why_most)
            if self.name == "fetchBufferSize" and (value > CACHE_LINE or CACHE_LINE % value):
                raise UserError(f"{where} must divide the {CACHE_LINE} B cache line (gem5's "
                                f"fetch buffer is at most one line), got {value!r}")
        if (self.needs_series(value) and arch and not arches.get(arch).gem5_series
                and self.arch != arch):
            raise UserError(f"{where}: {self.name} {value} is x86-only "
                            f"({self.what or 'our gem5 series'}); an {arch} CPU keeps gem5's")
        if self.arch and value != self.default and arch and arch != self.arch:
            raise UserError(f"{where}: {self.name} {value} is {self.arch}'s ({self.what}); an "
                            f"{arch} CPU keeps gem5's")
        return value

    def settings(self, value) -> dict:
        """{scope: {attribute: value}} this knob at `value` sets on the gem5 side."""
        if self.choices:
            return self.sets.get(value, {})
        out = {"o3": {self.name: value}}
        for scope, attrs in (self.sets if value else {}).items():
            out[scope] = dict(out.get(scope, {}), **attrs)
        return out


# What rep_startup = "decode" sets repStartupDecodeCycles and
# repCompareStartupDecodeCycles to: the preset's RepStringStartup and
# RepCompareStartup latencies, which CpuPreset.settings puts in their place.
REP_STARTUP_CYCLES = "<the preset's RepStringStartup>"
REP_COMPARE_STARTUP_CYCLES = "<the preset's RepCompareStartup>"


def _width(name, help_text, default=8):
    return Knob(name, help_text, most=MAX_WIDTH, why_most=WIDTH_WHY, default=default)


def _delay(name, help_text, default=1):
    return Knob(name, help_text, delay=True, default=default)


# Branch predictors of gem5 v24 (src/cpu/pred/BranchPredictor.py) a preset
# may name; absent, O3 keeps its default (TournamentBP).
BRANCH_PREDICTORS = ("LocalBP", "TournamentBP", "BiModeBP", "LTAGE", "TAGE_SC_L_64KB",
                     "MultiperspectivePerceptron64KB")

# O3 counts: gem5 v24's src/cpu/o3/BaseO3CPU.py, and our series' (series=True),
# each with its Param's default (the widths' 8, the delays' 1 unless said).
KNOBS = (
    _width("fetchWidth", "instructions fetched per cycle"),
    Knob("fetchBufferSize", "bytes of the fetch buffer (divides the 64 B line)", default=64),
    Knob("fetchQueueSize", "micro-ops in the fetch queue", default=32),
    _width("decodeWidth", "instructions decoded per cycle"),
    _width("renameWidth", "micro-ops renamed per cycle"),
    _width("dispatchWidth", "micro-ops dispatched per cycle"),
    _width("issueWidth", "micro-ops issued per cycle"),
    _width("wbWidth", "micro-ops written back per cycle"),
    _width("commitWidth", "micro-ops committed per cycle"),
    Knob("squashWidth", "micro-ops squashed per cycle", default=8),
    Knob("numROBEntries", "reorder buffer entries", default=192),
    Knob("numIQEntries", "instruction queue entries", default=64),
    Knob("LQEntries", "load queue entries", default=32),
    Knob("SQEntries", "store queue entries", default=32),
    # How many stores the LSQ writes back to the L1D a cycle (gem5 v24's
    # default 200: no limit); an Intel core of the seeds' era has one
    # store port (Skylake: port 4).
    Knob("cacheStorePorts", "stores written back to the L1D per cycle (gem5's 200: no limit)",
         default=200),
    # Under TSO (x86), how many stores the LSQ may have written back and
    # not yet completed at once (our series, patch 0037): gem5 v24 writes a
    # store back only once the one before has completed (1), about five
    # cycles a store on a 4-cycle L1D; 0 leaves the limit to cacheStorePorts.
    Knob("tsoStoresInFlight", "under TSO, stores written back and not yet completed at once "
         "(1: gem5's, each once the one before completed; 0: as many as cacheStorePorts "
         "sends; patch 0037)", least=0, series=True, default=1),
    Knob("numPhysIntRegs", "physical integer registers", default=256),
    Knob("numPhysFloatRegs", "physical floating-point registers", default=256),
    Knob("numPhysVecRegs", "physical vector registers", default=256),
    # The ISA's: X86O3CPU's 5 per integer register (src/arch/x86/X86CPU.py),
    # BaseO3CPU's 0 elsewhere.
    Knob("numPhysCCRegs", "physical condition-code registers"),
    Knob("backComSize", "cycles of the past O3's backward time buffers keep", default=5),
    Knob("forwardComSize", "cycles of the past O3's forward time buffers keep", default=5),
    # stage-to-stage delays (cycles): the pipeline's depth
    _delay("fetchToDecodeDelay", "cycles from fetch to decode"),
    _delay("decodeToRenameDelay", "cycles from decode to rename"),
    _delay("renameToIEWDelay", "cycles from rename to issue/execute/writeback", default=2),
    _delay("iewToCommitDelay", "cycles from issue/execute/writeback to commit"),
    _delay("issueToExecuteDelay", "cycles from issue to execute"),
    # the micro-op queue between decode and rename (our series; 0: none)
    Knob("uopQueueSize", "micro-ops the queue between decode and rename holds (0: none)",
         least=0, series=True, default=0),
    # fetch ahead along the predicted path (our series, patches 0022-0023;
    # 0: none): lines read ahead, and lines the walk predicts a cycle.
    # Patch 0023's walk finds a line's branches in the BTB: every taken
    # branch must enter it, returns and indirect ones too (gem5 v24 enters
    # only direct ones unless told; upstream's decoupled front end sets the same).
    Knob("fetchAheadLines", "I-cache lines fetch reads ahead on the predicted path (0: none)",
         least=0, series=True, sets={"o3": {"branchPred.requiresBTBHit": True}}, default=0),
    Knob("fetchAheadLinesPerCycle", "lines the fetch-ahead walk predicts a cycle",
         series=True, default=1),
    # The walk's conditional branches (patch 0035; 0: patch 0023's walk,
    # which takes every branch the BTB holds): a table of this many
    # entries of the direction fetch's predictor last gave each (and the
    # way a mispredicted one went), which the walk follows; a taken jump
    # forward inside its line keeps the walk there, and an unconditional
    # one back inside it stops the walk until fetch restarts it.
    Knob("fetchAheadDirections", "entries of the fetch-ahead walk's table of the directions "
         "fetch last predicted (0: none, every branch the BTB holds taken; patch 0035)",
         least=0, series=True, default=0),
    # Choices. How SYSCALL, SYSRET and SWAPGS run (x86, patches 0008-0009):
    # "serialize", gem5 v24's way (each of their segment, RFLAGS and MSR
    # micro-ops drains O3's pipeline), or "sdm", as the SDM describes them
    # (not serializing: they run ahead, the last state write of SYSCALL
    # and SYSRET squashes what follows, and readers of those registers
    # wait for the writes in O3's rename).
    Knob("kernel_entry", "how SYSCALL, SYSRET and SWAPGS run: serialize (gem5's drains) or "
         "sdm (as the SDM describes them; patches 0008-0009)", ("serialize", "sdm"),
         series=True, what="SYSCALL, SYSRET, SWAPGS",
         sets={"sdm": {"isa": {"serialize_kernel_entry": False},
                       "o3": {"miscRegReadersWait": True}}}),
    # How STAC and CLAC run (x86, patches 0018-0021): "serialize", each
    # drains O3's pipeline, so that no younger access is checked against
    # the old RFLAGS.AC; or "commit", they run ahead as any register
    # write, and O3's data TLB settles SMAP's AC check at commit (an access
    # behind an in-flight STAC does not fault, one behind an in-flight
    # CLAC does); readers of RFLAGS wait for its writes in rename. The
    # warming core translates in program order and keeps the check there.
    Knob("stac_clac", "how STAC and CLAC run: serialize (each drains the pipeline) or commit "
         "(they run ahead; SMAP settled at commit; patches 0018-0021)", ("serialize", "commit"),
         series=True, what="SMAP's STAC and CLAC",
         sets={"commit": {"isa": {"serialize_stac_clac": False},
                          "o3": {"miscRegReadersWait": True, "mmu.dtb.smap_at_commit": True}}}),
    # How PUSHF, POPF, CLI and STI run (x86, patch 0031): "serialize", gem5
    # v24's way (each write of RFLAGS' system bits drains O3's pipeline);
    # or "sdm", as the SDM has them (Vol. 3A, "Serializing Instructions"
    # lists WRMSR, IRET, CPUID, MOV to CR/DR, INVLPG, LGDT/LIDT/LLDT/LTR,
    # WBINVD, INVD, not these): POPF, CLI and STI write RFLAGS in order
    # like any register; a reader of RFLAGS behind one in flight (PUSHF,
    # CLI's and STI's own read, STAC/CLAC, SYSCALL's save) executes at the
    # ROB head, when it has committed, while younger instructions go on;
    # SMAP's AC check is settled at commit, since a POPF may set AC.
    Knob("sys_flags", "how PUSHF, POPF, CLI and STI run: serialize (gem5's drains) or sdm "
         "(not serializing, as the SDM has them; readers of RFLAGS ordered at the ROB head; "
         "patch 0031)", ("serialize", "sdm"), series=True, what="PUSHF, POPF, CLI, STI",
         sets={"sdm": {"isa": {"serialize_sys_flags": False},
                       "o3": {"miscRegReadersWait": True, "miscRegReadersAtHead": True,
                              "mmu.dtb.smap_at_commit": True}}}),
    # How LFENCE runs (x86, patch 0032): "serialize", gem5 v24's (it
    # serializes after itself: nothing younger renames until it commits);
    # or "sdm", as the SDM has it (Vol. 2A, LFENCE: it "does not execute
    # until all prior instructions have completed locally, and no later
    # instruction begins execution until LFENCE completes"): it executes at
    # the ROB head without waiting for stores, and younger instructions are
    # renamed meanwhile but not issued before it.
    Knob("lfence", "how LFENCE runs: serialize (gem5's drain) or sdm (younger instructions "
         "renamed but not issued until it executes, as the SDM has it; patch 0032)",
         ("serialize", "sdm"), series=True, what="LFENCE",
         sets={"sdm": {"isa": {"serialize_lfence": False}}}),
    # Which readers kernel entry's writes hold (x86, patch 0033): "all",
    # patches 0008-0009's (SWAPGS's GS base write sets the effective base
    # too, so every misc register reader behind it waits in rename until it
    # commits); or "reached": a write of one register holds only the
    # readers of the registers it reaches (a segment base: itself and its
    # effective base; a selector, a limit, KERNEL_GS_BASE: itself), where
    # RFLAGS' readers wait. The SDM lists none of SWAPGS, SYSCALL and
    # SYSRET as serializing (Vol. 3A, "Serializing Instructions"), and
    # Intel's SWAPGS deep dive (CVE-2019-1125) has a SWAPGS execute
    # speculatively with the accesses after it.
    Knob("entry_readers", "which misc register readers SWAPGS, SYSCALL and SYSRET's writes "
         "hold: all (every reader, in rename) or reached (the readers of what each write "
         "reaches; patch 0033)", ("all", "reached"), series=True, what="kernel entry's readers",
         sets={"reached": {"o3": {"miscRegReadersWait": True, "miscRegWriteReach": True}}}),
    # How x86 instructions become micro-ops (our series, X86ISA.fused_uops
    # and O3's macroFusion): "gem5", v24's microcode as it is; or "fused",
    # as Intel's cores count them in the fused domain (one micro-op for a
    # jump, an operation with an immediate, a RIP-relative access; a load
    # with its operation, a store of an immediate and the stack engine's
    # RSP updates in one slot; a compare or test fused with the branch
    # after it). A preset's macro_fusible narrows the pairs.
    Knob("uops", "how instructions become micro-ops: gem5 (v24's microcode) or fused (as "
         "Intel's fused domain counts them; our series)", ("gem5", "fused"),
         series=True, what="our series' x86 decoding",
         sets={"fused": {"isa": {"fused_uops": True}, "o3": {"macroFusion": True}}}),
    # How rep movs and rep stos run (x86, patch 0030, X86ISA.fast_strings):
    # "loop", gem5 v24's microcode, one element a loop iteration (6
    # micro-ops an element for movs, 4 for stos); or "chunked", fast
    # strings as Intel's cores run them once going (SDM Vol. 3A,
    # "Fast-String Operation and Out-of-Order Stores"; Optimization
    # Reference Manual, "Enhanced REP MOVSB and STOSB operation (ERMSB)"):
    # a rep movs or stos with 64-bit addressing, DF clear and (movs) source
    # and destination 64 bytes apart or more moves 64-byte lines as 16-byte
    # micro-ops, one count and pointer update and one branch a line, then
    # 8-byte moves, then gem5's elements; anything else keeps the loop. The
    # result and a fault's place and registers are the loop's; the start-up
    # stays the preset's RepStringStartup latency.
    Knob("fast_strings", "how rep movs and rep stos run: loop (gem5's, an element a loop "
         "iteration) or chunked (fast strings: 64-byte lines as 16-byte micro-ops; patch 0030)",
         ("loop", "chunked"), series=True, what="x86 fast strings",
         sets={"chunked": {"isa": {"fast_strings": True}}}),
    # Where a rep string's start-up is paid (x86, patch 0041,
    # BaseO3CPU.repStartupDecodeCycles): "execute", patch 0006's, as the
    # latency of its repstart micro-op, which out-of-order execution hides
    # (the string's micro-branch is predicted and its loads and stores do
    # not read the repstart's result, so only its retirement waits); or
    # "decode", as micro-code: the micro-ops after the repstart wait that
    # many cycles (the preset's RepStringStartup; a compare or scan
    # string's, RepCompareStartup, patch 0043) before they reach decode,
    # and the repstart executes in one (lab/cpu_presets.py,
    # CpuPreset.settings and pool_latency: one figure, paid in one place).
    Knob("rep_startup", "where a rep string's start-up (RepStringStartup) is paid: execute (the "
         "repstart micro-op's latency, which out-of-order execution hides) or decode (what "
         "follows waits that many cycles before decode, as micro-code holds the front end; "
         "patch 0041)",
         ("execute", "decode"), series=True, what="a rep string's start-up before decode",
         sets={"decode": {"o3": {"repStartupDecodeCycles": REP_STARTUP_CYCLES,
                                 "repCompareStartupDecodeCycles": REP_COMPARE_STARTUP_CYCLES}}}),
    # How a branch inside a macro-op's microcode is predicted (x86, patch
    # 0036, BranchPredictor.microBranchKeys): "shared", gem5 v24's, under
    # the macro-op's address, so a fast string's several micro-branches
    # share one BTB entry and one direction entry and overwrite each
    # other's outcomes; or "own", each under a key of its own (the
    # address with its micro PC hashed in).
    Knob("micro_branches", "how branches inside a macro-op's microcode are predicted: shared "
         "(gem5's, under the macro-op's address) or own (each under a key of its own; patch "
         "0036)", ("shared", "own"), series=True, what="micro-branch prediction keys",
         sets={"own": {"o3": {"branchPred.microBranchKeys": True}}}),
    # How a 1- or 2-byte load into a micro-code temporary writes it (x86,
    # patch 0038, X86ISA.whole_temp_loads): "merge", gem5 v24's, into the
    # temporary's old value, so the load waits for the last micro-op that
    # wrote it (MOVZX r, m8 and CMP r8, m8 both load into t1: each byte
    # load waits for the one before); or "whole", zero-extended as a 4- or
    # 8-byte load is, with no read of the old value.
    Knob("temp_loads", "how a byte or word load into a micro-code temporary writes it: merge "
         "(gem5's, waiting for the temporary's last writer) or whole (zero-extended; patch "
         "0038)", ("merge", "whole"), series=True, what="micro-code temporary loads",
         sets={"whole": {"isa": {"whole_temp_loads": True}}}),
    # How the branch target buffer is organised (patch 0039,
    # SimpleBTB.associativity): "direct", gem5 v24's direct-mapped table,
    # where two branches whose index bits agree evict each other; or
    # "4-way", sets of four ways with the least recently used replaced (the
    # same 4,096 entries). Set on the detailed core's predictor after a
    # preset's own predictor replaces it ("o3" after "o3_new").
    Knob("btb", "how the BTB is organised: direct (gem5's direct-mapped table) or 4-way "
         "(sets of four ways, least recently used replaced; patch 0039)", ("direct", "4-way"),
         series=True, what="a set-associative BTB",
         sets={"4-way": {"o3": {"branchPred.btb.associativity": 4}}}),
    # How STP of two X registers is cracked on Arm (patch 0040,
    # ArmISA.whole_store_pairs): "split", gem5 v24's two 8-byte store
    # micro-ops (where LDP is one 16-byte load), so a store pair costs the
    # store pipes two stores; or "whole", one 16-byte store micro-op, as a
    # core that issues STP as one store does (Neoverse V2).
    Knob("store_pairs", "how STP of two X registers is stored on Arm: split (gem5's two 8-byte "
         "store micro-ops) or whole (one 16-byte micro-op; patch 0040)", ("split", "whole"),
         series=True, arch="arm64", what="a store pair as one micro-op",
         sets={"whole": {"isa": {"whole_store_pairs": True}}}),
    # How LDP and STP with an immediate offset find their address on Arm
    # (patch 0042, ArmISA.pair_offset_in_access): "add", gem5 v24's ADD
    # micro-op of base and offset before the access, in the offset form
    # ([Xn, #imm], #0 included) and the pre-indexed one; or "access", the
    # access micro-ops adding the offset themselves, as a single LDR or STR
    # does and as a core whose pairs issue as their access alone does
    # (Neoverse V2: no integer micro-op beside an offset pair's).
    Knob("pair_offsets", "how LDP/STP with an immediate offset address memory on Arm: add (gem5's "
         "ADD micro-op first) or access (the access adds it; patch 0042)", ("add", "access"),
         series=True, arch="arm64", what="a pair's offset added by its access",
         sets={"access": {"isa": {"pair_offset_in_access": True}}}),
    # The O3 branch predictor ("": gem5's default, TournamentBP).
    Knob("branch_predictor", "O3's branch predictor, one of " + ", ".join(BRANCH_PREDICTORS)
         + " (a preset that names none keeps gem5's)", ("",) + BRANCH_PREDICTORS,
         sets={bp: {"o3_new": {"branchPred": bp}} for bp in BRANCH_PREDICTORS}),
    # The CPUID the guest sees (x86, issues 53 and 62): "gem5", gem5 v24's
    # own X86ISA defaults, or a hardware part's, described in
    # configs/gem5-presets/cpuid (lab/cpuid.py: the part's values with their
    # sources, less what gem5 cannot run). Set on the boot and the ROI alike,
    # from the boot group (configs/gem5/spec.py), so it sets nothing here.
    Knob("cpuid", "the CPUID the guest sees: gem5 (gem5's own) or a part's, one of "
         + ", ".join(cpuid_mod.names()) + " (configs/gem5-presets/cpuid)",
         (cpuid_mod.GEM5,) + tuple(cpuid_mod.names()), arch="x86_64",
         what="X86ISA's CPUID parameters"),
)

BY_NAME = {k.name: k for k in KNOBS}
COUNTS = tuple(k.name for k in KNOBS if not k.choices)    # a preset's [params]
CHOICES = tuple(k.name for k in KNOBS if k.choices)       # a preset's top-level keys
# The order the gem5 side applies scopes in (configs/gem5/simobject_set.py):
# a new SimObject before the attributes, so that an attribute of a
# replaced child (branchPred.requiresBTBHit) lands on its replacement (a
# preset's LTAGE). Until 2026-11-29 the new object came last and the flag
# was lost (issue 53's audit).
SCOPES = ("isa", "o3_new", "o3")

# Functional-unit kinds of gem5 v24's DefaultFUPool (src/cpu/o3/FuncUnitConfig.py)
# whose count a preset may set ([fu_count]); a sweep's override of one
# kind's count: cpu."fu_count.WritePort" = [1, 4].
FU_KINDS = {"IntALU", "IntMultDiv", "FP_ALU", "FP_MultDiv", "ReadPort", "SIMD_Unit",
            "PredALU", "WritePort", "RdWrPort", "IprPort"}
FU_COUNT_PREFIX = "fu_count."


def get(name: str, where: str) -> Knob:
    """The knob `name`, or one line listing what may be set."""
    if name not in BY_NAME:
        raise UserError(f"{where}: unknown O3 parameter {name!r} (valid: "
                        f"{', '.join(BY_NAME)}, or {FU_COUNT_PREFIX}<kind>)")
    return BY_NAME[name]


def check_fu_count(kind: str, value, where: str) -> int:
    """Units of one kind of functional unit in the O3 FU pool."""
    if kind not in FU_KINDS:
        raise UserError(f"{where}: {kind!r} is not one of {', '.join(sorted(FU_KINDS))}")
    return inputs.number(value, f"{where} (units)", integer=True, minimum=0,
                         maximum=MAX_WIDTH, why_maximum="O3's MaxWidth")


def check_delays(params: dict, where: str) -> None:
    """Each stage delay within the time buffers' past (backComSize)."""
    past = params.get("backComSize", BY_NAME["backComSize"].default)
    for k in KNOBS:
        if k.delay and k.name in params and params[k.name] > past:
            raise UserError(f"{where}: {k.name} {params[k.name]} exceeds backComSize {past} "
                            f"(O3's time buffers keep {past} cycles of the past): raise "
                            f"backComSize or lower {k.name}")


def needs_series(values: dict) -> str:
    """The first knob of `values` ({name: value}) that needs our series
    off its default ("" for none)."""
    for name, value in values.items():
        k = BY_NAME.get(name)
        if k and k.needs_series(value):
            return f"{name} {value}" if k.choices else name
    return ""


def series_marks(arch: str = "x86_64") -> tuple:
    """What a gem5 built with our series has compiled in for its knobs on
    `arch`: every attribute a series knob it has sets (the gem5 side sets
    them, so the binary must know them). An arch has the knobs that name
    it, and, where the series models it whole (x86), those that name no
    arch."""
    out = []
    for k in KNOBS:
        if not k.series or not (k.arch == arch or (not k.arch and arches.get(arch).gem5_series)):
            continue
        attrs = [k.name] if not k.choices else []
        for scopes in ([k.sets] if not k.choices else k.sets.values()):
            attrs += [a.split(".")[-1] for attrs_ in scopes.values() for a in attrs_]
        out += [a.encode() for a in attrs if a.encode() not in out]
    return tuple(out)

