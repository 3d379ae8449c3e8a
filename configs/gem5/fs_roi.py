# The gem5 side of uaccess-lab: run by gem5.opt, never imported by the host.
#
#   gem5.opt --outdir=OUT configs/gem5/fs_roi.py SPEC.json
#
# A run is two gem5 processes, both described by a JSON spec that
# configs/gem5/spec.py writes:
#   mode "boot": atomic CPU; boot Linux from the ext2 disk, run until the
#       workload's ROI begins (m5 workbegin), save a checkpoint, stop.
#   mode "roi":  the same board with an O3 preset; restore that checkpoint,
#       reset stats, simulate exactly the ROI (stats dumped at m5 workend),
#       then let the guest finish (its result line, then m5 exit).
# One boot checkpoint serves every CPU preset of the same kernel, disk and
# kernel command line. Its version, in every gem5 key, is
# configs/gem5/spec.py's FS_ROI_VERSION: bump it there when a change here
# would change a result (tests/test_version_guards.py fails on a change
# here that leaves it). Built on gem5's standard library (X86Board,
# ArmBoard); the board is a composition, so the CPU is one argument.
#
# With "warming": "functional" (the boot-once scheme) both processes use
# one switchable processor, an atomic core and the O3 preset's core:
#   mode "boot": boot on the atomic core until init's m5 checkpoint, which
#       it reaches before any job exists (uaccess.job=readfile); save it.
#   mode "roi":  restore it, hand the job over as the board's readfile
#       (init reads it with m5 readfile), run the job's set-up and warm
#       passes on the atomic core through the same caches (functional
#       warming: classic caches update their state on atomic accesses),
#       and at m5 workbegin switch to O3 and reset the statistics, so the
#       ROI starts with warm caches; at m5 workend dump them (stats.txt,
#       and gem5's JSON statistics as stats.json).

import json
import sys
import time
from pathlib import Path

import m5
import m5.debug
from gem5.components.cachehierarchies.classic.private_l1_private_l2_cache_hierarchy import (
    PrivateL1PrivateL2CacheHierarchy,
)
from gem5.components.memory.single_channel import SingleChannelDDR3_1600
from gem5.components.processors.cpu_types import CPUTypes
from gem5.components.processors.simple_processor import SimpleProcessor
from gem5.components.boards.mem_mode import MemMode
from gem5.components.processors.simple_core import SimpleCore
from gem5.components.processors.switchable_processor import SwitchableProcessor
from gem5.isas import ISA
from gem5.resources.resource import (
    BootloaderResource,
    DiskImageResource,
    KernelResource,
)
from gem5.simulate.exit_event import ExitEvent
from gem5.simulate.simulator import Simulator

# The gem5 side's own modules beside this script (gem5 runs it by its path).
sys.path.insert(0, str(Path(__file__).resolve().parent))
from simobject_set import on_isa, on_o3  # noqa: E402

ISAS = {"x86_64": ISA.X86, "arm64": ISA.ARM}
CPUS = {"atomic": CPUTypes.ATOMIC, "timing": CPUTypes.TIMING, "minor": CPUTypes.MINOR,
        "o3": CPUTypes.O3}


def say(what: str) -> None:
    # One marker line per fact, for configs/gem5/backend.py to read.
    print(f"@@UACCESS-GEM5 {what}", flush=True)


def board_class(arch: str):
    # Imported per arch: a gem5 built for one ISA (build/X86, build/ARM)
    # lacks the other ISA's SimObjects, so importing both boards fails.
    if arch == "x86_64":
        from gem5.components.boards.x86_board import X86Board
        return X86Board
    from gem5.components.boards.arm_board import ArmBoard
    return ArmBoard


def leave_timer_mem_out_of_dtb() -> None:
    """The board's device tree without gem5's memory-mapped timer, so the
    kernel's clock is the architected counter (lab/arches.py,
    gem5_timer_mem_in_dtb, says why). The device stays on the platform;
    only its node goes, for the one board this process builds."""
    from m5.objects import GenericTimerMem

    def no_node(self, state):
        return iter(())
    GenericTimerMem.generateDeviceTree = no_node


def set_fu_latency(cpu, latency: dict) -> None:
    """Give each named op class its latency in the O3 FU pool, then say
    every op class's effective latency that the spec names or that STAC/
    CLAC use, so the result records what the run really had."""
    found = {}
    for fu in cpu.fuPool.FUList:
        for op in fu.opList:
            name = str(op.opClass)
            if name in latency:
                op.opLat = latency[name]
            found[name] = int(op.opLat.value if hasattr(op.opLat, "value") else op.opLat)
    # STAC/CLAC's op class, and the rep start-ups' where gem5 has them.
    names = sorted(set(latency) | {"IprAccess"}
                   | ({"RepStringStartup", "RepCompareStartup"} & set(found)))
    for name in names:
        if name not in found:
            say(f"error op class {name} is in no functional unit of the O3 FU pool")
            sys.exit(1)
    say("fu-latency " + " ".join(f"{n}={found[n]}" for n in names))


def set_fu_count(cpu, count: dict) -> None:
    """Give each named kind of functional unit (a FUDesc class of the O3
    FU pool) its number of units, then say every kind's count."""
    # An ISA's pool may name its own kind after the generic one (x86's
    # DefaultX86FUPool has X86IntMultDiv where DefaultFUPool has IntMultDiv).
    kinds = {}
    for fu in cpu.fuPool.FUList:
        name = type(fu).__name__
        for prefix in ("X86", "Arm"):
            name = name[len(prefix):] if name.startswith(prefix) else name
        kinds[name] = fu
    for name, n in count.items():
        if name not in kinds:
            say(f"error functional unit {name} is not in the O3 FU pool")
            sys.exit(1)
        kinds[name].count = n
    if count:
        say("fu-count " + " ".join(f"{n}={getattr(kinds[n].count, 'value', kinds[n].count)}"
                                   for n in sorted(kinds)))


def warming(spec: dict) -> bool:
    return spec.get("warming", "none") == "functional"


class AtomicThenDetailed(SwitchableProcessor):
    """One core: gem5's atomic CPU until switch() (functional warming), then
    the spec's detailed type. Built as the stdlib's SimpleSwitchableProcessor
    builds one core (the same "start" and "switch" core lists, so the same
    object names in config.ini and stats.txt, and the atomic memory mode to
    begin), but it says which core is which type: that class keeps them in
    private attributes only."""

    def __init__(self, detailed: str, isa) -> None:
        self._typed = [(SimpleCore(cpu_type=CPUTypes.ATOMIC, core_id=0, isa=isa), "atomic"),
                       (SimpleCore(cpu_type=CPUS[detailed], core_id=0, isa=isa), detailed)]
        super().__init__(switchable_cores={"start": [self._typed[0][0]],
                                           "switch": [self._typed[1][0]]},
                         starting_cores="start")

    def typed_cores(self) -> list:
        """[(core, its type)], the warming core first."""
        return list(self._typed)

    def incorporate_processor(self, board) -> None:
        super().incorporate_processor(board)
        # The atomic core's mode (classic caches here: no Ruby, whose atomic
        # mode the stdlib turns into atomic_noncaching).
        board.set_mem_mode(MemMode.ATOMIC)

    def switch(self) -> None:
        """To the detailed core (once: the ROI never switches back)."""
        self.switch_to_processor("switch")


def make_processor(spec: dict):
    """(processor, [(core, its type)]): a switchable atomic -> detailed
    processor when warming, else one core of the spec's type."""
    isa = ISAS[spec["arch"]]
    if warming(spec):
        processor = AtomicThenDetailed(spec["cpu"]["type"], isa)
        return processor, processor.typed_cores()
    processor = SimpleProcessor(cpu_type=CPUS[spec["cpu"]["type"]], num_cores=1, isa=isa)
    return processor, [(c, spec["cpu"]["type"]) for c in processor.get_cores()]


def new_simobject(kind: str):
    """A new SimObject of gem5's class `kind` (a preset's branch predictor)."""
    import m5.objects
    return getattr(m5.objects, kind)()


def make_board(spec: dict):
    # What to set is the spec's "set" (lab/gem5_knobs.py's table, made
    # into attributes by the host), by simobject_set.py: "isa" on every
    # ISA object of every core, then on the detailed O3 core "o3_new" (an
    # O3 attribute given a new SimObject of the named class: a preset's
    # branch predictor) before "o3", so the attributes land on the objects
    # the run simulates (branchPred.requiresBTBHit on the preset's LTAGE).
    processor, cores = make_processor(spec)
    settings = spec["cpu"].get("set", {})
    for core, cpu_type in cores:
        cpu = core.get_simobject()
        on_isa(cpu, settings)
        if cpu_type != spec["cpu"]["type"] or cpu_type != "o3":
            continue  # the warming core: gem5's atomic CPU as it is
        on_o3(cpu, settings, new_simobject)
        set_fu_count(cpu, spec["cpu"].get("fu_count", {}))
        set_fu_latency(cpu, spec["cpu"].get("fu_latency", {}))
    if "l3_size" in spec["cache"]:  # a three-level preset (the seeds' machines)
        from three_level_caches import ThreeLevelCacheHierarchy
        import gem5.components.memory as memories
        caches = ThreeLevelCacheHierarchy(spec["cache"])
        memory = getattr(memories, spec["cache"]["dram"])(spec["memory"])
    else:
        caches = PrivateL1PrivateL2CacheHierarchy(**spec["cache"])
        memory = SingleChannelDDR3_1600(spec["memory"])
    if not spec.get("timer_mem_in_dtb", True):
        leave_timer_mem_out_of_dtb()
    board = board_class(spec["arch"])(clk_freq=spec["clock"], processor=processor,
                                      memory=memory, cache_hierarchy=caches)
    workload = dict(
        kernel=KernelResource(local_path=spec["kernel"]),
        disk_image=DiskImageResource(local_path=spec["disk"], root_partition=None),
        disk_device=spec["disk_device"],
        kernel_args=spec["kernel_args"],
    )
    if spec.get("bootloader"):
        workload["bootloader"] = BootloaderResource(local_path=spec["bootloader"])
    if spec["mode"] == "roi":
        workload["checkpoint"] = Path(spec["checkpoint_dir"])
        if warming(spec):
            workload["readfile"] = spec["job_file"]  # what init's m5 readfile reads
    board.set_kernel_disk_workload(**workload)
    return board


def run_boot(spec: dict, board) -> int:
    def at_workbegin():
        simulator.save_checkpoint(Path(spec["checkpoint_dir"]))
        say(f"checkpoint {simulator.get_current_tick()}")
        return True  # the boot's job is done

    def at_exit():
        say("error guest exited before its ROI began")
        return True

    def at_switchcpu():
        return False  # the cold scheme has one core: the "detailed warm-up" runs here

    simulator = Simulator(board=board, on_exit_event={
        ExitEvent.WORKBEGIN: at_workbegin, ExitEvent.SWITCHCPU: at_switchcpu,
        ExitEvent.EXIT: at_exit})
    simulator.run()
    return 0


def run_boot_once(spec: dict, board) -> int:
    """The boot-once checkpoint: init stops at m5 checkpoint before any job."""
    def at_checkpoint():
        simulator.save_checkpoint(Path(spec["checkpoint_dir"]))
        say(f"checkpoint {simulator.get_current_tick()}")
        return True

    def too_far():
        say("error the guest began a ROI before its boot-once checkpoint "
            "(is uaccess.job=readfile on the command line?)")
        return True

    def at_exit():
        say("error guest exited before its boot-once checkpoint")
        return True

    simulator = Simulator(board=board, on_exit_event={
        ExitEvent.CHECKPOINT: at_checkpoint, ExitEvent.WORKBEGIN: too_far,
        ExitEvent.EXIT: at_exit})
    simulator.run()
    return 0


def dump_json_stats(board, path: Path) -> None:
    """gem5's JSON statistics of the board, as of now (before dump())."""
    from m5.stats.gem5stats import get_simstat
    with open(path, "w") as f:
        get_simstat([board]).dump(f, indent=1)


def run_warm_roi(spec: dict, board) -> int:
    """Restore the boot-once checkpoint, warm on the atomic core, measure
    the ROI on the detailed one."""
    began, ended, switched = [], [], []
    start = time.monotonic()

    def phase(name: str, cpu) -> None:
        # What the phase that ends here cost: its instructions on the core
        # that ran it (counted since the restore, not reset with the
        # statistics) and host seconds since the restore.
        say(f"{name} {simulator.get_current_tick()} insts={cpu.totalInsts()} "
            f"host={time.monotonic() - start:.2f}")

    def to_detailed():
        if not switched:
            atomic = board.get_processor().get_cores()[0].get_simobject()
            board.get_processor().switch()
            switched.append(simulator.get_current_tick())
            phase("switched", atomic)

    def at_switchcpu():
        # The workload's m5 switchcpu (roi.h roi_switch): the functional
        # warm-up is over, the detailed warm-up runs until workbegin.
        to_detailed()
        return False

    def at_workbegin():
        to_detailed()
        m5.stats.reset()  # the ROI's statistics start here, and only here
        # The Exec trace (a commit profile) covers the ROI only, not the
        # millions of warming instructions before it.
        for flag in spec.get("trace_flags", []):
            m5.debug.flags[flag].enable()
        began.append(simulator.get_current_tick())
        phase("roi-begin", board.get_processor().get_cores()[0].get_simobject())
        return False

    def at_workend():
        if not began:
            say("error m5 workend before workbegin")
            return True
        dump_json_stats(board, Path(m5.options.outdir) / "stats.json")
        m5.stats.dump()
        ended.append(simulator.get_current_tick())
        phase("roi-end", board.get_processor().get_cores()[0].get_simobject())
        return False

    def at_exit():
        return True

    simulator = Simulator(board=board, on_exit_event={
        ExitEvent.SWITCHCPU: at_switchcpu, ExitEvent.WORKBEGIN: at_workbegin,
        ExitEvent.WORKEND: at_workend, ExitEvent.EXIT: at_exit})
    simulator.run()
    if not ended:
        say("error the guest exited without reaching workend")
    return 0


def run_roi(spec: dict, board) -> int:
    ended = []

    def at_workend():
        m5.stats.dump()  # the ROI's statistics: the first dump in stats.txt
        ended.append(simulator.get_current_tick())
        say(f"roi-end {ended[0]}")
        return False  # let the guest print its result and exit

    def at_exit():
        return True

    # Restored at the ROI's first instruction; gem5 resets the statistics
    # when simulation first starts after a restore, so they count from here.
    simulator = Simulator(board=board, on_exit_event={
        ExitEvent.WORKEND: at_workend, ExitEvent.EXIT: at_exit})
    simulator.run()
    if not ended:
        say("error the guest exited without reaching workend")
    return 0


def main() -> int:
    spec = json.loads(Path(sys.argv[-1]).read_text())
    board = make_board(spec)
    if warming(spec):
        return run_boot_once(spec, board) if spec["mode"] == "boot" else run_warm_roi(spec, board)
    return run_boot(spec, board) if spec["mode"] == "boot" else run_roi(spec, board)


# gem5 runs config scripts with __name__ == "__m5_main__".
if __name__ in ("__m5_main__", "__main__"):
    sys.exit(main())
