"""The command line's QEMU settings: the flags `./run.py run` takes for a
QEMU point (QemuBackend.run_flags) and the point they make
(point_from_flags), its profile and arch checked before anything is
built. commands/run.py asks each backend for its flags and its point, and
puts each backend's in an argument group of its own: given to the other
backend, they are refused in one line (lab/cli.py refuse_others).
"""

from configs.qemu import process as qemu_process
from configs.qemu import profile as qemu_profile
from configs.qemu.point import qemu_point
from lab import inputs
from lab.cli import refuse_others

# The --timeout default, as its help says it.
TIMEOUT_HELP = f"{qemu_process.DEFAULT_TIMEOUT:g} for QEMU"
# The argument group its flags of `./run.py run` are listed under, and
# how a refusal of one of them on the other backend names their owner.
FLAGS_TITLE = "QEMU (--backend qemu)"
FLAGS_OWNER = "the QEMU backend (--backend qemu)"


def run_flags(sp) -> None:
    """A QEMU point's flags of `./run.py run` (`sp`: its argument group)."""
    sp.add_argument("--br-kernel", action="store_true",
                    help="with --builder buildroot: the kernel from the same Buildroot "
                         "build instead of kernels/")
    profiles = qemu_profile.profile_names()
    sp.add_argument("--profile", default="default", choices=["default"] + profiles,
                    metavar="PROFILE", help="QEMU CPU profile (configs/qemu-profiles; default: "
                    "the arch's): " + ", ".join(profiles))
    sp.add_argument("--plugin", action="store_true", help="count with the TCG plugin")


def point_from_flags(args, job):
    """The command line's QEMU point (its profile and arch checked): a
    gem5 flag given is refused first."""
    inputs.only_for(args.commit_profile, "--commit-profile", "gem5 (--backend gem5)",
                    "QEMU's plugin counts instructions per function, not cycles")
    inputs.only_for(args.uop_profile, "--uop-profile", "gem5 (--backend gem5)",
                    "QEMU has no micro-ops")
    refuse_others(args, "qemu")  # every other gem5 flag, from its group
    return qemu_point(args.arch, args.variant, job, args.profile,
                      args.timeout or qemu_process.DEFAULT_TIMEOUT, args.plugin)
