"""What `./run.py calibrate` fits, and on which seed: one Mechanism per
op class of our gem5 series, with the seed's numbers and the two kernels
whose difference is the target (configs/calibrate.py runs them).

Kept apart from the runner so that what reads only the targets (the
scorecard's "fitted here", a preset's record of what it was fitted on)
does not import the simulation stack.
"""

from dataclasses import dataclass
from pathlib import Path

from lab import cpu_presets

SCRIPTS = Path(__file__).resolve().parents[1] / "workloads" / "scripts"


@dataclass(frozen=True)
class Mechanism:
    name: str
    seed: str
    hardware: str
    before: str          # the slower kernel of the seed
    after: str
    script: Path         # the seeds sweep's script, so they share boots
    smap_model: str
    op_class: str
    target: float
    target_kind: str     # "delta_ns": before - after, ns per op; "fraction": of before
    default_latencies: tuple
    # The op class this mechanism's runs set before the series gave it
    # its own ("" for none): a published rep calibration of before patch
    # 0043 set RepStringStartup, which then started compare strings too.
    earlier_op_class: str = ""

    def op_class_in(self, fu_latency: dict) -> str:
        """The op class a run's preset record set for this mechanism."""
        if self.op_class in fu_latency or not self.earlier_op_class:
            return self.op_class
        return self.earlier_op_class

    def latency_in(self, fu_latency: dict) -> int:
        """The latency a run's preset record gave this mechanism."""
        return fu_latency[self.op_class_in(fu_latency)]

    @property
    def seed_id(self) -> str:
        """The seed's id alone ("000_ccfae2f7fd7a499e")."""
        return self.seed.split()[0]


MECHANISMS = {
    "smap": Mechanism(
        "smap", "000_ccfae2f7fd7a499e (statx, 2017)",
        "10M statx: 5.530 s per-field __put_user, 1.624 s one copy_to_user",
        "statx-putuser", "stock", SCRIPTS / "statx-null-gem5.toml", "smap",
        cpu_presets.SMAP_OP_CLASS, (5.530 - 1.624) / 10_000_000 * 1e9, "delta_ns", (1, 16, 48)),
    "rep": Mechanism(
        "rep", "004_19de4fc19931aa23 (dentry compare, Westmere, 2010)",
        "git diff system time: 2.57 s repe cmpsb, 2.35 s byte loop",
        "dcache-repcmpsb", "dcache-bytecmp", SCRIPTS / "lstat-storm-gem5.toml", "none",
        cpu_presets.REP_COMPARE_OP_CLASS, (2.57 - 2.35) / 2.57, "fraction", (1, 20, 60),
        cpu_presets.REP_STARTUP_OP_CLASS),
}
