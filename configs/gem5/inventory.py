"""What `./run.py list` and `./run.py doctor` say of the gem5 backend: its
CPU and cache presets and smap models, and what this machine has of it
(the gem5 build of each arch, gem5.fast, our patch series). commands/
inventory.py asks each backend (Gem5Backend.list_lines, host_tools,
doctor_checks).
"""

from configs import smap_models
from configs.gem5 import build_profile, cache_presets
from configs.gem5 import locate as gem5_locate
from lab import arches, cpu_presets
from lab.errors import UserError


def list_lines() -> list:
    every = sorted(cpu_presets.preset_files("cpu"))
    roi = set(cpu_presets.cpu_preset_names())
    return [
        "presets:   " + ", ".join(p if p in roi else f"{p} (the boot's functional CPU)"
                                  for p in every)
        + "  (gem5 CPU models: configs/gem5-presets/cpu; --cpu-preset takes any)",
        "caches:    " + ", ".join(cache_presets.cache_preset_names())
        + "  (gem5 cache presets: configs/gem5-presets/cache)",
        "smap models (x86 gem5): " + ", ".join(smap_models.SMAP_MODELS)]


def host_tools(arch: str) -> list:
    """None beyond its build, which doctor_checks looks for."""
    return []


def doctor_checks(args) -> list:
    """(name, check) of what it needs: the build, each arch's, the series
    (those three only where gem5 is found and something of it built: a
    missing gem5, or one with nothing built, is said once).
    A --gem5 that is no gem5 tree is bad input: one line, exit 2."""
    if args.gem5:
        gem5_locate.home(args.gem5)
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
            built = g.build_profile(arch)
            how = ("; built " + build_profile.describe_record(built) if built else
                   "; built by hand (no set-up profile)")
            # Paths in the tree the gem5 line names: a whole one is wider
            # than an 80-column terminal.
            return (str(g.binary(arch).relative_to(g.home))
                    + (f", {g.bootloader().relative_to(g.home)}"
                       if arches.get(arch).gem5_bootloader else "") + fast + how)
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

    try:
        g = gem5_locate.find(args.gem5)
    except UserError:
        return [("gem5", gem5_home)]
    if not g.built_arches():
        # A source tree and nothing built: one line with the one fix (not
        # "ok gem5" over an arch line each repeating it).
        def nothing_built():
            raise UserError(g.nothing_built())
        return [("gem5", nothing_built)]
    return ([("gem5", gem5_home)] + [(f"gem5 {arch}", gem5_arch(arch)) for arch in arches.NAMES]
            + [("gem5 patch series", gem5_series)])
