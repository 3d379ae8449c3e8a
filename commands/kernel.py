"""run.py's kernel command: build-kernel, and the flags every command
that builds a kernel takes (kernel_args)."""

from kernels import build as kbuild
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


def cmd_build_kernel(args) -> int:
    k = kbuild.build_kernel(args.arch, args.variant, args.jobs)
    print(k.path)
    return 0
