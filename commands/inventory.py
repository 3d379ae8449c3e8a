"""run.py's inventory commands: list (what the lab holds: arches,
variants, workloads, backends, profiles, presets) and doctor (what this
machine has of the prerequisites, one line each, with the fix)."""

import sys

from buildroot import buildroot_image
from configs import backends, simpoint_method
from configs.gem5 import locate as gem5_locate
from configs.gem5 import spec as gem5_spec
from configs.qemu import plugin_build
from configs.qemu import process as qemu_process
from configs.qemu import profile as qemu_profile
from kernels import build as kbuild
from kernels import source as linux_source
from kernels import variants
from lab import arches, cache, tools
from lab.cli import command
from lab.errors import UserError
from workloads import script


def register(sub) -> None:
    command(sub, "list", cmd_list, help="arches, variants, workloads, profiles")
    sp = command(sub, "doctor", cmd_doctor,
                 help="what is found and what is missing, with the fix")
    sp.add_argument("--gem5", help="gem5 source tree (default: $GEM5_HOME)")


def cmd_list(args) -> int:
    print("arches:    " + ", ".join(arches.NAMES))
    print("variants:")
    for name in variants.names():
        v = variants.load(name)
        subjects = "; ".join(p.subject for p in v.patches) or "no patches"
        print(f"  {name:18} [{' '.join(v.arches)}] {subjects}")
    print("workloads: " + ", ".join(script.workload_names()))
    print("backends:  " + ", ".join(backends.BACKENDS))
    print("profiles:  " + ", ".join(qemu_profile.profile_names()) + "  (QEMU)")
    every = sorted(gem5_spec.preset_files("cpu"))
    roi = set(gem5_spec.cpu_preset_names())
    print("presets:   " + ", ".join(p if p in roi else f"{p} (the boot's functional CPU)"
                                    for p in every)
          + "  (gem5 CPU models: configs/gem5-presets/cpu; --cpu-preset takes any)")
    print("caches:    " + ", ".join(gem5_spec.cache_preset_names())
          + "  (gem5 cache presets: configs/gem5-presets/cache)")
    print("smap models (x86 gem5): " + ", ".join(gem5_spec.SMAP_MODELS))
    print("kernel layers: " + ", ".join(variants.layer_names()))
    print(f"cache:     {cache.cache_root()}")
    return 0


def cmd_doctor(args) -> int:
    """What is found and what is missing, one line each, with the fix."""
    checks = []

    class Absent(Exception):
        """An optional prerequisite that is not there: not a missing one."""

    def check(name, fn):
        try:
            checks.append(("ok", name, fn() or ""))
        except Absent as e:
            checks.append(("absent", name, str(e)))
        except UserError as e:
            checks.append(("MISSING", name, str(e)))

    def python():
        if sys.version_info < (3, 11):
            raise UserError(f"Python {sys.version.split()[0]} is too old: 3.11+ needed (tomllib)")
        return sys.version.split()[0]

    def linux():
        src = linux_source.pinned()
        return f"{linux_source.PACKAGE} {src.package_version} ({src.tarball})"

    def tools_for(arch):
        return lambda: ", ".join(tools.require(t) for t in kbuild.required_tools(arch)
                                 + ["mke2fs", _qemu_binary(arch)])

    def qemu_version(arch):
        return lambda: qemu_process.version(_qemu_binary(arch))

    def plugin():
        return str(plugin_build.build("qemu-system-x86_64"))

    def gem5_home():
        g = gem5_locate.find(args.gem5)
        return f"gem5 {g.version} at {g.home}"

    def gem5_arch(arch):
        def fn():
            g = gem5_locate.require(arch, args.gem5)
            fast = ("; gem5.fast runs the untraced points" if g.fast_usable(arch) else
                    f"; gem5.fast stale (older than gem5.opt, or not of its series): "
                    f"gem5.opt runs every point until 'scons "
                    f"{arches.get(arch).gem5_binary('fast')}' in the gem5 tree"
                    if g.fast_binary(arch).is_file() else "")
            return str(g.binary(arch)) + (f", {g.bootloader()}"
                                          if arches.get(arch).gem5_bootloader else "") + fast
        return fn

    def gem5_series():
        # The series is optional (smap_model smap and a rep start-up need it): a tree
        # without it is a note, not a missing prerequisite.
        g = gem5_locate.find(args.gem5)
        if not g.binary("x86_64").is_file():
            # Nothing built yet: "the binary predates it" would send a reader
            # to rebuild what the gem5 x86_64 line says is not there.
            applied = gem5_locate.source_carries_series(g.home)
            return (f"series {'applied to the source' if applied else 'not applied'}; "
                    f"no gem5.opt built yet (the gem5 x86_64 line says how)")
        ticks = ("O3 trace stamped at commit (commit profiles work)" if g.commit_ticks("x86_64")
                 else "no commit-tick patch 0007 built (commit profiles refused)")
        return f"{g.series('x86_64').describe()}; {ticks}"

    check("python", python)
    check("linux source", linux)
    for arch in arches.NAMES:
        check(f"{arch} build tools", tools_for(arch))
        check(f"{arch} QEMU", qemu_version(arch))
    check("QEMU profiling plugin", plugin)
    check("gem5", gem5_home)
    for arch in arches.NAMES:
        check(f"gem5 {arch}", gem5_arch(arch))
    check("gem5 patch series", gem5_series)

    def simpoint_reference():
        # Optional: the built-in method needs no binary.
        found = simpoint_method.reference_binary()
        if not found:
            raise Absent("optional, the study's own method needs none: for the reference "
                         "binary, set SIMPOINT_HOME or put 'simpoint' on PATH")
        return found
    check("SimPoint 3.2", simpoint_reference)

    def buildroot_tree():
        # Optional: the offline assembler is the default image builder.
        try:
            path, ident = buildroot_image.tree()
        except UserError as e:
            raise Absent(f"optional, for --builder buildroot: {e}") from None
        return f"Buildroot {ident['version']} at {path}"
    check("Buildroot", buildroot_tree)
    for status, name, detail in checks:
        print(f"{status:8} {name:22} {detail}")
    missing = [c for c in checks if c[0] == "MISSING"]
    absent = [c for c in checks if c[0] == "absent"]
    print(f"{len(checks) - len(missing) - len(absent)} found, {len(missing)} missing"
          + (f", {len(absent)} optional absent" if absent else "")
          + (" (the QEMU backend needs none of the gem5 lines)" if missing else ""))
    return 1 if missing else 0


def _qemu_binary(arch: str) -> str:
    """The QEMU binary of `arch`'s default profile."""
    return qemu_profile.load_profile(arches.get(arch).qemu_profile).binary
