"""Kernel config fragments: which ones make an arch's config.

The fragments (Kconfig syntax, parsed and checked by lab/kconfig.py) merge
in order, later ones winning, and the merged text is handed to
`make allnoconfig` as KCONFIG_ALLCONFIG; after the build configures
itself, verify() names every request the kernel dropped.
"""

from pathlib import Path

from lab import arches
from lab.kconfig import merge, parse

CONFIG_DIR = Path(__file__).resolve().parent / "config"


def fragments_for(arch: str) -> list:
    """The fragment files that make up an arch's config, in merge order."""
    arches.check(arch)
    return [CONFIG_DIR / "base.config", CONFIG_DIR / f"{arch}.config"]


def requested(arch: str, layers: tuple = ()) -> dict:
    """The arch's options, then each layer's fragment (kernels.variants
    layers that carry a `config`), later ones winning."""
    return merge(*(parse(p.read_text(), str(p)) for p in fragments_for(arch)),
                 *(parse(layer.config, f"kernels/layers/{layer.name}/config")
                   for layer in layers if layer.config))

