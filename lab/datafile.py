"""Files the study writes itself, read as data: basic-block vectors (.bb),
SimPoint's .simpoints, .weights and .labels, and whatever else a
simulator hands back line by line.

A person's file (a sweep, a script, a preset) goes through
lab/inputs.text_file: read whole, at most 256 KiB, because a large one is
a mistake and must fail fast. A simulator's output is the opposite: its
size is the run's (a long ROI's vectors are 100 MB), so it has no cap
and is streamed, one line at a time, never held whole. What it does get
is a check of its format line by line: a file cut short by a killed
writer, or garbled, ends with one line naming the file and the line,
which run.py turns into exit 2, before anything is written.
"""

from pathlib import Path
from typing import Iterator

from lab import inputs
from lab.errors import UserError

# Each line is read into memory on its own: a line this long is no
# interval or selection any writer of the study makes (a .bb line of
# every one of 2^32 block ids would be far longer, but no ROI touches
# more than a few hundred thousand blocks in one interval).
MAX_LINE_BYTES = 64 << 20


def at(path, n: int, what: str, problem: str) -> UserError:
    """The one-line error of line `n` of `path` (path:line:, as a compiler's)."""
    return UserError(f"{what} {inputs.one_line(path)}:{n}: {problem}")


def shown(data: bytes, most: int = 40) -> str:
    """A piece of a bad line as an error quotes it."""
    return repr(inputs.short(data.decode("utf-8", "replace"), most))


def lines(path, what: str) -> Iterator[tuple]:
    """(line number, line without its newline) of `path`, streamed. Every
    writer the study has ends each line with a newline, so a last line
    without one is a file cut short (a writer killed mid-line, a copy
    interrupted): it is an error, not a shorter last record."""
    path = Path(path)
    inputs.regular_file(path, what)
    n = 0
    try:
        with open(path, "rb") as f:
            while True:
                line = f.readline(MAX_LINE_BYTES + 1)
                if not line:
                    break
                n += 1
                if len(line) > MAX_LINE_BYTES:
                    raise at(path, n, what, f"longer than {MAX_LINE_BYTES >> 20} MiB: not a "
                                            f"file this study writes")
                if not line.endswith(b"\n"):
                    raise at(path, n, what, "ends without a newline: the file is cut short "
                                            "(its writer stopped mid-line): make it again")
                yield n, line[:-1]
    except OSError as e:
        raise UserError(f"{what} {inputs.one_line(path)}: cannot read: {e.strerror}") from None
    if n == 0:
        raise UserError(f"{what} {inputs.one_line(path)} is empty")


def pairs(path, what: str, first, second, form: str) -> list:
    """The lines of a two-column file (SimPoint's `<a> <b>` per line), each
    column converted by `first` and `second`; blank lines are skipped, any
    other line that is not two such values is an error naming it. `form`
    says what a line should look like, for the error."""
    out = []
    for n, line in lines(path, what):
        fields = line.split()
        if not fields:
            continue
        try:
            if len(fields) != 2:
                raise ValueError
            out.append((first(fields[0]), second(fields[1])))
        except ValueError:
            raise at(path, n, what, f"{shown(line)} is not {form}") from None
    if not out:
        raise UserError(f"{what} {inputs.one_line(path)} holds no lines of {form}")
    return out
