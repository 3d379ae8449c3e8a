"""Cache folders sealed with their files' digests when they were written.

A finished folder appears by atomic rename (lab/cache.py), so a killed
writer never leaves one; but its files can still be damaged after the
fact: a full disk or a crash truncating what the kernel had not yet
written back, a bad block, a hand that edited one. gem5 restores a
damaged checkpoint without a word, or dies deep in its restore, and
either way the numbers are not the study's. So a folder whose files a
simulator will read back is sealed: SEAL, beside them, holds each file's
sha256 in sha256sum's format (`sha256sum -c SEAL` checks it by hand),
and its reader asks broken() before it trusts the folder.
"""

from pathlib import Path

from lab import cache

SEAL = "SHA256SUMS"


def _files(folder: Path, part: str) -> list:
    return sorted(p for p in (folder / part).rglob("*") if p.is_file())


def seal(folder: Path, part: str) -> None:
    """Record the sha256 of every file under folder/part in folder/SEAL."""
    lines = [f"{cache.file_sha256(p)}  {p.relative_to(folder)}\n" for p in _files(folder, part)]
    cache.write_atomic(folder / SEAL, "".join(lines))


def sealed(folder: Path) -> bool:
    return (folder / SEAL).is_file()


def broken(folder: Path, part: str) -> str:
    """What differs from the seal in folder/part: "" where every file is
    there with the sha256 it was written with and no other file is."""
    recorded = {}
    for line in (folder / SEAL).read_text().splitlines():
        digest, _, name = line.partition("  ")
        recorded[name] = digest
    if not recorded:
        return f"{SEAL} lists no file"
    now = {str(p.relative_to(folder)): p for p in _files(folder, part)}
    for name, digest in sorted(recorded.items()):
        if name not in now:
            return f"{name} is missing"
        if cache.file_sha256(now[name]) != digest:
            size = now[name].stat().st_size
            return (f"{name} ({size:,} bytes) does not have the sha256 it was written with "
                    f"(truncated or changed)")
    extra = sorted(set(now) - set(recorded))
    return f"{extra[0]} was not there when it was written" if extra else ""
