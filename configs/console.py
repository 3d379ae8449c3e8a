"""The console protocol between the image's init and the host.

init and the workloads print lines starting with @@UACCESS- on the serial
console (see buildroot/init/init.c); everything else is the kernel's log.
This module turns a captured console log into facts or one clear failure.
Both simulators' backends use it.
"""

import json
import re
from dataclasses import dataclass, field

_MARK = re.compile(r"@@UACCESS-([A-Z]+)\s?(.*)$")


@dataclass
class ConsoleReport:
    boot: dict = field(default_factory=dict)
    cpu_flags: str = ""
    result: dict = None
    exit_status: str = None
    errors: list = field(default_factory=list)
    panic: str = None
    oops: str = None  # the kernel's first "BUG:" line and its #PF reasons

    def failure(self):
        """Why the run failed, or None if it produced a valid result."""
        if self.panic:
            return f"kernel panic: {self.panic}"
        if self.oops:
            return f"kernel oops: {self.oops}"
        if self.errors:
            return f"init reported: {self.errors[0]}"
        if self.result is None:
            return "no @@UACCESS-RESULT line (did the workload start?)"
        if self.exit_status not in ("status=0", None):
            return f"workload ended with {self.exit_status}"
        if self.result.get("errors"):
            return f"workload saw {self.result['errors']} failed syscalls"
        return None


def parse(text: str) -> ConsoleReport:
    rep = ConsoleReport()
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        if "Kernel panic" in line and rep.panic is None:
            rep.panic = line.split("Kernel panic", 1)[1].lstrip(" -")
        # An oops kills the task, not the kernel: say it, with the page
        # fault's reasons (a SMAP violation reads "supervisor ... access in
        # kernel mode", "permissions violation").
        if rep.oops is None and line.startswith("BUG: "):
            rep.oops = line[5:].strip()
        elif rep.oops is not None and line.startswith("#PF: ") and rep.oops.count("#PF") < 2:
            rep.oops += "; " + line.strip()
        m = _MARK.search(line)
        if not m:
            continue
        kind, rest = m.groups()
        if kind == "BOOT":
            # Values may hold spaces (uname -v does): a value runs to the
            # next " key=".
            rep.boot = dict(re.findall(r"(\w+)=(.*?)(?=\s\w+=|$)", rest))
        elif kind == "CPUFLAGS":
            rep.cpu_flags = rest.strip()
        elif kind == "RESULT":
            try:
                rep.result = json.loads(rest)
            except json.JSONDecodeError:
                rep.errors.append(f"unreadable result line: {rest[:80]}")
        elif kind == "END":
            rep.exit_status = rest.strip()
        elif kind == "ERROR":
            rep.errors.append(rest.strip())
    return rep
