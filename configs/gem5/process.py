"""Running gem5: boot once to a ROI checkpoint, restore per CPU preset.

Checkpoints live in cache/gem5-checkpoints/<key>/ (key: spec.checkpoint_key)
and appear by atomic rename, under a lock, so concurrent points that share
a boot wait for one boot instead of running two. Each is sealed with its
files' digests as written (lab/sealed.py) and checked before every
restore: a damaged one is said in one line and booted again, never
restored. A ROI run writes its
gem5 output (console, stats.txt, config.ini) into the run's directory;
parsing stats.txt is configs/gem5/stats.py's job.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from configs import console, runs, smap_models
from configs.gem5 import spec as gspec
from configs.gem5 import stats as gem5_stats
from kernels import variants
from lab import arches, cache, child, cpu_presets, sealed, tools
from lab import cpuid as cpuid_mod
from lab.errors import UserError

_MARK = re.compile(r"@@UACCESS-GEM5 (\S+)(.*)$")
# One line per committed instruction (the macro-op, printed at its last
# micro-op), user and kernel, with its PC.
TRACE_FLAGS = "ExecEnable,ExecUser,ExecKernel,ExecMacro"
# One line per committed micro-op instead, with its static flags (which
# are the second of a fused pair): what the micro-op profile reads
# (configs/gem5/uop_profile.py).
MICRO_TRACE_FLAGS = "ExecEnable,ExecUser,ExecKernel,ExecMicro,ExecFlags"
TRACE_FILE = "trace.out.gz"  # gem5 compresses a debug file named *.gz
JOB_FILE = "job.conf"  # the boot-once scheme's job, read by the guest's m5 readfile
TRACE_OPTIONS = (f"--debug-flags={TRACE_FLAGS}", f"--debug-file={TRACE_FILE}")


class Gem5Failed(runs.RunFailed):
    """A gem5 process that ran but did not do its job; `log` says why."""

    def __init__(self, message: str, log: str):
        super().__init__(message, log)


@dataclass
class Gem5Run:
    seconds: float
    outdir: Path
    markers: dict
    console_text: str
    log: str  # gem5's own output, for errors that name it
    command: list = None  # what ran, its binary first

    def command_moved(self, staging: Path, final: Path) -> list:
        """The command as it reads once its staging directory is renamed
        to its final place: what a record keeps."""
        return [a.replace(str(staging), str(final)) for a in self.command]


def traced(options) -> bool:
    """Whether a gem5 process with these options writes a debug trace."""
    return any(o.startswith("--debug-") for o in options)


def command(gem5, arch: str, outdir: Path, spec_path: Path, options=(),
            script: Path = gspec.SCRIPT) -> list:
    """The gem5 process's command line: gem5.fast where no trace is asked
    for and it is usable, gem5.opt otherwise (locate.Gem5.runner)."""
    return [str(gem5.runner(arch, traced(options))), f"--outdir={outdir}", *options,
            str(script), str(spec_path)]


def run(gem5, arch: str, spec: dict, outdir: Path, timeout: float, options=(),
        script: Path = gspec.SCRIPT) -> Gem5Run:
    """One gem5 process of `script` (fs_roi.py unless told) on `spec`, its
    output in `outdir`; Gem5Failed where it did not do its job."""
    outdir.mkdir(parents=True, exist_ok=True)
    spec_path = outdir / "spec.json"
    spec_path.write_text(json.dumps(spec, indent=2, sort_keys=True))
    log = outdir / "gem5.log"
    cmd = command(gem5, arch, outdir, spec_path, options, script)
    start = time.monotonic()
    with open(log, "w") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        # gem5 dies with run.py, and at once on Ctrl-C (lab/child.py).
        rc, stopped = child.run(cmd, timeout, memory_limit=gem5.memory_limit << 20, stdout=f,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        if stopped:
            why = (f"gem5 timed out after {timeout:.0f}s" if stopped == "timeout" else
                   f"gem5 held more than its memory limit of {gem5.memory_limit:,} MiB")
            f.write(f"uaccess-lab: {why}: stopped\n")  # the log says it too
            raise Gem5Failed(why, str(log))
    seconds = time.monotonic() - start
    text = log.read_text(errors="replace")
    markers = {}
    for line in text.splitlines():
        m = _MARK.search(line)
        if m:
            markers[m.group(1)] = m.group(2).strip()
    term = outdir / arches.get(arch).gem5_console_file
    console_text = term.read_text(errors="replace") if term.is_file() else ""
    if "error" in markers:
        # The guest's own reason (an oops, a panic) says more than ours.
        why = console.parse(console_text).failure() if console_text else None
        raise Gem5Failed(f"gem5: {markers['error']}" + (f": {why}" if why else ""),
                         str(term if console_text else log))
    if rc != 0:
        raise Gem5Failed(f"gem5 exited with {rc}: {tools.last_lines(text)[:200]}", str(log))
    return Gem5Run(round(seconds, 1), outdir, markers, console_text, str(log), cmd)


def checkpoint(boot: gspec.BootGroup, timeout: float) -> dict:
    """The boot group's checkpoint: reused where its files are those it
    was written with, else made (again). Under its lock, so a point that
    needs it waits for the worker booting it, and never reads one that a
    worker is setting aside as damaged."""
    gem5, arch, warming = boot.gem5, boot.arch, boot.warming
    key = gspec.checkpoint_key(boot)
    final = gspec.checkpoint_dir(key)
    with cache.locked(final.parent / f"{key}.lock"):
        info = _reusable(final)
        if info is not None:
            return info
        with cache.staging_dir(final) as tmp:
            spec = gspec.boot_spec(boot)
            spec["checkpoint_dir"] = str(tmp / "cpt")
            try:
                booted = run(gem5, arch, spec, tmp / "boot", timeout)
                if not (tmp / "cpt").is_dir() or "checkpoint" not in booted.markers:
                    raise Gem5Failed("the boot ended without a checkpoint (did the "
                                     + ("workload reach its ROI?)" if warming == "none"
                                        else "guest's init reach its handoff?)"),
                                     str(tmp / "boot" / arches.get(arch).gem5_console_file))
                _check_cpuid(boot, booted.console_text,
                             str(tmp / "boot" / arches.get(arch).gem5_console_file))
            except Gem5Failed as e:
                # The staging dir is removed on the way out: keep the logs.
                raise Gem5Failed(f"gem5 boot: {e}", keep_logs(Path(e.log), final)) from None
            # The ROI run reads it from its final place.
            spec["checkpoint_dir"] = str(final / "cpt")
            # init prints BOOT and CPUFLAGS before the ROI begins, so they
            # are in the boot's console, not the ROI's: keep them here.
            guest = console.parse(booted.console_text)
            info = {"key": key, "boot_seconds": booted.seconds,
                    "boot_insts": boot_instructions(tmp / "boot" / "stats.txt"),
                    "warming": warming,
                    "tick": marker_tick(booted.markers, "checkpoint"), "spec": spec,
                    "command": booted.command_moved(tmp, final),
                    "guest": {"boot": guest.boot, "cpu_flags": guest.cpu_flags},
                    "boot_log": _boot_lines(booted.console_text)}
            cache.write_json_atomic(tmp / "boot.json", info)
            sealed.seal(tmp, "cpt")
        return info


def _reusable(final: Path):
    """A finished checkpoint's boot record, where its files are whole; None
    where there is none, or it was damaged (said, and set aside)."""
    record = final / "boot.json"
    if not record.is_file():
        return None
    if not sealed.sealed(final):
        # Made before checkpoints were sealed (2026-11-29): trusted as it
        # was then, and sealed now, so that damage from here on is seen.
        sealed.seal(final, "cpt")
    else:
        wrong = sealed.broken(final, "cpt")
        if wrong:
            sys.stderr.write(f"gem5 checkpoint {final}: {wrong}: booting it again (a damaged "
                             f"checkpoint is never restored)\n")
            _set_aside(final)
            return None
    return json.loads(record.read_text())


def _set_aside(final: Path) -> None:
    """Remove a finished folder: renamed first, as a killed run's staging
    folder is named (so if this is killed too, the next run clears it)."""
    aside = cache.temp_dir(final)
    os.rename(final, aside)  # onto the empty folder temp_dir made
    shutil.rmtree(aside)


def _check_cpuid(boot: gspec.BootGroup, console_text: str, log: str) -> None:
    """A part's CPUID (lab/cpuid.py): the booted guest's flags must say it
    got it (cx16 present, erms absent, fast strings on, ...), or no run
    restores the checkpoint: its kernel would run code neither the part
    nor the QEMU twin runs."""
    flags = console.parse(console_text).cpu_flags
    if boot.cpuid == cpuid_mod.GEM5 or not flags:
        return
    wrong = cpuid_mod.load(boot.cpuid).disagreements(
        flags.split(), smap=smap_models.executes_smap(boot.arch, boot.smap_model),
        cleared=variants.load(boot.kernel.variant).clears_cpu_flags)
    if wrong:
        raise Gem5Failed(f"the guest's CPU is not the {boot.cpuid} description's: "
                         + "; ".join(wrong), log)


def boot_instructions(stats_txt: Path):
    """Instructions the boot simulated (gem5 dumps its statistics when the
    process ends), or None where it wrote none."""
    if not stats_txt.is_file():
        return None
    blocks = gem5_stats.dumps(stats_txt.read_text())
    return int(blocks[-1]["simInsts"]) if blocks and "simInsts" in blocks[-1] else None


def marker_tick(markers: dict, name: str) -> int:
    """The tick of a marker line ("roi-end 4572... insts=... host=...")."""
    return int(markers[name].split()[0])


def fu_latency(markers: dict) -> dict:
    """Op class -> cycles, as the gem5 process reported its FU pool."""
    return {k: int(v) for k, v in (kv.split("=", 1)
                                   for kv in markers.get("fu-latency", "").split())}


def marker_fields(markers: dict, name: str) -> dict:
    """The key=value fields of a marker line, as numbers."""
    return {k: float(v) for k, v in (f.split("=", 1) for f in markers.get(name, "").split()
                                     if "=" in f)}


def keep_logs(log: Path, final: Path) -> str:
    """Copy a failed step's output files to failed/ beside its final
    folder (a boot's in gem5-checkpoints/, a SimPoint step's in its own)."""
    if not log.is_file():
        return str(log)
    dest = final.parent / "failed" / f"{final.name}-{time.strftime('%Y%m%dT%H%M%S')}"
    dest.mkdir(parents=True, exist_ok=True)
    for p in log.parent.iterdir():
        if p.is_file():
            shutil.copy2(p, dest / p.name)
    return str(dest / log.name)


def _boot_lines(text: str) -> list:
    """The guest's own lines from the boot (BOOT, CPUFLAGS, alternatives)."""
    # "CPU: " is the kernel's line naming the CPU it booted on (brand,
    # family, model, stepping), "fast string" its word on rep strings.
    keep = ("@@UACCESS-", "uaccess-lab:", "smap", "CPU: ", "fast string")
    return [l for l in text.splitlines() if any(k in l for k in keep)][:20]


def roi(group: gspec.BootGroup, spec: dict, outdir: Path, timeout: float, trace=False,
        job=None) -> tuple:
    """Simulate the ROI `spec` (spec.roi_spec of the group and an O3 preset,
    as the run's plan made it: configs/gem5/backend.py Gem5Plan) from the
    group's checkpoint: (Gem5Run, console report, boot
    record). With `trace` (True: TRACE_FLAGS; or the flags, such as
    MICRO_TRACE_FLAGS), gem5 also writes its Exec trace (TRACE_FILE) of the
    run, which changes no simulated cycle. With warming "functional", the
    group's image is the job-less handoff image and `job` is handed over."""
    gem5, arch, warming = group.gem5, group.arch, group.warming
    boot = checkpoint(group, timeout)
    spec = dict(spec)  # the plan's stays as planned: the job's file and trace go in a copy
    flags = TRACE_FLAGS if trace is True else (trace or "")
    options = (f"--debug-flags={flags}", f"--debug-file={TRACE_FILE}") if flags else ()
    if warming != "none":
        outdir.mkdir(parents=True, exist_ok=True)
        (outdir / JOB_FILE).write_text(job.job_conf())
        spec["job_file"] = str(outdir / JOB_FILE)
        if flags:  # the gem5 script turns the flags on at the ROI's start
            spec["trace_flags"] = flags.split(",")
            options = (f"--debug-file={TRACE_FILE}",)
    ran = run(gem5, arch, spec, outdir, timeout, options)
    report = console.parse(ran.console_text)
    term = str(outdir / arches.get(arch).gem5_console_file)
    if "roi-end" not in ran.markers:
        raise Gem5Failed("the ROI never ended (no m5 workend)", term)
    why = report.failure()
    if why:
        raise Gem5Failed(why, term)
    if not (outdir / "stats.txt").is_file():
        raise Gem5Failed("gem5 wrote no stats.txt", str(outdir / "gem5.log"))
    return ran, report, boot


def trace_roi(group: gspec.BootGroup, timeout: float) -> Path:
    """Replay the ROI from its boot checkpoint on the atomic CPU with gem5's
    instruction trace. The instructions an O3 core commits are the
    architectural ones, so this trace stands for every preset; it is what
    the cross-check compares, symbol by symbol, with QEMU's counts. Kept
    in cache/gem5-traces/<checkpoint key>/."""
    group = group.cold()  # the trace replays the ROI checkpoint of the cold scheme
    gem5, arch = group.gem5, group.arch
    boot = checkpoint(group, timeout)
    final = cache.area("gem5-traces") / boot["key"]
    if (final / TRACE_FILE).is_file():
        return final / TRACE_FILE
    spec = gspec.roi_spec(group, cpu_presets.load_cpu("atomic", arch))
    with cache.staging_dir(final) as tmp:
        run(gem5, arch, spec, tmp, timeout, TRACE_OPTIONS)
        if not (tmp / TRACE_FILE).is_file():
            raise Gem5Failed("gem5 wrote no instruction trace", str(tmp / "gem5.log"))
    return final / TRACE_FILE
