"""One way to check what users hand us: files they name and values they
write, in TOML files or on the command line. Every check raises UserError
with one line that says where the problem is, what it is, and (where it is
not obvious) what to write instead; run.py turns that into exit code 2.

The file checks run before a file is opened for reading, so a FIFO never
blocks and a directory never becomes a traceback.
"""

import argparse
import contextlib
import errno
import math
import os
import stat
import tempfile
import threading
from pathlib import Path

from lab.errors import UserError

BOM = "\ufeff"
# Integers are 64-bit signed everywhere they go: TOML's range (tomllib
# does not enforce it), the guest's job values (jobconf.h reads long
# long), gem5's counters. A bigger one is a typo, never a plan.
INT64_MAX = 2**63 - 1
# The longest wait this Python can make: its clock counts nanoseconds in a
# signed 64-bit integer (threading.TIMEOUT_MAX, about 292 years). A
# timeout beyond it is never reached, so it means "no timeout" by accident.
MAX_SECONDS = int(threading.TIMEOUT_MAX)


# The largest input file a user may give (a sweep file, a script, a
# preset): the lab's own are a few KiB; a file far larger is a mistake
# (an axis of a million values takes seconds to parse before it fails).
MAX_INPUT_BYTES = 256 * 1024


def regular_file(path, what: str, where_found: str = "") -> os.stat_result:
    """The stat of `path`, checked before it is opened: it exists and is a
    regular file (a FIFO would block, a directory would be a traceback).
    Shared by a person's files (text_file) and the study's own (lab/datafile.py)."""
    path = Path(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise UserError(f"{what} {path} not found: "
                        + (where_found or "give the path of an existing file")) from None
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise UserError(f"{what} {path} is a symlink loop") from None
        raise UserError(f"{what} {path}: {e.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise UserError(f"{what} {path} is a directory: name a file in it")
    if not stat.S_ISREG(st.st_mode):
        raise UserError(f"{what} {path} is not a regular file (a FIFO or a device?)")
    return st


def text_file(path, what: str, where_found: str = "") -> str:
    """The text of `path`, a user's file: a readable, non-empty regular
    file of UTF-8 without a byte-order mark, at most MAX_INPUT_BYTES;
    `where_found` says where such files are, for the not-found line.
    Files the study writes itself (vectors, statistics, records) are data,
    not this: lab/datafile.py reads them without a cap."""
    path = Path(path)
    st = regular_file(path, what, where_found)
    if st.st_size > MAX_INPUT_BYTES:
        raise UserError(f"{what} {path} is {st.st_size:,} bytes, more than the "
                        f"{MAX_INPUT_BYTES // 1024} KiB any file of this lab needs: split it "
                        f"(a sweep's long axis into several sweeps)")
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


def one_line(text: str) -> str:
    """`text` with control characters (a newline in a path or a name)
    written as escapes, so an error stays one line."""
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in str(text))


def short(text, most: int = 60) -> str:
    """A long path or name as an error shows it: its start and its end."""
    text = one_line(text)
    return text if len(text) <= most else f"{text[:most - 20]}...{text[-17:]}"


def _name_limits(folder: Path) -> tuple:
    """(longest file name, longest path) of the filesystem holding `folder`."""
    try:
        return os.pathconf(folder, "PC_NAME_MAX"), os.pathconf(folder, "PC_PATH_MAX")
    except (OSError, ValueError):
        return 255, 4096  # Linux's NAME_MAX and PATH_MAX


def output_dir(path, what: str, write: bool = True) -> Path:
    """A folder we will write into: a writable directory, or one that can
    be made (every name fits the filesystem, and the deepest existing
    folder on its way is a writable directory). Checked without leaving
    anything behind: a probe folder is made there and removed at once.
    write=False (a dry run reads it only): a directory, or absent."""
    text = str(path)
    if not text.strip():
        raise UserError(f"{what} is empty: name a folder")
    if "\0" in text:
        raise UserError(f"{what} {short(text)!r} holds a NUL byte: name a folder")
    # A control character (a newline from a pasted line, a tab) is valid
    # in a name but never meant, and breaks every line that prints it.
    bad = next((c for c in text if ord(c) < 32 or ord(c) == 127), None)
    if bad is not None:
        raise UserError(f"{what} {short(text)!r} holds a control character ({bad!r}): name "
                        f"a folder without one")
    path = Path(path)
    absolute = path.absolute()
    # Walk down from the root: the deepest folder that exists, and what
    # stands in the way (a file where a folder should be).
    existing = Path(absolute.anchor)
    name_max, path_max = _name_limits(existing)
    for part in absolute.parts[1:]:
        if len(os.fsencode(part)) > name_max:
            raise UserError(f"{what} {short(path)}: the name {short(part, 30)} is "
                            f"{len(part)} characters, more than the {name_max} its "
                            f"filesystem allows: choose a shorter one")
        nxt = existing / part
        try:
            st = os.stat(nxt)
        except FileNotFoundError:
            break
        except OSError as e:
            if e.errno == errno.ELOOP:
                raise UserError(f"{what} {short(path)}: {short(nxt)} is a symlink loop") from None
            raise UserError(f"{what} {short(path)}: {short(nxt)}: {e.strerror}") from None
        if not stat.S_ISDIR(st.st_mode):
            where = "is not a directory" if nxt == absolute else \
                f"holds the file {short(nxt)} where a folder should be"
            raise UserError(f"{what} {short(path)} {where}: name a folder")
        existing = nxt
        name_max, path_max = _name_limits(existing)
    if len(os.fsencode(str(absolute))) >= path_max:
        raise UserError(f"{what} {short(path)}: {len(str(absolute))} characters, more "
                        f"than the {path_max - 1} a path may have: choose a shorter one")
    if not write:
        return path
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".uaccess-probe-", dir=existing))
    except OSError as e:
        made = "" if existing == absolute else f"it cannot be made under {existing}: "
        raise UserError(f"{what} {short(path)}: {made}{e.strerror.lower()}: choose a "
                        f"folder you can write") from None
    return path


def number(value, where: str, *, positive=False, minimum=None, integer=False,
           maximum=None, why_maximum=""):
    """A finite number (an integer if `integer`), above 0 if `positive`,
    at least `minimum` and at most `maximum` (for the reason
    `why_maximum`) if given. TOML's nan and inf are refused here, so a
    timeout of inf never means 'forever' by accident."""
    kind = "an integer" if integer else "a number"
    ok_type = (int,) if integer else (int, float)
    if integer and maximum is None:
        maximum, why_maximum = INT64_MAX, "the largest 64-bit integer"
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
        raise UserError(f"{where} must be at most {maximum}{why}, got {_show(value)}")
    return value


def _show(value) -> str:
    """A number as the error shows it: huge integers in powers of ten."""
    if isinstance(value, int) and abs(value) >= 10**15:
        return f"{value:.3g}"
    return repr(value)


def timeout(value, where: str) -> float:
    """Seconds a run may take: above 0, finite, and a wait Python can make."""
    return number(value, where, positive=True, maximum=MAX_SECONDS,
                  why_maximum="2^63 ns, the longest wait Python's clock can count")


def flag(value, where: str) -> bool:
    """A TOML boolean: 1 or "yes" is refused, not taken for true."""
    if not isinstance(value, bool):
        raise UserError(f"{where} must be true or false, got {short(repr(value))}")
    return value


def name_in(value, names, what: str, where: str = ""):
    """`value`, a name from a closed set the study keeps (an arch, a
    variant, a workload, a preset), or the one error every stage gives
    for it: "unknown WHAT 'x': choose one of ..." (after `where`, the
    file that named it, when there is one)."""
    names = tuple(names)
    if not isinstance(value, str) or value not in names:
        raise UserError(f"{where + ': ' if where else ''}unknown {what} "
                        f"{short(repr(value))}: choose one of {', '.join(names) or 'none'}")
    return value


def known_keys(table: dict, keys, where: str, section: str = "") -> dict:
    """`table`, a TOML table whose keys its reader all knows (the table
    [`section`] of the file `where`): a typo is named, as its dotted key,
    with the keys it could have been."""
    keys = tuple(keys)
    for key in table:
        if key not in keys:
            name = f"{section}.{key}" if section else key
            raise UserError(f"{where}: unknown key {name!r} (valid: {', '.join(keys)})")
    return table


def table(value, where: str, name: str) -> dict:
    """The TOML table [`name`] of the file `where` (a value written where
    a table belongs is named)."""
    if not isinstance(value, dict):
        raise UserError(f"{where}: [{name}] must be a table, got {short(repr(value))}")
    return value


def text(value, where: str) -> str:
    """A TOML string (a number or a bare word is named)."""
    if not isinstance(value, str):
        raise UserError(f"{where} must be a string (in quotes), got {short(repr(value))}")
    return value


def one_of(value, choices, where: str):
    """One of a closed set, named in the error."""
    if not isinstance(value, str) or value not in choices:
        raise UserError(f"{where} must be one of {', '.join(choices)}, got "
                        f"{short(repr(value))}")
    return value


def is_integer(value) -> bool:
    """An integer as TOML writes one (a bool is not one, though Python says so)."""
    return isinstance(value, int) and not isinstance(value, bool)


def list_of(value, where: str, ok, what: str) -> list:
    """An axis: one value or a non-empty list of them, each `ok(value)`
    (`what` says what ok accepts, in the plural), none twice."""
    values = value if isinstance(value, list) else [value]
    if not values or not all(ok(v) for v in values):
        raise UserError(f"{where} must be a non-empty list of {what}, got "
                        f"{short(repr(value))}")
    return unique(values, where)


def unique(values: list, where: str) -> list:
    """An axis lists each value once: a repeat would run the point twice."""
    seen = set()
    for v in values:
        key = repr(v)
        if key in seen:
            raise UserError(f"{where}: lists {v!r} twice")
        seen.add(key)
    return values


def needs(given: bool, what: str, needed: str) -> None:
    """A setting `what`, where `given`, needs another (`needed`: the
    setting as the user writes it, and why where it is not plain):
    "WHAT needs NEEDED"."""
    if given:
        raise UserError(f"{what} needs {needed}")


def only_for(given: bool, what: str, owner: str, why: str) -> None:
    """A setting `what`, where `given`, belongs to another backend or mode
    (`owner`): "WHAT is for OWNER: WHY"."""
    if given:
        raise UserError(f"{what} is for {owner}: {why}")


def for_arch(thing: str, its_arch: str, arch: str) -> None:
    """A profile or preset is made for one arch (or "any"): `thing` named
    for `arch` is refused as "THING is for ITS_ARCH, not ARCH"."""
    if its_arch not in (arch, "any"):
        raise UserError(f"{thing} is for {its_arch}, not {arch}")


def required_keys(table: dict, keys, where: str, hint: str) -> dict:
    """`table` (the file `where`) sets every one of `keys`; the first it
    lacks is named, with `hint` (what such a file sets)."""
    missing = [k for k in keys if k not in table]
    if missing:
        raise UserError(f"{where}: missing {missing[0]!r} ({hint})")
    return table


def matches(value: str, pattern, where: str, what: str) -> str:
    """`value` matches the compiled regular expression `pattern`; else
    "WHERE must be WHAT, got VALUE"."""
    if not pattern.match(value):
        raise UserError(f"{where} must be {what}, got {short(repr(value))}")
    return value


def existing_file(path, what: str, fix: str) -> Path:
    """A file this lab made earlier (a results store): "no WHAT at PATH:
    FIX" where it is not there."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"no {what} at {path}: {fix}")
    return path


def each_in(values: list, valid, where: str) -> list:
    """Each of an axis's `values` one of `valid`: the first that is not is
    named by its place, WHERE[i], with the valid ones."""
    valid = tuple(valid)
    for i, v in enumerate(values):
        if v not in valid:
            raise UserError(f"{where}[{i}]: unknown value {v!r} (valid: {', '.join(valid)})")
    return values


def strings(value, where: str) -> list:
    """An axis of strings: one, or a non-empty list of them, none twice."""
    return list_of(value, where, lambda v: isinstance(v, str), "strings")


@contextlib.contextmanager
def located(where: str):
    """Errors of what the block reads say where it came from: a UserError
    raised inside comes out as "WHERE: its line" (a sweep file's axis, a
    preset a sweep names)."""
    try:
        yield
    except UserError as e:
        if e.exit_code != UserError.exit_code:  # a run that failed, not bad input
            raise
        raise UserError(f"{where}: {e}") from None


class SettingError(UserError):
    """Bad input in one named setting of a value being made (a point's
    cache preset, its sampling): the maker names the setting, and each
    caller says where its user wrote it (a sweep file's axis)."""

    def __init__(self, setting: str, message: str):
        super().__init__(message)
        self.setting = setting


@contextlib.contextmanager
def setting(name: str):
    """A UserError raised inside is one about the setting `name`."""
    try:
        yield
    except SettingError:
        raise
    except UserError as e:
        if e.exit_code != UserError.exit_code:  # a run that failed, not bad input
            raise
        raise SettingError(name, str(e)) from None


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
    return timeout(float(text), "seconds")


def process_limit() -> tuple:
    """(most processes this user may run at once, why): RLIMIT_NPROC where
    set, else the kernel's pid_max."""
    import resource
    soft, _ = resource.getrlimit(resource.RLIMIT_NPROC)
    try:
        pid_max = int(Path("/proc/sys/kernel/pid_max").read_text())
    except (OSError, ValueError):
        pid_max = 2**22  # Linux's PID_MAX_LIMIT on 64-bit
    if soft != resource.RLIM_INFINITY and 0 < soft < pid_max:
        return soft, "this user's process limit, ulimit -u"
    return pid_max, "the kernel's pid_max: make cannot start more processes"


def count(text: str) -> int:
    """0 (meaning: as many as cores) or more parallel processes."""
    limit, why = process_limit()
    return number(int(text), "a count", minimum=0, integer=True, maximum=limit,
                  why_maximum=why)


def count_up_to(maximum: int, why: str):
    """A parser of counts from 0 (as many as cores) to `maximum`, for `why`."""
    def parse(text: str) -> int:
        return number(int(text), "a count", minimum=0, integer=True, maximum=maximum,
                      why_maximum=why)
    return parse


def at_least_one(text: str) -> int:
    return number(int(text), "a count", minimum=1, integer=True)
