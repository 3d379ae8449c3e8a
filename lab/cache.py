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
import shutil
import tempfile
from pathlib import Path


def cache_root() -> Path:
    env = os.environ.get("UACCESS_CACHE")
    if env:
        return Path(env).expanduser().resolve()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return (base / "uaccess-lab").resolve()


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


@contextlib.contextmanager
def staging_dir(final: Path):
    """Yield a temporary directory that becomes `final` on clean exit.

    On any exception the temporary directory is removed and `final` is
    untouched. If `final` appeared meanwhile (another process won the
    race), ours is discarded: both are built from the same inputs.
    """
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.", dir=final.parent))
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
