"""Which kernel functions a variant's patches change: the patches applied
to a scratch copy of the files they touch (taken from the pristine
source), and each top-level function of those files compared before and
after, body for body.

Why not the diff's hunk headers: a hunk's "@@ ... @@ name" is the last
function head before the hunk's first context line, often the function
above the one changed (a change at the top of cp_statx() is headed
"SYSCALL_DEFINE4(fstatat64"). Comparing whole bodies names exactly the
functions whose code differs, and those a patch adds or removes.

A function here is what the kernel's own style makes easy to find: a
head starting in column 0, its name the identifier before the first
"(", and a body from a "{" in column 0 to the next "}" in column 0.
SYSCALL_DEFINEn(name, ...) is named as the symbol its body compiles to
(__do_sys_name). A change outside any function (a macro, a declaration,
a struct) is reported as such, not mapped to functions.

The scratch copy also checks that the patches apply, before any build:
a patch that does not apply is one UserError naming it.
"""

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from kernels import source, variants
from lab import tools
from lab.errors import UserError

_HEAD = re.compile(r"^(?:[A-Za-z_].*?\b)?([A-Za-z_]\w*)\s*\(")
_SYSCALL = re.compile(r"^(?:COMPAT_)?SYSCALL_DEFINE\d\((\w+)")


@dataclass(frozen=True)
class Changed:
    """What a variant's patches change: kernel functions (by the name
    their symbol has), and the files changed outside any function."""
    functions: tuple
    elsewhere: tuple       # "file: what" for changes no function holds


def _name(head: str) -> str:
    m = _SYSCALL.match(head)
    if m:
        return f"__do_sys_{m.group(1)}"
    m = _HEAD.match(head)
    return m.group(1) if m else ""


def split(text: str) -> tuple:
    """({function name: its head and body}, the rest of the file's text)."""
    lines = text.splitlines()
    bodies, rest, i = {}, [], 0
    while i < len(lines):
        line = lines[i]
        name = _name(line) if not line.rstrip().endswith(";") else ""
        # The head runs on (arguments over several lines) to a "{" in column 0.
        j = i
        while name and j < len(lines) and lines[j] != "{" and not lines[j].rstrip().endswith(";") \
                and j - i < 8:
            j += 1
        if name and j < len(lines) and lines[j] == "{":
            end = j + 1
            while end < len(lines) and not lines[end].startswith("}"):
                end += 1
            bodies[name] = "\n".join(lines[i:end + 1])
            i = end + 1
            continue
        rest.append(line)
        i += 1
    return bodies, "\n".join(rest)


def compare(before: str, after: str, path: str) -> Changed:
    """The functions whose text differs between two versions of one file."""
    a, rest_a = split(before)
    b, rest_b = split(after)
    changed = tuple(sorted(n for n in set(a) | set(b) if a.get(n) != b.get(n)))
    elsewhere = (f"{path}: outside any function (macros, declarations or types)",) \
        if rest_a != rest_b else ()
    return Changed(changed, elsewhere)


def _apply(patches: list, tree: Path, what: str) -> None:
    for patch in patches:
        said = variants.apply_patch(Path(patch), tree)
        if said:
            raise UserError(f"{what}: {Path(patch).name} does not apply to {source.PACKAGE} "
                            f"({tools.last_lines(said)}): rebase it on the pinned source "
                            f"(kernels/source-pin.toml)")


def changed_by(patches: list, what: str) -> Changed:
    """What `patches` (paths, in series order) change in the pinned
    source; a UserError naming `what` where one does not apply."""
    touched = sorted({f for p in patches for f in variants.touched_files(Path(p).read_text())})
    functions, elsewhere = set(), []
    with tempfile.TemporaryDirectory(prefix="uaccess-predict-") as tmp:
        pristine, tree = Path(tmp) / "a", Path(tmp) / "b"
        pristine.mkdir()
        source.copy_files(source.pinned(), touched, pristine)
        tree.mkdir()
        for rel in touched:
            if (pristine / rel).is_file():
                (tree / rel).parent.mkdir(parents=True, exist_ok=True)
                (tree / rel).write_bytes((pristine / rel).read_bytes())
        _apply(patches, tree, what)
        for rel in touched:
            old = (pristine / rel).read_text(errors="replace") if (pristine / rel).is_file() \
                else ""
            new = (tree / rel).read_text(errors="replace") if (tree / rel).is_file() else ""
            c = compare(old, new, rel)
            functions |= set(c.functions)
            elsewhere += c.elsewhere
    return Changed(tuple(sorted(functions)), tuple(elsewhere))


def symbol_matches(symbol: str, function: str) -> bool:
    """Whether a profile's symbol is `function`'s code: its own name, or
    a copy the compiler made of it (cp_statx.isra.0, .constprop.0)."""
    return symbol == function or symbol.startswith(function + ".")
