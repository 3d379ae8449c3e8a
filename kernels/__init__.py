"""Stage 1: pinned Linux source + config fragments + variant patches -> kernels.

Public entry: kernels.build.build_kernel(arch, variant) -> KernelArtifact.
"""
