# SimPoint on gem5 full system: run by gem5.opt, never imported by the host.
#
#   gem5.opt --outdir=OUT configs/gem5/fs_simpoint.py SPEC.json
#
# The same board as fs_roi.py's boot-once scheme (its switchable atomic ->
# O3 processor, so every checkpoint here restores into the board that took
# it), restored from the boot-once checkpoint with the job handed over.
# Instruction positions are counted on the atomic core from that restore;
# gem5 is deterministic, so each mode below replays the same instructions
# from the same checkpoint (a replay from another may differ: "checkpoints").
# Four modes, one gem5 process each (configs/gem5/sampling.py runs them):
#   "roi-start":  run the job's set-up and warm passes on the atomic core,
#       with a checkpoint every `stride` instructions; at m5 workbegin say
#       how many instructions that took (R0), save a checkpoint at the
#       ROI's first instruction, stop.
#   "bbv":        restore that checkpoint with gem5's SimPoint probe on the
#       atomic core, so its basic-block vectors cover exactly the ROI from
#       its first instruction, on to the guest's exit (its result line);
#       the host keeps the whole intervals that end by m5 workend. With
#       `grid_insts` (the one-pass flow) it also saves a checkpoint every
#       grid_insts instructions of the ROI, named by where it lies since
#       the restore, so the simulation points the clustering later picks
#       warm up from the grid point before them instead of a second pass.
#   "checkpoints": from a checkpoint before the first position, stop at
#       each position (R0 + interval start - warm-up) and save a checkpoint
#       there. From the ROI's start (positions in the ROI), as the vectors'
#       pass did; from the last set-up checkpoint before them (positions
#       in the set-up), on to workbegin, which must come at the set-up
#       run's tick, the replay's proof, and whose instruction is said (on
#       Arm it may come a few hundred instructions early: sampling.py).
#   "measure":    restore one of those, warm the caches on the atomic core
#       (functional warm-up), switch to O3, run the detailed warm-up, reset
#       the statistics, run the interval's instructions, dump, stop.
# Its version, in the key of every sampled run, is configs/gem5/sampling.py's
# FLOW_VERSION: bump it there when a change here would change a result
# (tests/test_version_guards.py fails on a change here that leaves it).

import json
import os
import sys
from pathlib import Path

import m5
from gem5.simulate.exit_event import ExitEvent
from gem5.simulate.simulator import Simulator

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fs_roi  # noqa: E402  (the board, beside this script)
from fs_roi import say  # noqa: E402

STOP_SLACK = 16  # instructions a stop at an instruction count may overshoot


def atomic_core(board):
    return board.get_processor().get_cores()[0].get_simobject()


def fail(what: str) -> bool:
    say(f"error {what}")
    return True


def run_roi_start(spec: dict, board) -> int:
    # Checkpoints every `stride` instructions on the way, so that a later
    # step whose warm-up reaches back before the ROI restores one of the
    # last of them instead of replaying the whole set-up (the host keeps
    # only those; "checkpoints" checks that a replay from one meets
    # workbegin at this run's tick, and says at which instruction).
    stride = spec["stride"]

    def at_max_insts():
        # Named by where it is once saved (the save drains to an instruction
        # boundary), which is where a restore counts from.
        saving = Path(spec["save_dir"]) / "pre-saving"
        simulator.save_checkpoint(saving)
        where = atomic_core(board).totalInsts()
        os.rename(saving, saving.with_name(f"pre-{where}"))
        say(f"pre-{where} {simulator.get_current_tick()} insts={where}")
        simulator.schedule_max_insts(stride)
        return False

    def at_workbegin():
        say(f"roi-start {simulator.get_current_tick()} insts={atomic_core(board).totalInsts()}")
        simulator.save_checkpoint(Path(spec["save_dir"]) / "cpt")
        return True

    simulator = Simulator(board=board, on_exit_event={
        ExitEvent.SWITCHCPU: lambda: False,  # stays on the atomic core
        ExitEvent.MAX_INSTS: at_max_insts,
        ExitEvent.WORKBEGIN: at_workbegin,
        ExitEvent.EXIT: lambda: fail("the guest exited before its ROI began")})
    simulator.schedule_max_insts(stride)
    simulator.run()
    return 0


def run_bbv(spec: dict, board) -> int:
    ended = []
    grid = spec.get("grid_insts")

    def at_workend():
        # The probe goes on counting to the guest's exit (its result line
        # holds the ops and the checksum); the host keeps only the
        # intervals that end by this instruction.
        ended.append(atomic_core(board).totalInsts())
        say(f"roi-end {simulator.get_current_tick()} insts={ended[0]}")
        return False

    def at_max_insts():
        # A grid point (one-pass flow). None is needed past the ROI's end:
        # no interval after it is ever measured.
        if ended:
            return False
        saving = Path(spec["save_dir"]) / "grid-saving"
        simulator.save_checkpoint(saving)
        where = atomic_core(board).totalInsts()
        os.rename(saving, saving.with_name(f"grid-{where}"))
        say(f"grid-{where} {simulator.get_current_tick()} insts={where}")
        # The next grid point from the grid, not from this stop's overshoot.
        simulator.schedule_max_insts((where // grid + 1) * grid - where)
        return False

    simulator = Simulator(board=board, on_exit_event={
        ExitEvent.SWITCHCPU: lambda: False,
        ExitEvent.WORKEND: at_workend,
        ExitEvent.MAX_INSTS: at_max_insts,
        ExitEvent.EXIT: lambda: True if ended else fail("the guest exited before workend")})
    if grid:
        simulator.schedule_max_insts(grid)
    simulator.run()
    return 0


def run_checkpoints(spec: dict, board) -> int:
    positions = spec["positions"]  # ascending, instructions since the restore
    # A replay of the set-up goes on to workbegin, which must come at the
    # set-up run's tick (its instruction is said, for the host to record);
    # a replay from the ROI's start has no workbegin before it.
    roi_tick = spec.get("roi_start_tick")
    saved, began = [], []

    def done():
        return len(saved) == len(positions) and (roi_tick is None or began)

    def at_max_insts():
        # gem5 stops when the count is reached, but the atomic core ends the
        # instruction it is in (and a checkpoint drains to an instruction
        # boundary): the checkpoint lies at most a few instructions on.
        target = positions[len(saved)]
        simulator.save_checkpoint(Path(spec["save_dirs"][len(saved)]))
        where = atomic_core(board).totalInsts()
        if not 0 <= where - target <= STOP_SLACK:
            return fail(f"checkpoint at instruction {where}, not {target}")
        saved.append(where)
        say(f"checkpoint-{len(saved) - 1} {simulator.get_current_tick()} insts={where}")
        if len(saved) < len(positions):
            simulator.schedule_max_insts(positions[len(saved)] - where)
        return done()

    def at_workbegin():
        if roi_tick is None:
            return fail("workbegin in a replay from the ROI's start")
        tick, where = simulator.get_current_tick(), atomic_core(board).totalInsts()
        say(f"roi-start {tick} insts={where}")
        if tick != roi_tick:
            return fail(f"the replay reached workbegin at tick {tick}, not {roi_tick}: "
                        f"gem5 did not replay the same run")
        began.append(where)
        return done()

    simulator = Simulator(board=board, on_exit_event={
        ExitEvent.SWITCHCPU: lambda: False,
        ExitEvent.WORKBEGIN: at_workbegin,
        ExitEvent.WORKEND: lambda: fail("the ROI ended before the last simulation point"),
        ExitEvent.MAX_INSTS: at_max_insts,
        ExitEvent.EXIT: lambda: fail("the guest exited before the last simulation point")})
    # Scheduled before the first run(): gem5 takes it as the core's
    # max_insts_any_thread parameter.
    simulator.schedule_max_insts(positions[0])
    simulator.run()
    return 0


def run_measure(spec: dict, board) -> int:
    functional, detailed, length = (spec["functional_insts"], spec["detailed_insts"],
                                     spec["interval_insts"])
    phase = ["functional"]
    switched = [0]  # the atomic core's count at the switch to O3

    def detailed_core():
        return board.get_processor().get_cores()[0].get_simobject()

    def start_interval():
        m5.stats.reset()  # the interval's statistics start here, and only here
        phase[0] = "interval"
        say(f"interval-begin {simulator.get_current_tick()}")
        simulator.schedule_max_insts(length)

    def at_max_insts():
        if phase[0] == "functional":
            switched[0] = atomic_core(board).totalInsts()
            say(f"switched {simulator.get_current_tick()} insts={switched[0]}")
            board.get_processor().switch()
            if detailed:
                phase[0] = "detailed"
                simulator.schedule_max_insts(detailed)
            else:
                start_interval()
            return False
        if phase[0] == "detailed":
            start_interval()
            return False
        m5.stats.dump()
        say(f"interval-end {simulator.get_current_tick()} insts={detailed_core().totalInsts()}")
        return True

    def at_workbegin():
        # From a checkpoint before the ROI: where the ROI began in this run,
        # so the host can say whether the interval lies where it was placed.
        # Counted since the restore: O3's own count starts at the switch.
        # Which core met it is said too: on O3 the guest's timing is no
        # longer the atomic core's, so interrupts land at other
        # instructions, and O3 counts a commit group at once.
        atomic = phase[0] == "functional"
        where = atomic_core(board).totalInsts() if atomic else (
            switched[0] + detailed_core().totalInsts())
        say(f"roi-start {simulator.get_current_tick()} insts={where} "
            f"o3={0 if atomic else 1}")
        return False

    simulator = Simulator(board=board, on_exit_event={
        # The ROI's markers may fall inside a warm-up or an interval: the
        # interval is counted in instructions, not bounded by them.
        ExitEvent.SWITCHCPU: lambda: False,
        ExitEvent.WORKBEGIN: at_workbegin,
        ExitEvent.WORKEND: lambda: False,
        ExitEvent.MAX_INSTS: at_max_insts,
        ExitEvent.EXIT: lambda: fail(f"the guest exited during the {phase[0]} phase")})
    simulator.schedule_max_insts(functional)
    simulator.run()
    return 0


MODES = {"roi-start": run_roi_start, "bbv": run_bbv, "checkpoints": run_checkpoints,
         "measure": run_measure}


def main() -> int:
    spec = json.loads(Path(sys.argv[-1]).read_text())
    board = fs_roi.make_board(spec)  # mode "roi": every mode restores a checkpoint
    if spec["simpoint_mode"] == "bbv":
        # gem5's SimPoint probe on the atomic core: basic-block vectors in
        # SimPoint's .bb format, every `interval` instructions (at the end
        # of the basic block that reaches it), into OUT/simpoint.bb.gz.
        atomic_core(board).addSimPointProbe(spec["interval"])
    return MODES[spec["simpoint_mode"]](spec, board)


# gem5 runs config scripts with __name__ == "__m5_main__".
if __name__ in ("__m5_main__", "__main__"):
    sys.exit(main())
