"""Kconfig fragments, for the kernel (CONFIG_) and Buildroot (BR2_) alike.

A fragment is Kconfig's own .config syntax: `PREFIX_X=value` or
`# PREFIX_X is not set`. Fragments merge in order, later ones winning.
Kconfig silently drops a request whose dependencies are unmet, so after a
tree configures itself, verify() names every request that was lost.
"""

import re

from lab.errors import UserError

TREE = {"CONFIG_": "kernel", "BR2_": "Buildroot"}


def parse(text: str, origin: str = "<fragment>", prefix: str = "CONFIG_") -> dict:
    """Map symbol -> value ('n' for not set). Raises on malformed lines."""
    set_line = re.compile(rf"^({prefix}[A-Za-z0-9_]+)=(.*)$")
    unset_line = re.compile(rf"^# ({prefix}[A-Za-z0-9_]+) is not set$")
    values = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        m = set_line.match(line)
        if m:
            values[m.group(1)] = m.group(2)
            continue
        m = unset_line.match(line)
        if m:
            values[m.group(1)] = "n"
            continue
        if line and not line.startswith("#"):
            raise UserError(f"{origin}:{lineno}: not a {TREE[prefix]} config line: {raw!r}")
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


def verify(wanted: dict, dot_config: str, prefix: str = "CONFIG_") -> list:
    """Requests the resulting .config does not honour, as readable strings."""
    got = parse(dot_config, ".config", prefix)
    lost = []
    for sym, val in sorted(wanted.items()):
        have = got.get(sym, "n")
        if have != val:
            lost.append(f"{sym}={val} ({TREE[prefix]} has {have})")
    return lost
