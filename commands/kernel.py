"""run.py's kernel commands: build-kernel, pin-kernel-source, and the
flags every command that builds a kernel takes (kernel_args)."""

import sys

from kernels import build as kbuild
from kernels import source as linux_source
from kernels import variants
from lab import arches
from lab.cli import COUNT, command


def kernel_args(sp) -> None:
    """--arch, --variant and --jobs: which kernel, and make's -j."""
    # A flag with a closed set of values takes argparse's choices: --help
    # lists them, and a wrong one is the parser's one line. The variants
    # are read when the command line is.
    variant_names = variants.names()
    sp.add_argument("--arch", required=True, choices=arches.NAMES, help="the guest architecture")
    sp.add_argument("--variant", default="stock", choices=variant_names, metavar="VARIANT",
                    help="a kernel variant (kernels/variants): " + ", ".join(variant_names))
    sp.add_argument("--jobs", type=COUNT, default=0, help="make -j (default: cores)")


def register(sub) -> None:
    sp = command(sub, "build-kernel", cmd_build_kernel, cache=True,
                 help="build (or find cached) one kernel")
    kernel_args(sp)
    command(sub, "pin-kernel-source", cmd_pin_kernel_source,
            help="move the Linux source pin (kernels/source-pin.toml) to the installed "
                 "linux-source-6.1, where apt cannot serve the pinned one; every published "
                 "result must then be re-run")


def cmd_build_kernel(args) -> int:
    k = kbuild.build_kernel(args.arch, args.variant, args.jobs)
    print(k.path)
    return 0


def cmd_pin_kernel_source(args) -> int:
    """The pin follows the installed tarball; says what that costs."""
    old = linux_source.pin()
    if not linux_source.TARBALL.is_file():
        print(f"run.py: no {linux_source.TARBALL} to pin to: install "
              f"{linux_source.PACKAGE} first", file=sys.stderr)
        return 2
    found = linux_source.installed()
    if found.sha256 == old.sha256:
        print(f"{linux_source.PACKAGE} {old.version} is installed and pinned: nothing to move")
        return 0
    linux_source.write_pin(linux_source.SourcePin(old.package, found.package_version,
                                                  found.sha256))
    print(f"pinned {linux_source.PACKAGE} {found.package_version} (sha256 {found.sha256[:12]}) "
          f"in {linux_source.PIN_FILE.name}, was {old.version} (sha256 {old.sha256[:12]}).\n"
          f"Every published record names {old.version}: re-run them "
          f"('./run.py reproduce --dry-run' lists what) and commit the pin with the new data.")
    return 0
