"""A gem5 run from loose arguments, as the tests want one: the point is
made (and checked) by configs/point.py, with the CPU preset the test made,
the run by the backend, exactly as a sweep's. Only tests (and the
benchmark) build a point this way, so it lives here."""

from configs.gem5 import point as point_mod
from configs import backends
from configs.gem5 import spec as gem5_spec


def run(kernel, image, job, gem5, cpu, cache_preset, smap_model: str = "none",
        timeout: float = gem5_spec.DEFAULT_TIMEOUT, force: bool = False,
        commit_profile: bool = False, warming: str = "none", simpoint=None,
        uop_profile: bool = False) -> dict:
    """Boot to the ROI checkpoint (once per boot group), then simulate the
    ROI on `cpu` (a lab.cpu_presets.CpuPreset, the test's own or a
    folder's), whole or, with `simpoint` (configs.gem5.sampling.Settings),
    sampled; or return the finished record. With warming "functional",
    `image` must be the job-less handoff image (assemble.build_image(...,
    handoff=True)): the job goes to the guest by m5 readfile. The cache
    preset is a folder's, found again by its name."""
    point = point_mod.gem5_point(kernel.arch, kernel.variant, job, cache=cache_preset.name,
                                 smap_model=smap_model, timeout=timeout,
                                 commit_profile=commit_profile, warming=warming,
                                 simpoint=simpoint, made=cpu, uop_profile=uop_profile)
    if point.run.cache != cache_preset:
        raise ValueError(f"cache preset {cache_preset.name} is not the folder's: a point runs "
                         f"a cache preset from configs/gem5-presets/cache")
    return backends.backend_for(point, gem5).run(point, kernel, image, force)
