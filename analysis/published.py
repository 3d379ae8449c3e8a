"""The study's results as data in the repository: `docs/data/*.jsonl.gz`.

The store (results/results.sqlite) lives on the machine that ran the
sweeps; a fresh clone has none. So the rows behind the published tables
are exported, one file per sweep, and ship with the repository: the
scorecard, the docs' tables and `./run.py compare` read them on any
machine, with no simulator.

A file is gzip'd JSON lines:
  line 1   the header: {"schema": SCHEMA, "version": VERSION, "sweep",
           "rows" (how many follow, so a truncated file is caught),
           "exported_at", "command", and for a sweep's rows "sweep_file"
           and "sweep_sha256" (the file that made them, as it was)}
  line 2.. one store row each (store.all_rows: its columns and metrics),
           read back as typed runs (analysis/results.py),
           its record trimmed to what the analysis reads: the run's point,
           result, provenance (kernel, patches, simulator, gem5 series
           hash, preset, warming, host, date, command), the gem5 summary
           and commit profile, the plugin's counts with only the per-symbol
           kernel counts a published table reads (SYMBOLS_KEPT; all of them
           are thousands of entries, and the report's symbol table needs the
           store), and no console log.

gzip is written with a zero timestamp and rows sorted by key, so
exporting the same rows twice gives the same bytes (a clean git diff).
"""

import gzip
import hashlib
import json
import shlex
import subprocess
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

from analysis import results, store
from lab.errors import UserError

SCHEMA = "uaccess-lab/records"
VERSION = 1
SUFFIX = ".jsonl.gz"
# Columns a row must have for the analysis to read it (store.COLUMNS less
# what export leaves out).
REQUIRED = ("key", "status", "arch", "variant", "workload", "backend", "record")
_DROP_COLUMNS = ("log",)
# The kernel functions whose plugin counts the docs read: strncpy_from_user
# (analysis/make_build.py, the scorecard's workload share); strlen and
# readlink_copy (the symlink chapter of the tutorial, docs/machines.md's
# readlink row: what the cached length takes out of a readlink).
SYMBOLS_KEPT = ("strncpy_from_user", "strlen", "readlink_copy")


def _trim(record: dict) -> dict:
    rec = {k: v for k, v in record.items() if k not in ("log", "console")}
    counts = rec.get("counts")
    if counts:
        rec["counts"] = {k: v for k, v in counts.items() if k != "symbols"}
        kept = {k: v for k, v in (counts.get("symbols") or {}).items() if k in SYMBOLS_KEPT}
        if kept:
            rec["counts"]["symbols"] = kept
    return rec


def _row(run) -> dict:
    return {k: v for k, v in results.as_row(run, _trim).items() if k not in _DROP_COLUMNS}


def sweep_source(sweep_file: Path, repo: Path) -> dict:
    """{"sweep_file": its path (from the repository's top where it is in
    it), "sweep_sha256": its bytes' digest}: what an export's header says
    made its rows."""
    path = sweep_file.resolve()
    try:
        shown = str(path.relative_to(repo))
    except ValueError:
        shown = str(path)
    return {"sweep_file": shown, "sweep_sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


def export(runs: list, sweep: str, path: Path, command: str, source: dict = None) -> Path:
    """Write one sweep's finished runs to `path` (atomically); `source`:
    sweep_source() of the sweep file that made them (none for a
    calibration's runs)."""
    rows = sorted((_row(r) for r in runs if r.status == "ok"), key=lambda r: r["key"])
    header = {"schema": SCHEMA, "version": VERSION, "sweep": sweep, "rows": len(rows),
              "exported_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "command": command, **(source or {})}
    lines = [json.dumps(header, sort_keys=True)] + [json.dumps(r, sort_keys=True)
                                                     for r in rows]
    data = gzip.compress(("\n".join(lines) + "\n").encode(), mtime=0)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
    return path


def other_arches(path: Path, rows: list) -> list:
    """The rows published at `path` for the arches `rows` (one export) do
    not bring. A sweep run with --arch plans only that arch's points, and
    exporting it must not drop the other arch's published half."""
    if not path.exists():
        return []
    arches = {r.point.arch for r in rows}
    return [r for r in load_file(path)[1] if r.point.arch not in arches]


def arch_flags(published_arches: set, sweep_arches) -> str:
    """What to add to a sweep command that gives only some of its arches."""
    if not sweep_arches or not published_arches < set(sweep_arches):
        return ""
    return "".join(f" --arch {a}" for a in sorted(published_arches))


def _tracked(path: Path) -> bool:
    """Whether git knows `path` (so git can restore it)."""
    try:
        return subprocess.run(["git", "ls-files", "--error-unmatch", path.name],
                              cwd=path.parent, capture_output=True).returncode == 0
    except OSError:
        return False


def _bad(path: Path, what: str, header=None) -> UserError:
    """The error for a damaged file: re-export it (with the command its
    header names, where it has one), or restore it where git has it."""
    command = header.get("command") if isinstance(header, dict) else None
    export = (f"'{command}'" if isinstance(command, str) and command else
              f"'./run.py export <the sweep file that made it> --to {path.parent}'")
    restore = f" or restore it with 'git checkout -- {path}'" if _tracked(path) else ""
    return UserError(f"published records {path}: {what}: re-export it with {export}{restore}")


def load_file(path: Path) -> tuple:
    """(header, rows) of one published file; UserError naming the file and
    the fix for anything that is not a whole file of this schema."""
    try:
        text = gzip.decompress(path.read_bytes()).decode("utf-8")
    except FileNotFoundError:
        raise UserError(f"published records {path} not found") from None
    except IsADirectoryError:
        raise UserError(f"published records {path} is a directory: name a "
                        f"{SUFFIX} file or the folder holding them") from None
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as e:
        raise _bad(path, f"not a whole gzip file of UTF-8 text ({e})") from None
    lines = text.splitlines()
    try:
        header = json.loads(lines[0]) if lines else None
    except json.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or header.get("schema") != SCHEMA:
        raise _bad(path, f"no '{SCHEMA}' header on its first line")
    if header.get("version") != VERSION:
        raise _bad(path, f"schema version {header.get('version')!r}, this uaccess-lab "
                         f"reads version {VERSION}", header)
    body = lines[1:]
    if header.get("rows") != len(body):
        raise _bad(path, f"the header says {header.get('rows')} rows, the file has "
                         f"{len(body)} (truncated?)", header)
    runs = []
    for n, line in enumerate(body, start=2):
        try:
            row = json.loads(line)
            missing = [c for c in REQUIRED if c not in row] if isinstance(row, dict) else ["all"]
            if not missing:
                runs.append(results.from_row(row))
        except (json.JSONDecodeError, TypeError):
            raise _bad(path, f"line {n} is not a JSON row", header) from None
        if missing:
            raise _bad(path, f"line {n} lacks {', '.join(missing)}", header)
    return header, runs


def files(where: Path) -> list:
    """The published files `where` names: one file, or a folder's *.jsonl.gz."""
    where = Path(where)
    if where.is_dir():
        found = sorted(where.glob("*" + SUFFIX))
        if not found:
            raise UserError(f"--records {where} holds no *{SUFFIX} file: name the folder "
                            f"the study's data is in (docs/data)")
        return found
    if not where.exists():
        raise UserError(f"--records {where} not found: name a folder of *{SUFFIX} files "
                        f"(docs/data) or one such file")
    return [where]


def load(where: Path) -> list:
    """Every published row under `where`, one per run key (a run that two
    sweeps share is one run), as store.all_rows gives a store's."""
    return store.one_per_key(row for path in files(where) for row in load_file(path)[1])


def by_sweep(where: Path) -> dict:
    """{sweep name: its rows} of the published files under `where`."""
    out = {}
    for path in files(where):
        header, rows = load_file(path)
        out[header["sweep"]] = rows
    return out


def commands(where: Path) -> dict:
    """{sweep name: the command that regenerates it} of the published
    files under `where`, as each file's header says."""
    return {h["sweep"]: h["command"] for h in (load_file(p)[0] for p in files(where))}


def path_for(folder: Path, sweep: str) -> Path:
    """Where a sweep's rows are published (sweep names are words: sweep.load)."""
    return Path(folder) / (sweep + SUFFIX)


@dataclass(frozen=True)
class Source:
    """What made one published file: its sweep file and the arches its
    export named, or a calibration's command; and whether that file is
    there, as it was."""
    path: Path            # the published file
    header: dict
    rows: list
    sweep_file: Path      # None for a calibration's rows
    arches: tuple         # the --arch flags of its command ((): every arch)
    status: str           # "ok", "changed" (since the export), "gone", "no digest"
    #                       (exported before headers kept one), "calibration"

    @property
    def name(self) -> str:
        return self.header["sweep"]


def _sweep_of(command: str) -> tuple:
    """(sweep file, arches) from an export header's command, or (None, ())."""
    try:
        words = shlex.split(command or "")
    except ValueError:
        return None, ()
    if words[:2] != ["./run.py", "sweep"] or len(words) < 3:
        return None, ()
    arches = tuple(words[i + 1] for i, w in enumerate(words[:-1]) if w == "--arch")
    return words[2], arches


def sources(where: Path, repo: Path) -> list:
    """One Source per published file under `where` (each read whole, so a
    damaged one fails here, in one line)."""
    out = []
    for path in files(where):
        header, rows = load_file(path)
        named, arches = _sweep_of(header.get("command", ""))
        named = header.get("sweep_file") or named
        if named is None:
            out.append(Source(path, header, rows, None, (), "calibration"))
            continue
        sweep_file = (repo / named) if not Path(named).is_absolute() else Path(named)
        if not sweep_file.is_file():
            status = "gone"
        elif not header.get("sweep_sha256"):
            status = "no digest"  # exported before headers kept one
        elif header["sweep_sha256"] != hashlib.sha256(sweep_file.read_bytes()).hexdigest():
            status = "changed"
        else:
            status = "ok"
        out.append(Source(path, header, rows, sweep_file, arches, status))
    return out
