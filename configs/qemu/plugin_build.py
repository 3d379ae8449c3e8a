"""Build the profiling TCG plugin (configs/qemu/plugin/) against the
installed QEMU, through the cache: keyed by the plugin's sources, the QEMU
version whose API it declares, and the compiler."""

import functools
import hashlib
import subprocess
from pathlib import Path

from configs.qemu import process
from lab import cache, tools
from lab.errors import UserError

PLUGIN_DIR = Path(__file__).resolve().parent / "plugin"
LIBRARY = "libuaccess_profile.so"


def sources_digest() -> str:
    h = hashlib.sha256()
    for p in sorted(PLUGIN_DIR.iterdir()):
        if p.is_file() and p.suffix in (".c", ".h") or p.name == "Makefile":
            h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def key(binary: str) -> str:
    return cache.content_key({"plugin": sources_digest(),
                              "qemu": process.version(binary),
                              "cc": tools.first_line(["gcc", "--version"])})


@functools.lru_cache(maxsize=None)
def build(binary: str) -> Path:
    """The plugin library for the QEMU `binary` (built once, then cached)."""
    tools.require("gcc")
    tools.require("make")
    final = cache.area("plugins") / key(binary)
    if (final / LIBRARY).is_file():
        return final / LIBRARY
    with cache.locked(final.parent / (final.name + ".lock")):
        if (final / LIBRARY).is_file():
            return final / LIBRARY
        with cache.staging_dir(final) as out:
            run = subprocess.run(["make", "-s", "-C", str(PLUGIN_DIR), f"OUT={out}"],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                raise UserError(f"building the QEMU plugin failed: "
                                f"{tools.last_lines(run.stderr or run.stdout)}")
    return final / LIBRARY
