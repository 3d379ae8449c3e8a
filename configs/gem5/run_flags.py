"""The command line's gem5 settings: the flags `./run.py run` takes for a
gem5 point (Gem5Backend.run_flags; one per choice knob of the knob table,
lab/gem5_knobs.py), those of the build any gem5 command runs on
(build_flags: --gem5, --cache), and the point they make
(point_from_flags), checked whole by its constructor before anything is
built. commands/run.py asks each backend for its flags and its point, and
puts each backend's in an argument group of its own: given to the other
backend, they are refused in one line (lab/cli.py refuse_others).
"""

from configs import point as run_point
from configs import smap_models
from configs.gem5 import point as gem5_point_mod
from configs.gem5 import sampling as gem5_sampling
from configs.gem5 import spec as gem5_spec
from lab import gem5_knobs as knobs
from lab import cpu_presets, inputs
from lab.cli import refuse_others, switches

# The --timeout default, as its help says it.
TIMEOUT_HELP = f"{gem5_spec.DEFAULT_TIMEOUT / 3600:g} h per gem5 process"
# The argument group its flags of `./run.py run` are listed under, and
# how a refusal of one of them on the other backend names their owner.
FLAGS_TITLE = "gem5 (--backend gem5)"
FLAGS_OWNER = "gem5 (--backend gem5)"

# No variable is needed: every command finds the gem5 that setup built.
GEM5_HELP = ("gem5 source tree (default: $GEM5_HOME where set, else the one './run.py gem5 "
             "setup' built in the cache)")


def build_flags(sp) -> None:
    """--gem5 (the build) and --cache (a cache preset, read when the
    command line is: a malformed file is a choice, so that its loader
    says what is wrong with it)."""
    sp.add_argument("--gem5", help=GEM5_HELP)
    caches = sorted(cpu_presets.preset_files("cache"))
    sp.add_argument("--cache", default="classic-l1l2", choices=caches, metavar="CACHE",
                    help="gem5 cache preset (configs/gem5-presets/cache): "
                         + ", ".join(caches))


def run_flags(sp) -> None:
    """A gem5 point's flags of `./run.py run` (`sp`: its argument group)."""
    build_flags(sp)
    cpus = sorted(cpu_presets.preset_files("cpu"))
    sp.add_argument("--cpu-preset", default="default", choices=["default"] + cpus,
                    metavar="PRESET", help="gem5 CPU preset (configs/gem5-presets/cpu; default: "
                    "<arch>-o3-default): " + ", ".join(cpus))
    knob_flags(sp)  # one per choice knob of lab/gem5_knobs.py
    sp.add_argument("--smap-model", default="none", choices=smap_models.SMAP_MODELS,
                    help="x86 gem5: none | lfence | serialize at stac/clac sites, or smap "
                         "(SMAP executed by gem5; needs configs/gem5-patches). gem5 only: "
                         "a QEMU run of a model's kernel is its gem5 point's twin "
                         "(crosscheck, or a gem5 sweep's cross_check)")
    sp.add_argument("--warming", default="functional", choices=gem5_spec.WARMING,
                    help="gem5: functional (default: boot once, hand the job over, warm the "
                         "caches on the atomic core) or none (the ROI checkpoint, cold caches)")
    switches(sp, ("--commit-profile", "gem5: charge the ROI's cycles to kernel functions "
                                      "(needs patch 0007 of configs/gem5-patches)"),
             ("--uop-profile", "x86 gem5: count the ROI's instructions and micro-ops form by "
                               "form (configs/gem5/uop_profile.py)"))
    sp.add_argument("--gem5-memory", type=int, default=gem5_spec.DEFAULT_MEMORY_LIMIT,
                    metavar="MIB", help=f"gem5: MiB of resident memory each gem5 process may "
                    f"hold before it is stopped (default {gem5_spec.DEFAULT_MEMORY_LIMIT})")
    sp.add_argument("--sampling", default="none", choices=gem5_sampling.SAMPLING,
                    help="gem5: none (the whole ROI in detail) or simpoint (SimPoint's "
                         "simulation points, weighted; needs --warming functional)")
    defaults = gem5_sampling.Settings()
    for name, help_text in (("interval", "instructions per basic-block vector"),
                            ("max-k", "most clusters SimPoint may choose"),
                            ("functional-warmup", "atomic-core instructions before each point"),
                            ("detailed-warmup", "O3 instructions before each point"),
                            ("passes", "atomic passes over the ROI: 2 (vectors, then the "
                                       "points' checkpoints) or 1 (checkpoints on a grid in "
                                       "the vectors' pass)"),
                            ("grid", "with --simpoint-passes 1: intervals between the grid's "
                                     "checkpoints")):
        attr = name.replace("-", "_")
        sp.add_argument(f"--simpoint-{name}", type=int, default=getattr(defaults, attr),
                        help=f"with --sampling simpoint: {help_text}")
    sp.add_argument("--simpoint-measure-all", action="store_true",
                    help="with --sampling simpoint: validate by measuring every interval "
                         "too (splits the error into sampling's and the rest)")


def knob_flags(sp) -> None:
    """A flag per choice knob of the table (--stac-clac), default: the
    preset's. Counts are a sweep's cpu.<knob> axes, not flags."""
    for k in knobs.KNOBS:
        if k.choices:
            sp.add_argument("--" + k.name.replace("_", "-"), default=None,
                            choices=k.named, metavar="{" + ",".join(k.named) + "}"
                            if len(k.named) <= 3 else "NAME",
                            help=f"{'x86 gem5' if k.series else 'gem5'}: {k.help}; "
                                 f"default: the CPU preset's")


def knob_values(args) -> tuple:
    """(knob, value) of every choice knob's flag the command line gave."""
    return tuple((k.name, getattr(args, k.name)) for k in knobs.KNOBS
                 if k.choices and getattr(args, k.name, None) is not None)


def crosscheck_flags(sp) -> None:
    """`./run.py crosscheck`'s gem5 flags: the build and the model."""
    build_flags(sp)
    sp.add_argument("--smap-model", default="none", choices=smap_models.SMAP_MODELS,
                    help="x86: none, lfence or smap (serialize has no QEMU twin)")


def point_from_flags(args, job):
    """The command line's gem5 point, checked whole before anything is
    built: a QEMU flag given is refused first."""
    inputs.only_for(getattr(args, "br_kernel", False), "--br-kernel", "the QEMU backend",
                    "gem5 runs its own kernel layers (kernels/layers), which the Buildroot "
                    "fragment does not carry")
    refuse_others(args, "gem5")  # every other QEMU flag, from its group
    simpoint = None
    if gem5_sampling.check_sampling(getattr(args, "sampling", "none")) == "simpoint":
        simpoint = gem5_sampling.Settings(
            args.simpoint_interval, args.simpoint_max_k, args.simpoint_functional_warmup,
            args.simpoint_detailed_warmup, args.simpoint_measure_all, args.simpoint_passes,
            args.simpoint_grid).check("", cli=True)
    return gem5_point_mod.gem5_point(
        args.arch, args.variant, job, getattr(args, "cpu_preset", None) or "default",
        args.cache, args.smap_model, args.timeout or gem5_spec.DEFAULT_TIMEOUT,
        cpu_params=knob_values(args),
        commit_profile=bool(getattr(args, "commit_profile", False)),
        uop_profile=bool(getattr(args, "uop_profile", False)),
        warming=getattr(args, "warming", "none"), simpoint=simpoint,
        spelling=run_point.FLAGS,
        memory_limit=inputs.number(getattr(args, "gem5_memory", gem5_spec.DEFAULT_MEMORY_LIMIT),
                                   "--gem5-memory (MiB)", integer=True, positive=True))
