"""One way to check what users hand us: files they name and values they
write, in TOML files or on the command line. Every check raises UserError
with one line that says where the problem is, what it is, and (where it is
not obvious) what to write instead; run.py turns that into exit code 2.

The file checks run before a file is opened for reading, so a FIFO never
blocks and a directory never becomes a traceback.
"""

import argparse
import errno
import math
import os
import stat
from pathlib import Path

from lab.errors import UserError

BOM = "\ufeff"


def text_file(path, what: str) -> str:
    """The text of `path`, a user's file: a readable, non-empty regular
    file of UTF-8 without a byte-order mark."""
    path = Path(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise UserError(f"{what} {path} not found") from None
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise UserError(f"{what} {path} is a symlink loop") from None
        raise UserError(f"{what} {path}: {e.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise UserError(f"{what} {path} is a directory: name a file in it")
    if not stat.S_ISREG(st.st_mode):
        raise UserError(f"{what} {path} is not a regular file (a FIFO or a device?)")
    try:
        data = path.read_bytes()
    except OSError as e:
        raise UserError(f"{what} {path}: cannot read: {e.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UserError(f"{what} {path}: not UTF-8 (byte {e.start}): save it as UTF-8") from None
    if text.startswith(BOM):
        raise UserError(f"{what} {path} starts with a byte-order mark: save it as UTF-8 "
                        f"without BOM")
    if not text.strip():
        raise UserError(f"{what} {path} is empty")
    return text


def output_dir(path, what: str) -> Path:
    """A folder we will write into: absent (made later) or a directory."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise UserError(f"{what} {path} is not a directory")
    return path


def number(value, where: str, *, positive=False, minimum=None, integer=False,
           maximum=None, why_maximum=""):
    """A finite number (an integer if `integer`), above 0 if `positive`,
    at least `minimum` and at most `maximum` (for the reason
    `why_maximum`) if given. TOML's nan and inf are refused here, so a
    timeout of inf never means 'forever' by accident."""
    kind = "an integer" if integer else "a number"
    ok_type = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, ok_type):
        raise UserError(f"{where} must be {kind}, got {value!r}")
    if not math.isfinite(value):
        raise UserError(f"{where} must be a finite number, got {value!r}")
    if positive and value <= 0:
        raise UserError(f"{where} must be above 0, got {value!r}")
    if minimum is not None and value < minimum:
        raise UserError(f"{where} must be at least {minimum}, got {value!r}")
    if maximum is not None and value > maximum:
        why = f" ({why_maximum})" if why_maximum else ""
        raise UserError(f"{where} must be at most {maximum}{why}, got {value!r}")
    return value


def unique(values: list, where: str) -> list:
    """An axis lists each value once: a repeat would run the point twice."""
    seen = set()
    for v in values:
        key = repr(v)
        if key in seen:
            raise UserError(f"{where}: lists {v!r} twice")
        seen.add(key)
    return values


def cli(parse, what: str):
    """An argparse `type=` from a parser of strings: its failure becomes
    argparse's error (one line, exit 2, see run.py)."""
    def convert(text: str):
        try:
            return parse(text)
        except (UserError, ValueError) as e:
            raise argparse.ArgumentTypeError(f"{what}: {e}") from None
    convert.__name__ = what
    return convert


def seconds(text: str) -> float:
    return number(float(text), "seconds", positive=True)


def count(text: str) -> int:
    """0 (meaning: as many as cores) or more."""
    return number(int(text), "a count", minimum=0, integer=True)


def at_least_one(text: str) -> int:
    return number(int(text), "a count", minimum=1, integer=True)
