"""Stage 2: the root filesystem.

This folder is a Buildroot external tree (external.desc, Config.in,
external.mk, configs/, package/, board/) for users with Buildroot and a
network, plus the offline assembler (assemble.py) that builds the same
image here from Debian's compilers. Public entry:
buildroot.assemble.build_image(arch, job) -> ImageArtifact.
"""
