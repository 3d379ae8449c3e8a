"""The Buildroot tree the image builder runs, and where it comes from.

As `./run.py gem5 setup` does for gem5, the project gets Buildroot itself:

  $BUILDROOT_HOME   yours: an unpacked Buildroot tree (any version; its
                    version is recorded), or the release tarball
  the cache         the release, once unpacked (<cache>/buildroot/tree/)
  online            the release tag fetched with git from Buildroot's
                    official repository

`./run.py buildroot setup [--source TARBALL|URL|REPOSITORY|TREE]` does it
before a build (offline: a tarball, a repository or a tree you copied
over). What is pinned is what a user gets, and there are two pins, one
per route: a repository (online, or a clone or mirror given) must have
the release tag at COMMIT; a tarball must have ARCHIVE_SHA256, the digest
of the archive of that commit this project was tested with (not
buildroot.org's own tarball: see ARCHIVE_SHA256). Anything else is
refused in one line, nothing kept. Either route unpacks the same tree. A
tree given to setup is remembered in the cache, as BUILDROOT_HOME would.
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
# Buildroot's official git repository (buildroot.org/download; github.com/
# buildroot/buildroot mirrors it): what an online setup fetches the tag from.
REPOSITORY = "https://gitlab.com/buildroot.org/buildroot.git"
# The online pin: the commit Buildroot's signed tag 2024.02.13 names ("Release
# 2024.02.13", tagger Arnout Vandecappelle, tag object d007a2b117a6...), read
# 2026-11-29 from a clone of github.com/buildroot/buildroot. A commit id digests
# the whole tree, so a clone whose tag is this commit is the release, whoever
# served it.
COMMIT = "e687e3815f76c1c5ea9fb52b6558bedfe53ab117"
# The offline pin: the sha256 of the tarball this project was built and tested
# with (2026-11-28), ../shared/third-party's buildroot-2024.02.13.tar.xz: a `git
# archive` of COMMIT (its pax header says comment=e687e381...), so the tree it
# unpacks is the one the online route checks out. It is NOT buildroot.org's
# release tarball (https://buildroot.org/downloads/buildroot-2024.02.13.tar.xz),
# a different file (the tag's Makefile: `make release` appends the generated
# manual to the git archive), whose sha256 buildroot.org publishes in the
# .sign file beside it, not reachable from where this was written: that file
# is refused until its published digest is pinned here too (its tree, given
# unpacked, is taken as any tree is; the tag, fetched with git, is checked).
ARCHIVE_SHA256 = "7e712b72dc859b95b2b45ac83259287f562928a68aaf5df9088f21bf94a026a9"
TIMEOUT = 60  # seconds without a byte before a download gives up
# A --source that names a tarball by URL; any other remote one is a repository.
TARBALL_URL = re.compile(r"^https?://.*\.tar(\.(xz|gz|bz2))?$")
REMOTE = re.compile(r"^(https?|git|ssh|file)://|^[\w.-]+@[\w.-]+:")
WHAT_TO_DO = (f"run './run.py buildroot setup' online (it fetches tag {VERSION} from "
              f"{REPOSITORY} with git), or offline give it a clone of that repository, the "
              f"tarball or an unpacked tree: './run.py buildroot setup --source PATH' (or set "
              f"BUILDROOT_HOME=PATH)")


def _is_tree(path: Path) -> bool:
    return (path / "Makefile").is_file() and (path / "support" / "scripts").is_dir()


def _is_repository(path: Path) -> bool:
    """A bare repository, or a clone's .git (a clone's work tree is a tree)."""
    return (path / "HEAD").is_file() and (path / "objects").is_dir()


def _remembered() -> Path:
    """Where `buildroot setup --source TREE` notes the tree it was given."""
    return cache.area("buildroot") / "home.json"


def _unpacked() -> Path:
    return cache.area("buildroot") / "tree" / ARCHIVE_SHA256[:16]


def _release_identity(path: Path) -> dict:
    # The same for every route to the release (the archive of COMMIT names
    # the tree either route unpacks), so a build's cache key does not
    # depend on where the release came from.
    return {"tarball": TARBALL, "sha256": ARCHIVE_SHA256, "version": version(path)}


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
    release fetched now (online, unless `fetch` is False); a UserError
    saying what to do when there is none."""
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
    return clone(REPOSITORY), _release_identity(_unpacked())


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
    """`./run.py buildroot setup`: the tree from `source` (a tarball or its
    URL, a repository or its URL, or a tree), else as a build would get
    it; (path, identity)."""
    if not source:
        return tree()
    path = Path(source).expanduser().resolve()
    if TARBALL_URL.match(source):
        got = _unpack(download(source), source)
    elif REMOTE.match(source) or _is_repository(path):
        got = clone(source)
    elif path.is_file():
        got = _unpack(path, source)
    elif _is_tree(path):
        cache.write_json_atomic(_remembered(), {"home": str(path)})
        return path, {"home": str(path), "version": version(path)}
    else:
        raise UserError(f"--source {source} is not a Buildroot tree (no Makefile and "
                        f"support/scripts), a git repository, the tarball ({TARBALL}) or a "
                        f"URL to one of those: give one of those")
    with contextlib.suppress(FileNotFoundError):  # the release: no tree noted any more
        _remembered().unlink()
    return got, _release_identity(got)


def _check(path: Path, origin: str) -> None:
    got = cache.file_sha256(path)
    if got != ARCHIVE_SHA256:
        raise UserError(f"{origin} has sha256 {got[:16]}..., not {ARCHIVE_SHA256[:16]}..., "
                        f"the archive of Buildroot {VERSION}'s commit {COMMIT[:12]} this "
                        f"project pins (buildroot.org's own {TARBALL} is not pinned): give "
                        f"that file, a clone of {REPOSITORY} (--source), or an unpacked tree "
                        f"(BUILDROOT_HOME)")


def _unpack(tarball: Path, origin: str) -> Path:
    """The release unpacked into the cache from `tarball`, once it is
    checked to be the pinned archive."""
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


def _git(args: list, what: str) -> str:
    # No prompt for credentials: a repository that asks for them is one
    # that is not there.
    proc = subprocess.run(["git", *args], capture_output=True, text=True,
                          env=dict(os.environ, GIT_TERMINAL_PROMPT="0"))
    if proc.returncode:
        raise UserError(f"no Buildroot {VERSION}: {what} ({tools.last_lines(proc.stderr)}): "
                        f"{WHAT_TO_DO}")
    return proc.stdout.strip()


def clone(repository: str) -> Path:
    """The release from `repository` (a URL, a clone or a bare mirror):
    its tag VERSION, checked to be COMMIT, unpacked into the cache; a
    repository without the tag, or whose tag is another commit, is one
    UserError and leaves nothing behind."""
    final = _unpacked()
    if _is_tree(final):
        return final
    tools.require("git")
    work = cache.temp_dir(final.with_name("clone"))  # a killed setup's is cleaned by the next
    try:
        git = str(work / "git")
        _git(["init", "--quiet", "--bare", git], f"git init in {work} failed")
        _git(["--git-dir", git, "fetch", "--quiet", "--depth", "1", repository,
              f"refs/tags/{VERSION}:refs/tags/{VERSION}"],
             f"tag {VERSION} could not be fetched from {repository}")
        got = _git(["--git-dir", git, "rev-parse", f"{VERSION}^{{commit}}"],
                   f"{repository}'s tag {VERSION} names no commit")
        if got != COMMIT:
            raise UserError(f"{repository}'s tag {VERSION} is commit {got[:12]}, not "
                            f"Buildroot's {COMMIT[:12]}: fetch it from {REPOSITORY}, or give "
                            f"the release offline (--source)")
        with cache.staging_dir(final) as tmp:
            archive = subprocess.Popen(["git", "--git-dir", git, "archive", COMMIT],
                                       stdout=subprocess.PIPE)
            subprocess.run(["tar", "xf", "-", "-C", str(tmp)], stdin=archive.stdout,
                           check=True)
            archive.stdout.close()
            if archive.wait():
                raise UserError(f"git archive {COMMIT[:12]} from {repository} failed: "
                                f"{WHAT_TO_DO}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return final


def download(url: str) -> Path:
    """The tarball at `url` into the cache's downloads, checked; a file
    that is not the pinned archive, or no answer, is one UserError and
    leaves nothing behind."""
    dest = cache.area("buildroot") / "downloads" / TARBALL
    if dest.is_file() and cache.file_sha256(dest) == ARCHIVE_SHA256:
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
