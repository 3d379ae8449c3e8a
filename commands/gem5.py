"""run.py's gem5 command: gem5 setup, gem5 v24.0.0.1 with our series
(configs/gem5-patches) built outside the repository, then doctor."""

import argparse
import os
from pathlib import Path

from commands import inventory
from configs.gem5 import build_deps as gem5_build_deps
from configs.gem5 import build_profile as gem5_build_profile
from configs.gem5 import setup as gem5_setup
from lab.cli import COUNT, OneLineParser, command


def register(sub) -> None:
    # setup is a command of its own, as buildroot's is, so that 'gem5 setup
    # --help' is its page (as a choice of gem5's it printed gem5's).
    sp = command(sub, "gem5", cmd_gem5,
                 help="get gem5 v24.0.0.1, apply configs/gem5-patches, build it outside the "
                      "repository (a convenience: hours on two cores)")
    actions = sp.add_subparsers(dest="action", required=True, parser_class=OneLineParser,
                                metavar="ACTION", help="what to do (each has its --help)")
    sp = command(actions, "setup", cmd_gem5, help="fetch, patch and build",
                 description="Install what gem5's build needs (Debian's packages, as root "
                             "or through sudo), get gem5's tag v24.0.0.1 from --source, "
                             "apply the series in configs/gem5-patches with git am, and "
                             "build gem5.opt per ISA outside the repository (and the Arm "
                             "bootloader where arm is built); each step is skipped when "
                             "done, so a rerun resumes. Then runs doctor. --dry-run lists "
                             "the steps and what is done.")
    sp.add_argument("--source", default=gem5_setup.DEFAULT_SOURCE,
                    help="a git URL (online), or a local clone or bare repository (offline)")
    sp.add_argument("--dest", default="", help="the gem5 tree to make (default: <cache>/gem5)")
    sp.add_argument("--isa", default="x86", help="x86, arm or x86,arm (default: x86)")
    sp.add_argument("--variant", default="opt",
                    help="opt, or opt,fast: gem5.fast too, which untraced points then run "
                         "(default: opt)")
    sp.add_argument("--jobs", type=COUNT, default=0, help="scons -j (default: cores)")
    sp.add_argument("--debug-info", action="store_true",
                    help="build gem5.opt with -g, as gem5 does (for a debugger; about 1.4x "
                         "the compile time); the study's build leaves it out")
    sp.add_argument("--full-build", action="store_true",
                    help="gem5's own build less SystemC: Ruby, KVM, -g and the Python "
                         "wrappers at -O3 (the study runs none of them: "
                         "configs/gem5/build_profile.py)")
    sp.add_argument("--dry-run", action="store_true", help="print the steps, do nothing")


def cmd_gem5(args) -> int:
    """gem5 v24.0.0.1 with our series, built outside the repository."""
    dest = Path(args.dest).expanduser().resolve() if args.dest else gem5_setup.default_dest()
    jobs = args.jobs or os.cpu_count() or 1
    profile = gem5_build_profile.BuildProfile.for_setup(
        args.full_build, args.debug_info, gem5_build_deps.LINKER)
    s = gem5_setup.Setup(args.source, dest, gem5_setup.parse_isas(args.isa), jobs,
                         gem5_setup.parse_variants(args.variant), profile)
    home = "" if dest == gem5_setup.default_dest() else f"GEM5_HOME={dest} "
    if args.dry_run:
        s.git_dir()  # a local source that is no repository is refused here too
        lacking = gem5_build_deps.missing(s.isas)
        print(f"[packages] {'to do: install ' + ', '.join(lacking) if lacking else 'done'}: "
              f"what gem5's build needs (configs/gem5/build_deps.py)")
        print(f"[profile] {profile.describe()}")
        for name, what, done in s.steps():
            print(f"[{name}] {'done' if done else 'to do'}: {what}")
        print(f"then: {home}./run.py doctor")
        return 0
    gem5_setup.check(s)
    gem5_setup.run(s)
    print("gem5 is set up" + (f": export GEM5_HOME={dest}" if home else
                              f" at its default home, {dest}, where every command finds it"))
    return inventory.cmd_doctor(argparse.Namespace(gem5=str(dest)))
