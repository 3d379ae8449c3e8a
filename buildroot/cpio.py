"""A minimal writer and reader for the kernel's initramfs format (cpio "newc").

Written here rather than calling cpio(1) so that the archive is
byte-for-byte reproducible (fixed owners, times and inode numbers) and can
hold /dev/console without root privileges: an entry is only a header.
Format: Documentation/driver-api/early-userspace/buffer-format.rst.
"""

import hashlib
import stat
from dataclasses import dataclass
from pathlib import Path

_MAGIC = b"070701"


def _header(ino: int, mode: int, nlink: int, size: int, name: bytes,
            rdev: tuple = (0, 0)) -> bytes:
    fields = [ino, mode, 0, 0, nlink, 0, size, 0, 0, rdev[0], rdev[1],
              len(name) + 1, 0]
    return _MAGIC + b"".join(b"%08x" % f for f in fields)


def _pad(n: int) -> bytes:
    return b"\0" * (-n % 4)


class CpioWriter:
    def __init__(self, out):
        self.out = out
        self.ino = 1
        self.offset = 0

    def _write(self, data: bytes) -> None:
        self.out.write(data)
        self.offset += len(data)

    def _entry(self, name: str, mode: int, data: bytes = b"", nlink: int = 1,
               rdev: tuple = (0, 0)) -> None:
        raw = name.encode()
        self._write(_header(self.ino, mode, nlink, len(data), raw, rdev) + raw + b"\0")
        self._write(_pad(self.offset))
        self._write(data)
        self._write(_pad(self.offset))
        self.ino += 1

    def add_dir(self, name: str, perm: int = 0o755) -> None:
        self._entry(name, stat.S_IFDIR | perm, nlink=2)

    def add_file(self, name: str, data: bytes, perm: int = 0o644) -> None:
        self._entry(name, stat.S_IFREG | perm, data)

    def add_symlink(self, name: str, target: str) -> None:
        self._entry(name, stat.S_IFLNK | 0o777, target.encode())

    def add_char_device(self, name: str, major: int, minor: int,
                        perm: int = 0o600) -> None:
        self._entry(name, stat.S_IFCHR | perm, rdev=(major, minor))

    def finish(self) -> None:
        self._entry("TRAILER!!!", 0, nlink=1)


def write_tree(root: Path, out_path: Path, devices=()) -> None:
    """Archive the tree under `root` (sorted, so the order is stable), plus
    device nodes given as (path, major, minor)."""
    with open(out_path, "wb") as f:
        w = CpioWriter(f)
        for path in sorted(root.rglob("*")):
            rel = str(path.relative_to(root))
            st = path.lstat()
            perm = stat.S_IMODE(st.st_mode)
            if path.is_symlink():
                w.add_symlink(rel, str(path.readlink()))
            elif path.is_dir():
                w.add_dir(rel, perm)
            else:
                w.add_file(rel, path.read_bytes(), perm)
        for name, major, minor in devices:
            w.add_char_device(name, major, minor)
        w.finish()


@dataclass(frozen=True)
class Entry:
    """One archive member as the kernel unpacks it; `content` is the
    sha256 of a file's bytes or a symlink's target text."""
    mode: int
    uid: int
    gid: int
    content: str = ""
    rdev: tuple = (0, 0)

    def kind(self) -> str:
        return stat.filemode(self.mode)[0]


def read_tree(path: Path) -> dict:
    """{path without a leading './': Entry} of a newc archive (ours or
    cpio(1)'s), for comparing two images."""
    data = Path(path).read_bytes()
    entries, pos = {}, 0
    while True:
        if data[pos:pos + 6] != _MAGIC:
            raise ValueError(f"{path}: not a newc cpio archive at byte {pos}")
        f = [int(data[pos + 6 + 8 * i:pos + 14 + 8 * i], 16) for i in range(13)]
        mode, uid, gid, size, namesize = f[1], f[2], f[3], f[6], f[11]
        pos += 110
        name = data[pos:pos + namesize - 1].decode()
        pos += namesize
        pos += -pos % 4
        body = data[pos:pos + size]
        pos += size
        pos += -pos % 4
        if name == "TRAILER!!!":
            return entries
        name = name[2:] if name.startswith("./") else name
        if name in (".", ""):
            continue
        content = hashlib.sha256(body).hexdigest() if stat.S_ISREG(mode) else (
            body.decode() if stat.S_ISLNK(mode) else "")
        entries[name] = Entry(mode, uid, gid, content, (f[9], f[10]))
