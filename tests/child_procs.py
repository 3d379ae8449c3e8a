"""The processes a test's run.py started, read from /proc: for the fault
tests that kill a simulator mid-run and look for what it left."""

from pathlib import Path


def children(parent: int):
    """(pid, command name, argv) of each live child of process `parent`."""
    for d in Path("/proc").iterdir():
        try:
            stat = (d / "stat").read_text()
            argv = (d / "cmdline").read_bytes().decode().split("\0")
        except (OSError, ValueError):
            continue
        # The name sits in parentheses and may hold spaces; the parent pid
        # is the second field after it.
        comm, ppid = stat[stat.index("(") + 1:stat.rindex(")")], stat.rsplit(")", 1)[1].split()[1]
        if int(ppid) == parent:
            yield int(d.name), comm, argv
