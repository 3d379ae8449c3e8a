"""Simulator processes that never outlive the run.py that started them.

A QEMU or gem5 child reparented to init would run on after kill -9 of
run.py, with nothing left to enforce its point's timeout (seen: QEMU at
full CPU a minute later, half an hour of work left). So each child asks
the kernel for SIGKILL when its parent goes (prctl PR_SET_PDEATHSIG,
set between fork and exec). The kernel sends it when the *thread* that
forked the child ends, so a child is started by the thread that then
waits for it, as run() does.

And run.py keeps a list of its children: Ctrl-C (SIGINT to run.py alone,
not to its process group) stops them at once through stop_all(), instead
of leaving each running point to its timeout (hours under gem5).

A child may also be held to a memory limit: its resident memory, read
from /proc every POLL seconds, above the limit stops it as its timeout
does. (Not an rlimit: a gem5 refused an allocation dies wherever that
allocation was, with whatever message, or none; stopped from outside, it
is known why.)
"""

import ctypes
import os
import signal
import subprocess
import threading
import time

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
# Looked up once, here: the child between fork and exec only calls it.
# (Linux only, as everything this lab runs; elsewhere children are only
# stopped by stop_all and by their timeout.)
_prctl = getattr(ctypes.CDLL(None, use_errno=True), "prctl", None)
if _prctl is not None:
    _prctl.argtypes = (ctypes.c_int, ctypes.c_ulong)

_live = set()
_lock = threading.Lock()
stopping = threading.Event()  # set by stop_all: no new child starts
POLL = 0.5  # seconds between two looks at a memory-limited child's memory
_PAGE = os.sysconf("SC_PAGE_SIZE")


def _dies_with(parent: int):
    def preexec():
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)
    return preexec if _prctl is not None else None


def start(cmd: list, **popen_args) -> subprocess.Popen:
    """subprocess.Popen(cmd) that dies with this process, and is known to
    stop_all()."""
    if stopping.is_set():
        raise KeyboardInterrupt
    proc = subprocess.Popen(cmd, preexec_fn=_dies_with(os.getpid()), **popen_args)
    with _lock:
        _live.add(proc)
    return proc


def resident_bytes(pid: int) -> int:
    """Process `pid`'s resident memory now (0 where it has ended)."""
    try:
        return int(open(f"/proc/{pid}/statm").read().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0


def _wait(proc: subprocess.Popen, timeout: float, memory_limit: int) -> str:
    """Wait for `proc` to end: "" where it did, else why it was stopped
    ("timeout", "memory": resident memory above `memory_limit` bytes)."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        try:
            proc.wait(timeout=max(0, min(left, POLL)) if memory_limit else left)
            return ""
        except subprocess.TimeoutExpired:
            pass
        if memory_limit and resident_bytes(proc.pid) > memory_limit:
            return "memory"
        if time.monotonic() >= deadline:
            return "timeout"


def run(cmd: list, timeout: float, memory_limit: int = 0, **popen_args) -> tuple:
    """Run `cmd` to its end, its timeout, or (memory_limit > 0) until its
    resident memory exceeds memory_limit bytes: (return code, "" or why
    it was stopped: "timeout" or "memory"). Any exception in the waiting
    thread (KeyboardInterrupt) kills it first; a child stopped by
    stop_all() raises KeyboardInterrupt here."""
    proc = start(cmd, **popen_args)
    try:
        stopped = _wait(proc, timeout, memory_limit)
        if stopped:
            proc.kill()
            proc.wait()
        if stopping.is_set():
            raise KeyboardInterrupt
        return proc.returncode, stopped
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    finally:
        with _lock:
            _live.discard(proc)


def stop_all() -> int:
    """Kill every child still running (Ctrl-C): how many there were."""
    stopping.set()
    with _lock:
        procs = list(_live)
    for proc in procs:
        try:
            proc.kill()
        except OSError:
            pass
    return len(procs)
