"""Kernel variants: kernels/variants/<name>/ with a quilt-style `series`.

A variant is a folder; adding one needs no code. The series lists patch
files in apply order, relative to the folder (so a variant made of part
of another's series names that variant's files, `../pan-toggle/0001-...`,
instead of copying them); `#` lines are comments, and one comment of the form
`# arches: x86_64 arm64` limits the variant to those arches (default: all).
A comment `# clears-cpu-flag: smap` says the kernel hides that CPU flag on
purpose (nosmap), so a run checks that it is absent instead of present.
`stock` has an empty series.

UACCESS_EXTRA_VARIANTS may name more folders of variants (separated by
":"), searched after kernels/variants: the tests keep their deliberately
wrong kernels there (tests/data/variants), out of the study's own
catalogue, and `./run.py predict PATCH` adds the folder of the variant it
makes of one patch file (from_patch), so a build, a run and a record
read it as any other variant.
"""

import dataclasses
import hashlib
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from lab import arches as arch_table
from lab import cache, inputs, kconfig
from lab.errors import UserError

VARIANT_DIR = Path(__file__).resolve().parent / "variants"
# Layers have the variant format but are applied on top of a variant for
# the runs that need them (smap-model: the gem5 STAC/CLAC cost model). A
# layer may also carry a `config` file, a Kconfig fragment merged after the
# arch's (ext4: the filesystem and loop device one workload needs), so the
# options only some runs need stay out of every other kernel.
LAYER_DIR = Path(__file__).resolve().parent / "layers"
_ARCHES_LINE = re.compile(r"^#\s*arches:\s*(.*)$")
_CLEARS_LINE = re.compile(r"^#\s*clears-cpu-flag:\s*(.*)$")


@dataclass(frozen=True)
class Patch:
    name: str
    path: Path
    sha256: str
    subject: str


@dataclass(frozen=True)
class Variant:
    name: str
    arches: tuple
    patches: tuple
    clears_cpu_flags: tuple = ()
    config: str = ""         # a layer's Kconfig fragment ("" when it has none)

    def applies_to(self, arch: str) -> bool:
        return arch in self.arches

    def touches_headers(self) -> bool:
        """A patched header recompiles much of the shared tree (minutes, not
        seconds), so callers build such variants last."""
        return any(f.endswith(".h") for p in self.patches
                   for f in touched_files(p.path.read_text()))

    def as_record(self) -> dict:
        record = {"name": self.name,
                  "patches": [{"name": p.name, "sha256": p.sha256,
                               "subject": p.subject} for p in self.patches]}
        if self.clears_cpu_flags:
            record["clears_cpu_flags"] = list(self.clears_cpu_flags)
        if self.config:  # absent without one, so no other layer's record moves
            record["config_sha256"] = hashlib.sha256(self.config.encode()).hexdigest()
        return record


def _variant_dirs() -> list:
    extra = os.environ.get("UACCESS_EXTRA_VARIANTS", "")
    return [VARIANT_DIR] + [Path(d) for d in extra.split(os.pathsep) if d]


# Where from_patch makes its variants: the cache's (lab/cache.py AREAS).
PATCH_AREA = "patch-variants"
NAME_MOST = 28  # characters of a patch file's name in its variant's


def from_patch(path: Path, root: Path = None) -> str:
    """The variant made of one patch file: a folder under `root` (default:
    the cache's patch-variants/; a dry run gives a scratch folder, so it
    writes nothing) named after the file (its number and ".patch" left
    off), holding a copy of it and a series naming it, and `root` added
    to the variant search path for this process and its children. Its
    name and its patch's digest key the kernel, as any variant's do,
    wherever the folder is."""
    root = cache.area(PATCH_AREA) if root is None else root
    data = path.read_bytes()
    slug = re.sub(r"^\d+-", "", path.name.removesuffix(".patch"))
    # Short enough for a progress line's "[kernel arm64/NAME] ..." and a
    # table's row at 80 columns; cut between words.
    if len(slug) > NAME_MOST:
        slug = slug[:NAME_MOST + 1].rsplit("-", 1)[0]
    name = "patch-" + slug.strip("-")
    folder = root / name
    if not (folder / path.name).is_file() or (folder / path.name).read_bytes() != data:
        folder.mkdir(parents=True, exist_ok=True)
        cache.write_atomic(folder / path.name, data.decode(errors="replace"))
        cache.write_atomic(folder / "series", f"# made by ./run.py predict from {path}\n"
                                              f"{path.name}\n")
    add_search_dir(root)
    return name


def add_search_dir(root: Path) -> None:
    """`root`'s variant folders found by name from now on, in this process
    and its children (UACCESS_EXTRA_VARIANTS)."""
    dirs = os.environ.get("UACCESS_EXTRA_VARIANTS", "")
    if str(root) not in dirs.split(os.pathsep):
        os.environ["UACCESS_EXTRA_VARIANTS"] = os.pathsep.join(d for d in (dirs, str(root)) if d)


def names() -> list:
    return sorted({p.name for d in _variant_dirs() if d.is_dir() for p in d.iterdir()
                   if (p / "series").is_file()})


def load(name: str) -> Variant:
    inputs.name_in(name, names(), "variant")
    return next(parse_series(name, d / name) for d in _variant_dirs()
                if (d / name / "series").is_file())


def layer_names() -> list:
    if not LAYER_DIR.is_dir():
        return []
    return sorted(p.name for p in LAYER_DIR.iterdir() if (p / "series").is_file())


def load_layer(name: str) -> Variant:
    folder = LAYER_DIR / inputs.name_in(name, layer_names(), "kernel layer")
    layer = parse_series(name, folder)
    fragment = folder / "config"
    if fragment.is_file():
        text = fragment.read_text()
        kconfig.parse(text, str(fragment))  # a typo fails here, before any build
        layer = dataclasses.replace(layer, config=text)
    return layer


def parse_series(name: str, folder: Path) -> Variant:
    arches = arch_table.NAMES
    clears = ()
    patches = []
    for lineno, raw in enumerate((folder / "series").read_text().splitlines(), 1):
        line = raw.strip()
        m = _ARCHES_LINE.match(line)
        if m:
            arches = tuple(inputs.name_in(a, arch_table.NAMES, "arch", f"{folder}/series:{lineno}")
                           for a in m.group(1).split())
            continue
        m = _CLEARS_LINE.match(line)
        if m:
            clears = tuple(m.group(1).split())
            continue
        if not line or line.startswith("#"):
            continue
        path = folder / line.split()[0]
        if not path.is_file():
            raise UserError(f"{folder}/series:{lineno}: patch {line!r} not found")
        data = path.read_bytes()
        patches.append(Patch(path.name, path, hashlib.sha256(data).hexdigest(),
                             _subject(data.decode(errors="replace"))))
    return Variant(name, arches, tuple(patches), clears)


def _subject(text: str) -> str:
    """The Subject header's first line: what every kernel's recorded inputs
    (as_record) hold, so it stays as it is; whole_subject() is the title."""
    for line in text.splitlines():
        if line.startswith("Subject:"):
            return re.sub(r"^Subject:\s*(\[PATCH[^\]]*\]\s*)?", "", line)
    return ""


def whole_subject(patch: Patch) -> str:
    """A patch's title as `list` shows it: the Subject header with its
    folded continuation lines (git wraps a long subject) joined."""
    lines = patch.path.read_text(errors="replace").splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Subject:"):
            folded = [line]
            for more in lines[i + 1:]:
                if not more.startswith((" ", "\t")):
                    break
                folded.append(more.strip())
            return re.sub(r"^Subject:\s*(\[PATCH[^\]]*\]\s*)?", "", " ".join(folded))
    return patch.subject


def apply_patch(patch: Path, tree: Path) -> str:
    """Apply one patch of a series to `tree` as a kernel build does (patch
    -p1, no backups, no questions): "" where it applied, else what patch
    said last, for the caller's one-line error."""
    run = subprocess.run(["patch", "-p1", "--batch", "--forward", "--no-backup-if-mismatch",
                          "-i", str(Path(patch).resolve())], cwd=tree, capture_output=True,
                         text=True)
    return "" if run.returncode == 0 else run.stdout + run.stderr


def touched_files(patch_text: str) -> list:
    """Files a unified diff changes (its +++ side), relative to the tree."""
    files = []
    for line in patch_text.splitlines():
        if line.startswith("+++ "):
            target = line[4:].split("\t")[0].strip()
            if target != "/dev/null":
                files.append(target.split("/", 1)[1] if "/" in target else target)
        elif line.startswith("--- "):
            origin = line[4:].split("\t")[0].strip()
            if origin != "/dev/null" and "/" in origin:
                files.append(origin.split("/", 1)[1])
    return sorted(set(files))
