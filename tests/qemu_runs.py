"""A QEMU run from loose arguments, as the tests want one: the point is
made (and checked) by configs/point.py, the run by the backend, exactly as
a sweep's. Only tests build a point this way, so it lives here."""

from configs.qemu import point as point_mod
from configs import backends, smap_models
from lab.errors import UserError


def run(kernel, image, job, profile_name: str = "", timeout: float = 300, force: bool = False,
        plugin: bool = False, bbv_interval: int = 0, extra_args: tuple = ()) -> dict:
    """Run one QEMU point (or return its finished record). With `plugin`,
    the TCG profiling plugin counts the ROI; with `bbv_interval` > 0 it also
    writes SimPoint basic-block vectors (roi.bb) every that many insns.
    `extra_args` go on the kernel command line (the smap-model layer's)."""
    point = point_mod.qemu_point(kernel.arch, kernel.variant, job, profile_name, timeout,
                                 plugin, bbv_interval,
                                 smap_model=_model_in(extra_args))
    if point.extra_args() != tuple(extra_args):
        raise UserError(f"kernel arguments {' '.join(extra_args)!r} are not a smap model's "
                        f"(those are the only ones a point adds)")
    return backends.backend_for(point).run(point, kernel, image, force)


def _model_in(args) -> str:
    """The smap model a kernel command line selects ("" for none):
    configs.gem5.smap_models.model_args read back."""
    param = smap_models.MODEL_PARAM
    return next((a[len(param):] for a in args if a.startswith(param)), "")
