"""The content-addressed cache and atomic publishing.

Artifacts (kernels, images, runs) live under one root, outside the
checkout so a fresh clone reuses them: $UACCESS_CACHE, else
$XDG_CACHE_HOME/uaccess-lab, else ~/.cache/uaccess-lab.

Every artifact is built in a temporary sibling directory and renamed into
place only when complete, so a killed build never leaves something that
looks finished. A directory is finished iff it exists under its key.
"""

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import socket
import tempfile
from pathlib import Path

from lab import inputs


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a symlink loop: check_root names it
        return path.absolute()


def cache_root() -> Path:
    env = os.environ.get("UACCESS_CACHE")
    if env:
        return _resolved(Path(env).expanduser())
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return _resolved(base / "uaccess-lab")


# The cache's layout: each stage's folder under the root, named once, with
# the module that owns it (the only one that writes there; others ask it).
AREAS = {
    "src": "kernels/source.py: the pinned Linux source, unpacked and memoised",
    "work": "kernels/build.py: the build trees, one per arch and source",
    "kernels": "kernels/build.py: built kernels, by key",
    "patch-variants": "kernels/variants.py: the variants predict makes of one patch file",
    "images": "buildroot/assemble.py: root filesystems, by key",
    "buildroot": "buildroot/: Buildroot trees, toolchains, downloads, builds",
    "plugins": "configs/qemu/plugin_build.py: the TCG plugin, per QEMU",
    "runs": "configs/runs.py: finished runs, by key",
    "gem5": "configs/gem5/setup.py: the gem5 tree that gem5 setup makes",
    "gem5-checkpoints": "configs/gem5/spec.py: boot checkpoints, by key",
    "gem5-traces": "configs/gem5/process.py: ROI instruction traces, by checkpoint",
    "gem5-simpoint": "configs/gem5/sampling.py: SimPoint's steps, by key",
    "slurm": "configs/slurm/: the single-node cluster and the jobs' folders",
}


def area(name: str) -> Path:
    """A stage's folder in the cache (AREAS says whose each one is)."""
    if name not in AREAS:
        raise KeyError(f"no cache area {name!r}: add it to lab.cache.AREAS")
    return cache_root() / name


def failed_path(name: str, what: str) -> Path:
    """Where area `name` keeps what a failed step left (its log, its
    files) for the user to read: <area>/failed/<what>, its folder made."""
    path = area(name) / "failed" / what
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def check_root(write: bool = True) -> Path:
    """The cache root, checked before any work: a folder this user can
    write, or one that can be made (write=False: a folder, or absent)."""
    setting = ("UACCESS_CACHE" if os.environ.get("UACCESS_CACHE") else
               "XDG_CACHE_HOME" if os.environ.get("XDG_CACHE_HOME") else "the default")
    return inputs.output_dir(cache_root(), f"the cache ({setting})", write)


def content_key(inputs: dict) -> str:
    """A stable hash of everything that determines an artifact."""
    blob = json.dumps(inputs, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(blob).hexdigest()[:20]


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@contextlib.contextmanager
def locked(lock_path: Path):
    """Hold an exclusive advisory lock; concurrent run.py processes queue."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _owner() -> str:
    """This process, as temporary directories name it: host-pid."""
    return f"{socket.gethostname().replace('.', '_')}-{os.getpid()}"


# .<name>.<host>-<pid>.<random>: a staging folder and who made it.
_STAGING = re.compile(r"^\.(?P<name>.+)\.(?P<host>[^.]+)-(?P<pid>\d+)\.[^.]+$")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def temp_dir(final: Path) -> Path:
    """A new temporary sibling of `final`, named for its owner, after
    removing what killed runs left there (clean_leftovers)."""
    final.parent.mkdir(parents=True, exist_ok=True)
    clean_leftovers(final.parent)
    return Path(tempfile.mkdtemp(prefix=f".{final.name}.{_owner()}.", dir=final.parent))


def clean_leftovers(folder: Path) -> list:
    """Remove the temporary folders in `folder` whose owner on this host is
    gone (a run or a build killed with -9): a killed process cannot clean
    up, so the next one does. Another host's folders (a Slurm node on a
    shared cache) and live owners' are left alone. Returns what went."""
    host, gone = _owner().rsplit("-", 1)[0], []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return gone
    for entry in entries:
        m = _STAGING.match(entry.name)
        if m and m["host"] == host and not _alive(int(m["pid"])) and entry.is_dir(
                follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
            gone.append(entry.name)
    return gone


@contextlib.contextmanager
def staging_dir(final: Path):
    """Yield a temporary directory that becomes `final` on clean exit.

    On any exception the temporary directory is removed and `final` is
    untouched. If `final` appeared meanwhile (another process won the
    race), ours is discarded: both are built from the same inputs.
    """
    tmp = temp_dir(final)
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    try:
        os.rename(tmp, final)
    except OSError:
        if final.is_dir():
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            raise


def write_atomic(path: Path, text: str) -> None:
    """Write a file so readers see the old content or the new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_json_atomic(path: Path, data) -> None:
    write_atomic(path, json.dumps(data, indent=2, sort_keys=True) + "\n")
