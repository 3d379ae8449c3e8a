"""Kernel config fragments: parse, merge, and check what the kernel kept.

A fragment is the kernel's own .config syntax: `CONFIG_X=value` or
`# CONFIG_X is not set`. Fragments merge in order, later ones winning, and
the merged text is handed to `make allnoconfig` as KCONFIG_ALLCONFIG.
Kconfig silently drops a request whose dependencies are unmet, so after
the build configures itself, verify() names every request that was lost.
"""

import re
from pathlib import Path

from lab.errors import UserError

CONFIG_DIR = Path(__file__).resolve().parent / "config"
ARCHES = ("x86_64", "arm64")

_SET = re.compile(r"^(CONFIG_[A-Za-z0-9_]+)=(.*)$")
_UNSET = re.compile(r"^# (CONFIG_[A-Za-z0-9_]+) is not set$")


def parse(text: str, origin: str = "<fragment>") -> dict:
    """Map symbol -> value ('n' for not set). Raises on malformed lines."""
    values = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        m = _SET.match(line)
        if m:
            values[m.group(1)] = m.group(2)
            continue
        m = _UNSET.match(line)
        if m:
            values[m.group(1)] = "n"
            continue
        if line and not line.startswith("#"):
            raise UserError(f"{origin}:{lineno}: not a kernel config line: {raw!r}")
    return values


def merge(*fragments: dict) -> dict:
    merged = {}
    for frag in fragments:
        merged.update(frag)
    return merged


def render(values: dict) -> str:
    lines = []
    for sym in sorted(values):
        val = values[sym]
        lines.append(f"# {sym} is not set" if val == "n" else f"{sym}={val}")
    return "\n".join(lines) + "\n"


def fragments_for(arch: str) -> list:
    """The fragment files that make up an arch's config, in merge order."""
    if arch not in ARCHES:
        raise UserError(f"unknown arch '{arch}': choose one of {', '.join(ARCHES)}")
    return [CONFIG_DIR / "base.config", CONFIG_DIR / f"{arch}.config"]


def requested(arch: str) -> dict:
    return merge(*(parse(p.read_text(), str(p)) for p in fragments_for(arch)))


def verify(wanted: dict, dot_config: str) -> list:
    """Requests the resulting .config does not honour, as readable strings."""
    got = parse(dot_config, ".config")
    lost = []
    for sym, val in sorted(wanted.items()):
        have = got.get(sym, "n")
        if have != val:
            lost.append(f"{sym}={val} (kernel has {have})")
    return lost
