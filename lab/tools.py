"""Finding the external programs each stage needs, with the fix if absent."""

import functools
import os
import shutil
import subprocess

from lab.errors import UserError

# program -> the Debian package that provides it
PACKAGE_OF = {
    "make": "make",
    "gcc": "gcc",
    "aarch64-linux-gnu-gcc": "gcc-aarch64-linux-gnu",
    "flex": "flex",
    "bison": "bison",
    "bc": "bc",
    "patch": "patch",
    "tar": "tar",
    "xz": "xz-utils",
    "mke2fs": "e2fsprogs",
    "qemu-system-x86_64": "qemu-system-x86",
    "qemu-system-aarch64": "qemu-system-arm",
    "dpkg-query": "dpkg",
    "rsync": "rsync",
    "readelf": "binutils",
    "cpio": "cpio",
    "file": "file",
    "unzip": "unzip",
    "debugfs": "e2fsprogs",
    "autoreconf": "autoconf",
    "automake": "automake",
    "autopoint": "autopoint",
    "dpkg-source": "dpkg-dev",
}


def require(program: str) -> str:
    """Return the program's path, or raise a UserError naming the package."""
    path = shutil.which(program)
    if path is None:
        pkg = PACKAGE_OF.get(program, program)
        raise UserError(f"missing tool '{program}': install it with "
                        f"'sudo apt-get install {pkg}' (or run 'make deps')")
    return path


def first_line(cmd: list) -> str:
    """The first line a command prints (for recording tool versions).
    Asked once per program file: planning a sweep asks for the compiler's
    version per kernel and image, the same answer each time (a program
    replaced on disk, or another one found on PATH, is asked again)."""
    exe = shutil.which(cmd[0])
    try:
        stamp = os.stat(exe).st_mtime_ns if exe else 0
    except OSError:
        stamp = 0
    return _first_line(tuple(cmd), exe, stamp)


@functools.lru_cache(maxsize=256)
def _first_line(cmd: tuple, exe: str, stamp: int) -> str:
    out = subprocess.run(list(cmd), capture_output=True, text=True, check=False)
    text = (out.stdout or out.stderr).strip()
    return text.splitlines()[0] if text else ""


def last_lines(text: str, n: int = 1) -> str:
    """The last n non-empty lines of a tool's output, for a one-line error."""
    lines = [l.strip() for l in (text or "").splitlines() if l.strip()]
    return " | ".join(lines[-n:]) or "no output"
