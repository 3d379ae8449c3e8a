"""The command line's QEMU settings: the flags `./run.py run` takes for a
QEMU point (QemuBackend.run_flags) and the point they make
(point_from_flags), its profile and arch checked before anything is
built. commands/run.py asks each backend for its flags and its point.
"""

from configs.qemu import process as qemu_process
from configs.qemu import profile as qemu_profile
from configs.qemu.point import qemu_point
from lab import inputs

# The --timeout default, as its help says it.
TIMEOUT_HELP = f"{qemu_process.DEFAULT_TIMEOUT:g} for QEMU"


def run_flags(sp) -> None:
    """A QEMU point's flags of `./run.py run`."""
    profiles = qemu_profile.profile_names()
    sp.add_argument("--profile", default="default", choices=["default"] + profiles,
                    metavar="PROFILE", help="QEMU CPU profile (configs/qemu-profiles; default: "
                    "the arch's): " + ", ".join(profiles))
    sp.add_argument("--plugin", action="store_true", help="count with the TCG plugin")


def point_from_flags(args, job):
    """The command line's QEMU point (its profile and arch checked)."""
    inputs.only_for(args.commit_profile, "--commit-profile", "gem5 (--backend gem5)",
                    "QEMU's plugin counts instructions per function, not cycles")
    inputs.only_for(args.uop_profile, "--uop-profile", "gem5 (--backend gem5)",
                    "QEMU has no micro-ops")
    return qemu_point(args.arch, args.variant, job, args.profile,
                      args.timeout or qemu_process.DEFAULT_TIMEOUT, args.plugin)
