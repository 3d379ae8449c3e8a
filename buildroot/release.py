"""The Buildroot tree the image builder runs, and where it comes from.

As `./run.py gem5 setup` does for gem5, the project gets Buildroot itself:

  $BUILDROOT_HOME   yours: an unpacked Buildroot tree (any version; its
                    version is recorded), or the release tarball
  the cache         the release, once unpacked (<cache>/buildroot/tree/)
  online            the official release from buildroot.org

`./run.py buildroot setup [--source TARBALL|URL|TREE]` does it before a
build (offline: a tarball or a tree you copied over). Every tarball, local
or downloaded, must be the release: its sha256 is checked against the one
pinned here, and a file that differs is refused in one line, nothing kept.
A tree given to setup is remembered in the cache, as BUILDROOT_HOME would.
"""

import contextlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from lab import cache, tools
from lab.errors import UserError

VERSION = "2024.02.13"  # the LTS release the external tree is written for
TARBALL = f"buildroot-{VERSION}.tar.xz"
URL = f"https://buildroot.org/downloads/{TARBALL}"
# The sha256 of the 2024.02.13 tarball this project was built and tested
# with (2026-11-28): an archive of Buildroot's git tag 2024.02.13. Not yet
# checked against the .sign file buildroot.org publishes beside its
# release (no route to it from where this was written): if the two
# differ, an online setup is refused in one line and the fix is to
# re-pin this value from that .sign file.
SHA256 = "7e712b72dc859b95b2b45ac83259287f562928a68aaf5df9088f21bf94a026a9"
TIMEOUT = 60  # seconds without a byte before a download gives up
WHAT_TO_DO = (f"run './run.py buildroot setup' online (it gets {URL}), or offline give it "
              f"the tarball or an unpacked tree: './run.py buildroot setup --source PATH' "
              f"(or set BUILDROOT_HOME=PATH)")


def _is_tree(path: Path) -> bool:
    return (path / "Makefile").is_file() and (path / "support" / "scripts").is_dir()


def _remembered() -> Path:
    """Where `buildroot setup --source TREE` notes the tree it was given."""
    return cache.area("buildroot") / "home.json"


def _unpacked() -> Path:
    return cache.area("buildroot") / "tree" / SHA256[:16]


def _release_identity(path: Path) -> dict:
    # The same for every route to the release, so a build's cache key does
    # not depend on where the tarball came from.
    return {"tarball": TARBALL, "sha256": SHA256, "version": version(path)}


def version(path: Path) -> str:
    m = re.search(r"^export BR2_VERSION := (\S+)", (path / "Makefile").read_text(), re.M)
    return m.group(1) if m else "unknown"


def available() -> bool:
    """Whether tree(fetch=False) has a tree to give (a cheap look: nothing
    unpacked, nothing checked)."""
    return bool(os.environ.get("BUILDROOT_HOME")) or _remembered().is_file() or \
        _is_tree(_unpacked())


def tree(fetch: bool = True) -> tuple:
    """(path, identity) of the Buildroot tree to build with: BUILDROOT_HOME,
    a tree setup was given, the release unpacked in the cache, else the
    release got now (online, unless `fetch` is False); a UserError saying what to do when there is none."""
    home = os.environ.get("BUILDROOT_HOME")
    if home:
        return _given(home, "BUILDROOT_HOME=" + home, "point it at one, or unset it")
    if _remembered().is_file():
        noted = json.loads(_remembered().read_text())["home"]
        return _given(noted, f"the tree 'buildroot setup' was given ({noted})",
                      "run './run.py buildroot setup --source' again")
    if _is_tree(_unpacked()):
        return _unpacked(), _release_identity(_unpacked())
    if not fetch:
        raise UserError(f"no Buildroot {VERSION} yet: {WHAT_TO_DO}")
    return _unpack(download(URL), URL), _release_identity(_unpacked())


def _given(value: str, said: str, fix: str) -> tuple:
    """A tree, or the release tarball, named by the user."""
    path = Path(value).expanduser().resolve()
    if path.is_file():
        _unpack(path, said)
        return _unpacked(), _release_identity(_unpacked())
    if not _is_tree(path):
        raise UserError(f"{said} is not a Buildroot tree (no Makefile and support/scripts) "
                        f"nor its release tarball: {fix}")
    return path, {"home": str(path), "version": version(path)}


def setup(source: str = "") -> tuple:
    """`./run.py buildroot setup`: the tree from `source` (a tarball, a URL
    or a tree), else as a build would get it; (path, identity)."""
    if not source:
        return tree()
    if not Path(source).expanduser().is_dir():  # the release: no tree noted any more
        with contextlib.suppress(FileNotFoundError):
            _remembered().unlink()
    if source.startswith(("http://", "https://")):
        return _unpack(download(source), source), _release_identity(_unpacked())
    path = Path(source).expanduser().resolve()
    if path.is_file():
        return _unpack(path, source), _release_identity(_unpacked())
    if not _is_tree(path):
        raise UserError(f"--source {source} is not a Buildroot tree (no Makefile and "
                        f"support/scripts), its release tarball ({TARBALL}) or a URL: "
                        f"give one of those")
    cache.write_json_atomic(_remembered(), {"home": str(path)})
    return path, {"home": str(path), "version": version(path)}


def _check(path: Path, origin: str) -> None:
    got = cache.file_sha256(path)
    if got != SHA256:
        raise UserError(f"{origin} has sha256 {got[:16]}..., not Buildroot {VERSION}'s "
                        f"{SHA256[:16]}... ({TARBALL} as buildroot.org publishes it): get "
                        f"that file, or give an unpacked tree (BUILDROOT_HOME)")


def _unpack(tarball: Path, origin: str) -> Path:
    """The release unpacked into the cache from `tarball`, once it is
    checked to be the release."""
    final = _unpacked()
    if _is_tree(final):
        return final
    _check(tarball, origin)
    tools.require("tar")
    final.parent.mkdir(parents=True, exist_ok=True)
    with cache.staging_dir(final) as tmp:
        subprocess.run(["tar", "xf", str(tarball), "-C", str(tmp), "--strip-components=1"],
                       check=True)
    return final


def download(url: str) -> Path:
    """`url` into the cache's downloads, checked; a file that is not the
    release, or no answer, is one UserError and leaves nothing behind."""
    dest = cache.area("buildroot") / "downloads" / TARBALL
    if dest.is_file() and cache.file_sha256(dest) == SHA256:
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{TARBALL}.", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            with urllib.request.urlopen(url, timeout=TIMEOUT) as answer:
                shutil.copyfileobj(answer, out, 1 << 20)
        _check(Path(tmp), url)
        os.replace(tmp, dest)
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", None) or e
        raise UserError(f"no Buildroot {VERSION}: {url} could not be fetched ({reason}): "
                        f"{WHAT_TO_DO}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return dest
