"""The pinned Linux source: Debian's linux-source-6.1 package.

The source is never committed. kernels/source-pin.toml names the version
and the tarball's sha256 every published record was built from; `make
deps` installs that version, and pinned() refuses another tarball (one
line, before any build) unless UACCESS_LINUX_TARBALL names one on purpose.
We record the package's exact version and the tarball's sha256 with every
build, and extract it once into the cache.
"""

import functools
import os
import re
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

from lab import cache, tools
from lab.errors import UserError

PACKAGE = "linux-source-6.1"
TARBALL = Path(os.environ.get("UACCESS_LINUX_TARBALL",
                              "/usr/src/linux-source-6.1.tar.xz"))
TOP_DIR = "linux-source-6.1"  # the tarball's single top-level directory
PIN_FILE = Path(__file__).resolve().parent / "source-pin.toml"
PIN_COMMAND = "./run.py pin-kernel-source"


@dataclass(frozen=True)
class SourcePin:
    """The version and tarball digest the study is pinned to."""
    package: str
    version: str
    sha256: str


def pin() -> SourcePin:
    data = tomllib.loads(PIN_FILE.read_text())
    return SourcePin(data["package"], data["version"], data["sha256"])


def write_pin(new: SourcePin) -> None:
    """Move the pin (PIN_COMMAND): the file's comments stay, the values change."""
    text = PIN_FILE.read_text()
    for key in ("version", "sha256"):
        text = re.sub(rf'(?m)^{key} = ".*"$', f'{key} = "{getattr(new, key)}"', text)
    PIN_FILE.write_text(text)


@dataclass(frozen=True)
class LinuxSource:
    package_version: str
    tarball: Path
    sha256: str

    def as_record(self) -> dict:
        return {"package": PACKAGE, "version": self.package_version,
                "tarball": str(self.tarball), "sha256": self.sha256}


@functools.lru_cache(maxsize=None)
def pinned() -> LinuxSource:
    want = pin()
    if not TARBALL.is_file():
        raise UserError(f"Linux source tarball {TARBALL} not found: install it "
                        f"with 'make deps' ({PACKAGE}={want.version})")
    found = installed()
    if found.sha256 != want.sha256 and "UACCESS_LINUX_TARBALL" not in os.environ:
        raise UserError(
            f"{PACKAGE} {found.package_version} is installed (sha256 {found.sha256[:12]}), "
            f"but the study is pinned to {want.version} (sha256 {want.sha256[:12]}), the "
            f"source of every published record: 'make deps' installs it; where apt cannot "
            f"serve it, '{PIN_COMMAND}' moves the pin to the installed one (every published "
            f"result must then be re-run)")
    return found


def installed() -> LinuxSource:
    """The tarball on this machine, pinned or not."""
    return LinuxSource(_package_version(), TARBALL, _tarball_sha256(TARBALL))


def _package_version() -> str:
    tools.require("dpkg-query")
    out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", PACKAGE],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0 or not out.stdout:
        # A tarball given through UACCESS_LINUX_TARBALL without the package.
        return "unpackaged"
    return out.stdout.strip()


_unsaved_memo = {}  # the memo to write once something is built


def _memo_path() -> Path:
    return cache.area("src") / "sha256-memo.json"


def _tarball_sha256(path: Path) -> str:
    """sha256 of the tarball, memoised on (size, mtime): hashing 130 MB on
    every run.py call would be wasted time. The memo is written when the
    tree is extracted, not here: planning (a dry run, a key, input that is
    then refused) writes nothing into the cache."""
    st = path.stat()
    memo = _memo_path()
    stamp = f"{path}:{st.st_size}:{st.st_mtime_ns}"
    if memo.is_file():
        import json
        try:
            data = json.loads(memo.read_text())
        except (OSError, ValueError):
            data = {}
        if data.get("stamp") == stamp:
            return data["sha256"]
    digest = cache.file_sha256(path)
    _unsaved_memo.update(stamp=stamp, sha256=digest)
    return digest


def _save_memo() -> None:
    if _unsaved_memo:
        cache.write_json_atomic(_memo_path(), dict(_unsaved_memo))
        _unsaved_memo.clear()


def tree_path(src: LinuxSource) -> Path:
    """Where the pristine tree of this tarball is extracted (it may not be yet)."""
    return cache.area("src") / f"linux-{src.package_version}-{src.sha256[:12]}"


def extracted(src: LinuxSource) -> Path:
    """The pristine extracted tree for this exact tarball (extracted once)."""
    tools.require("tar")
    tools.require("xz")
    final = tree_path(src)
    _save_memo()
    if final.is_dir():
        return final
    with cache.locked(final.parent / (final.name + ".lock")):
        if final.is_dir():
            return final
        with cache.staging_dir(final) as tmp:
            run = subprocess.run(["tar", "-xf", str(src.tarball), "-C", str(tmp),
                                  "--strip-components=1"], capture_output=True, text=True)
            if run.returncode != 0:
                raise UserError(f"extracting {src.tarball} failed: {run.stderr.strip()[:200]} "
                                f"(reinstall {PACKAGE}, check free disk space)")
    return final


def copy_files(src: LinuxSource, rels: list, dest: Path) -> None:
    """The pristine copies of `rels` (paths in the tree; those the tree
    lacks are skipped) under `dest`: from the extracted tree where it is
    here, else read out of the tarball alone, so that checking a patch
    (./run.py predict) writes nothing into the cache."""
    final = tree_path(src)
    if final.is_dir():
        for rel in rels:
            if (final / rel).is_file():
                (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                (dest / rel).write_bytes((final / rel).read_bytes())
        return
    tools.require("tar")
    tools.require("xz")
    # Names the tarball lacks make tar fail; they are new files, left out.
    subprocess.run(["tar", "-xf", str(src.tarball), "-C", str(dest), "--strip-components=1",
                    "--ignore-failed-read", *[f"{TOP_DIR}/{r}" for r in rels]],
                   capture_output=True, text=True)


def path_list(src: LinuxSource) -> Path:
    """The source tree's path list (for the lstat storm's kernel-tree mode),
    cached next to the extracted tree."""
    out = cache.area("src") / f"paths-{src.sha256[:12]}.txt"
    _save_memo()
    if out.is_file():
        return out
    run = subprocess.run(["tar", "-tf", str(src.tarball)], capture_output=True, text=True)
    if run.returncode != 0:
        raise UserError(f"listing {src.tarball} failed: {run.stderr.strip()[:200]}")
    listing = run.stdout
    prefix = TOP_DIR + "/"
    lines = [l[len(prefix):] for l in listing.splitlines()
             if l.startswith(prefix) and len(l) > len(prefix)]
    cache.write_atomic(out, "\n".join(lines) + "\n")
    return out
