"""Stand-ins for a point's built inputs, for tests of keys and specs that
never run gem5: a kernel and an image are only their keys and paths there."""

from pathlib import Path

from configs.gem5 import cache_presets, locate


class Built:
    def __init__(self, key, **paths):
        self.key = key
        self.arch = "x86_64"
        self.__dict__.update(paths)


KERNEL = Built("k1", vmlinux=Path("/k/vmlinux"))
IMAGE = Built("i1", ext2=Path("/i/rootfs.ext2"))
GEM5 = locate.Gem5(Path("/g"), "24.0.0.1")
CACHE = cache_presets.load_cache("classic-l1l2")
