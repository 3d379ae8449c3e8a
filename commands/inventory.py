"""run.py's inventory commands: list (what the lab holds: arches,
variants, workloads, backends, profiles, presets) and doctor (what this
machine has of the prerequisites, one line each, with the fix)."""

import sys

from buildroot import release
from commands import flags
from configs import backends, simpoint_method
from kernels import build as kbuild
from kernels import source as linux_source
from kernels import variants
from lab import arches, cache, text, tools
from lab.cli import command
from lab.errors import UserError
from workloads import script


def register(sub) -> None:
    command(sub, "list", cmd_list, help="arches, variants, workloads, profiles")
    sp = command(sub, "doctor", cmd_doctor,
                 help="what is found and what is missing, with the fix")
    sp.add_argument("--gem5", help=flags.GEM5_HELP)


# Where a `list` line's values start, and its further lines ("arches:    ").
LIST_INDENT = 11


def _listed(line: str, columns: int) -> list:
    """A `list` line ("label: a, b, c") within `columns`: its values wrap
    at spaces under LIST_INDENT, every name whole."""
    label, _, values = line.partition(":")
    head = (label + ":").ljust(LIST_INDENT - 1) + " "
    return text.wrap(values.strip(), columns, head, " " * LIST_INDENT)


def cmd_list(args) -> int:
    columns = text.width()
    lines = ["arches:    " + ", ".join(arches.NAMES)]
    out = [part for line in lines for part in _listed(line, columns)]
    out.append("variants:")
    loaded = [variants.load(name) for name in variants.names()]
    # Columns as wide as their longest entry; a patch per line, its title
    # whole, wrapped at spaces under its column where it is wider than the
    # terminal (never cut).
    width = max(len(v.name) for v in loaded)
    arch_width = max(len(" ".join(v.arches)) for v in loaded) + 2
    for v in loaded:
        titles = [variants.whole_subject(p) for p in v.patches] or ["no patches"]
        first = f"  {v.name:{width}}  {'[' + ' '.join(v.arches) + ']':{arch_width}}  "
        out += text.hanging(first, titles[0], columns)
        for title in titles[1:]:
            out += text.hanging(" " * len(first), title, columns)
    lines = ["workloads: " + ", ".join(script.workload_names()),
             "backends:  " + ", ".join(backends.BACKENDS)]
    lines += [line for kind in backends.KINDS.values() for line in kind.list_lines()]
    lines += ["kernel layers: " + ", ".join(variants.layer_names()),
              f"cache:     {cache.cache_root()}"]
    out += [part for line in lines for part in _listed(line, columns)]
    print("\n".join(out))
    return 0


def cmd_doctor(args) -> int:
    """What is found and what is missing, one line each, with the fix. It
    fails (exit 1) only where `make run`, the QEMU study, cannot run: gem5
    is the gem5 backend's, and optional there."""
    checks = []

    class Absent(Exception):
        """An optional prerequisite that is not there: not a missing one."""

    def check(name, fn, optional=False):
        try:
            checks.append(("ok", name, fn() or "", optional))
        except Absent as e:
            checks.append(("absent", name, str(e), optional))
        except UserError as e:
            checks.append(("MISSING", name, str(e), optional))

    def python():
        if sys.version_info < (3, 11):
            raise UserError(f"Python {sys.version.split()[0]} is too old: 3.11+ needed (tomllib)")
        return sys.version.split()[0]

    def linux():
        src = linux_source.pinned()
        return f"{linux_source.PACKAGE} {src.package_version} ({src.tarball})"

    def tools_for(arch):
        return lambda: ", ".join(tools.require(t) for t in kbuild.required_tools(arch)
                                 + ["mke2fs"] + [t for kind in backends.KINDS.values()
                                                 for t in kind.host_tools(arch)])

    # Every backend's checks asked for before any runs: asking checks the
    # flags (a --gem5 that is no gem5 tree is one line, exit 2), and a
    # check may build (QEMU's plugin), which bad input must never start.
    backend_checks = [(name, fn, not kind.needed_by_make_run)
                      for kind in backends.KINDS.values() for name, fn in kind.doctor_checks(args)]
    check("python", python)
    check("linux source", linux)
    for arch in arches.NAMES:
        check(f"{arch} build tools", tools_for(arch))
    for name, fn, optional in backend_checks:  # what each backend needs, its own lines
        check(name, fn, optional=optional)

    def simpoint_reference():
        # Optional: the built-in method needs no binary.
        found = simpoint_method.reference_binary()
        if not found:
            raise Absent("optional, the study's own method needs none: for the reference "
                         "binary, set SIMPOINT_HOME or put 'simpoint' on PATH")
        return found
    check("SimPoint 3.2", simpoint_reference)

    def buildroot_tree():
        # Optional: the offline assembler is the default image builder.
        try:
            path, ident = release.tree(fetch=False)  # doctor downloads nothing
        except UserError as e:
            raise Absent(f"optional, for --builder buildroot: {e}") from None
        return f"Buildroot {ident['version']} at {path}"
    check("Buildroot", buildroot_tree)
    columns = text.width()
    for status, name, detail, _ in checks:
        print("\n".join(text.hanging(f"{status:8} {name:22} ", detail, columns)))
    missing = [c for c in checks if c[0] == "MISSING"]
    for_run = [c for c in missing if not c[3]]
    absent = [c for c in checks if c[0] == "absent"]
    print("\n".join(text.wrap(
        f"{len(checks) - len(missing) - len(absent)} found, {len(missing)} missing"
        + (f", {len(absent)} optional absent" if absent else "")
        + (f" (the gem5 backend's: make run needs none of them)" if missing and not for_run else
           f" (make run needs {', '.join(c[1] for c in for_run)})" if for_run else ""), columns)))
    return 1 if for_run else 0

