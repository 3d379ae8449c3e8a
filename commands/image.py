"""run.py's image command: build-image, and what every command that
builds an image shares: the job from --workload/--script (job_of), the
builder flags (image_args) and the image from the builder chosen
(image_of)."""

from buildroot import assemble, buildroot_image, release
from kernels import build as kbuild
from kernels import variants
from lab import arches, inputs
from lab.cli import OneLineParser, command
from lab.errors import UserError
from workloads import script

DEFAULT_WORKLOAD = "lstat-storm"
IMAGE_BUILDERS = ("assembler", "buildroot")


def workload_args(sp) -> None:
    sp.add_argument("--workload", help=f"default: the script's, or {DEFAULT_WORKLOAD}")
    sp.add_argument("--script", help="a workload script (TOML); default: "
                    "workloads/scripts/<workload>.toml")


def image_args(sp) -> None:
    sp.add_argument("--builder", default="assembler", choices=IMAGE_BUILDERS,
                    help="assembler (default: offline, from Debian packages) or "
                         "buildroot (a real Buildroot build of buildroot/)")
    sp.add_argument("--br-toolchain", default="debian", choices=buildroot_image.TOOLCHAINS,
                    help="with --builder buildroot: debian (offline, default) or "
                         "bootlin (the defconfig's; Buildroot downloads it)")


def register(sub) -> None:
    sp = command(sub, "build-image", cmd_build_image, cache=True,
                 help="build (or find cached) one root filesystem")
    sp.add_argument("--arch", required=True, choices=arches.NAMES, help="the guest architecture")
    workload_args(sp)
    image_args(sp)
    sp.add_argument("--br-kernel", metavar="VARIANT", default="",
                    choices=("",) + tuple(variants.names()),
                    help="with --builder buildroot: the same Buildroot build also makes "
                         "this kernel variant (prints its path first)")

    # setup is a command of its own, so that 'buildroot setup --help' is its
    # page (a choice of buildroot's printed buildroot's).
    sp = command(sub, "buildroot", cmd_buildroot, cache=True,
                 help=f"get Buildroot {release.VERSION} for --builder buildroot (online: its "
                      f"release tag from the official git repository, the commit checked; "
                      f"offline: --source)")
    actions = sp.add_subparsers(dest="action", required=True, parser_class=OneLineParser,
                                metavar="ACTION", help="what to do (each has its --help)")
    sp = command(actions, "setup", cmd_buildroot, cache=True,
                 help="get, check and unpack it",
                 description=f"Get Buildroot {release.VERSION} for --builder buildroot, check it "
                             f"and unpack it into the cache. From --source where given; else "
                             f"$BUILDROOT_HOME where set, the tree an earlier setup was given, "
                             f"the release already unpacked in the cache, or else tag "
                             f"{release.VERSION} fetched with git from {release.REPOSITORY}. "
                             f"What is checked is what you get: from a repository, that the "
                             f"tag is commit {release.COMMIT}; from a tarball, that its sha256 "
                             f"is {release.ARCHIVE_SHA256}, the git archive of that commit "
                             f"this project was tested with (buildroot.org's own "
                             f"{release.TARBALL} is a different file, and not pinned).")
    sp.add_argument("--source", default="", metavar="TARBALL|URL|REPOSITORY|TREE",
                    help=f"the tarball ({release.TARBALL}, the git archive of the release "
                         f"commit), a URL to it, a git repository (a URL, or a clone's .git "
                         f"or a bare mirror copied here) with the release tag, or an unpacked "
                         f"Buildroot tree (default: as the description says)")


def job_of(args) -> script.Job:
    """The job of --workload and --script."""
    # --script alone names its own workload; --workload alone, its default script.
    path = args.script or script.default_script(args.workload or DEFAULT_WORKLOAD)
    job = script.load(path)
    if args.workload and job.workload != args.workload:
        raise UserError(f"{path} is a {job.workload} script, not {args.workload}")
    return job


def image_of(args, job, handoff: bool = False):
    """The root filesystem of `job`, from the builder the user chose: the
    offline assembler (default) or a real Buildroot build."""
    if getattr(args, "builder", "assembler") == "buildroot":
        return buildroot_image.build_image(args.arch, job, args.br_toolchain, handoff)
    return assemble.build_image(args.arch, job, handoff)


def check_builder(args) -> None:
    if not hasattr(args, "builder"):
        return  # commands without --builder use the assembler
    buildroot_image.check_toolchain(args.br_toolchain)
    inputs.needs(getattr(args, "br_kernel", False) and args.builder != "buildroot",
                 "--br-kernel", "--builder buildroot")


def cmd_build_image(args) -> int:
    job = job_of(args)
    check_builder(args)
    if args.br_kernel:
        kbuild.plan(args.arch, args.br_kernel)  # the variant, checked before building
        img, kernel = buildroot_image.build(args.arch, job, args.br_toolchain,
                                            variant=args.br_kernel)
        print(kernel.path)
    else:
        img = image_of(args, job)
    print(img.path)
    return 0


def cmd_buildroot(args) -> int:
    """Buildroot's tree, got now rather than by the first build."""
    path, ident = release.setup(args.source)
    print(f"Buildroot {ident['version']} at {path}: ./run.py build-image --builder buildroot "
          f"uses it")
    return 0
