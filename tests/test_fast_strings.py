"""Fast strings (issue 64, issue 55's item 1; patch 0030 of
configs/gem5-patches): with fast_strings "chunked", a rep movs or rep stos
that may run as a fast string moves 64-byte lines as 16-byte micro-ops,
and computes and faults as gem5's element loop does.

Without gem5:
- the knob is declared once (lab/gem5_knobs.py): a preset key, a sweep
  axis, a run flag (refused on the QEMU backend like every gem5 flag:
  test_bad_input.py), x86's only, and what it sets on the gem5 side;
- the patch's own microcode, assembled and run on a model of the machine
  (tests/microcode_model.py) against the SDM's element loop, for counts,
  sizes, alignments, overlaps, DF and pages that refuse an access: the
  same memory, registers and fault every time, also when interrupts land
  between lines; and the micro-op counts its commit message gives.
With gem5 built with the whole series (found at its default home or
through GEM5_HOME; elsewhere these skip and say what is missing), the
Skylake preset both ways on one binary:
- a page-aligned 4 KiB pread (usercopy-loop): every copy's rep exactly
  the model's micro-ops (926 chunked), the same checksum as the loop and
  the QEMU twin;
- statx-loop: the same checksum as the loop and the QEMU twin; each rep
  stos the loop's count of elements (7 + 4 micro-ops an element there)
  and, chunked, a count the model gives for that many elements;
- the SMAP violator still faults; and a rep movsb without stac faults on
  its first byte with the registers gem5's loop and QEMU leave (RCX 0x100).
"""

import collections
import functools
import random
import re
from pathlib import Path

import pytest

from buildroot import assemble
from configs import smap_models
from configs.gem5 import cache_presets, locate
from configs.gem5 import uop_profile
from kernels import build as kbuild
from lab import cpu_presets
from lab import gem5_knobs as knobs
from lab.errors import UserError
from lab.symbols import SymbolMap
from workloads import script

import microcode_model as model

PRESET, CACHE = "x86_64-skylake", "x86_64-skylake"
STRING = "src/arch/x86/isa/insts/general_purpose/string/"
PAGE = 4096
FAST = {"movs": "MOVS_FAST_E_M_M", "stos": "STOS_FAST_E_M"}


@functools.lru_cache(maxsize=None)
def _macroops() -> dict:
    """The fast-string macroops patch 0030 adds, assembled for the model."""
    (path,) = [p for p in locate.series_patches() if p.name.startswith("0030-")]
    text = path.read_text()
    out = model.assemble(model.patched_microcode(text, STRING + "move_string.py"))
    out.update(model.assemble(model.patched_microcode(text, STRING + "store_string.py")))
    return out


def _uops(kind: str, elements: int, size: int, src_offset: int = 0, dst_offset: int = 0,
          df: int = 0) -> int:
    """Micro-ops the fast-string macroop takes for `elements` elements of
    `size` bytes, the source and destination at these offsets into pages
    eight pages apart, every page readable and writable."""
    pages = {p: [bytearray(PAGE), True, True] for p in range(0x100, 0x110)}
    src, dst = 0x100 * PAGE + src_offset, 0x108 * PAGE + dst_offset
    if df:
        src, dst = src + (elements - 1) * size, dst + (elements - 1) * size
    m = model.Machine({"rcx": elements, "rsi": src, "rdi": dst}, model.Memory(pages), df)
    n, fault = model.run(_macroops()[FAST[kind]], m, size)
    assert fault is None
    return n


# --- the knob -----------------------------------------------------------

def test_the_knob_is_declared_once_and_sets_x86isa_fast_strings():
    k = knobs.BY_NAME["fast_strings"]
    assert k.choices == ("loop", "chunked") and k.default == "loop" and k.series
    assert k.settings("chunked") == {"isa": {"fast_strings": True}}
    assert k.settings("loop") == {}
    assert "fast_strings" in knobs.CHOICES
    # A gem5 built without patch 0030 has no X86ISA.fast_strings: it does
    # not count as built with the series.
    assert b"fast_strings" in locate.SERIES_MARKS
    sky = cpu_presets.load_cpu(PRESET, "x86_64")
    other = "chunked" if sky.fast_strings == "loop" else "loop"
    moved = cpu_presets.with_params(sky, {"fast_strings": other})
    assert moved.name == f"{PRESET}+fast_strings={other}" and moved.fast_strings == other
    default = cpu_presets.load_cpu("x86_64-o3-default", "x86_64")
    chunked = cpu_presets.with_params(default, {"fast_strings": "chunked"})
    assert chunked.as_record()["fast_strings"] == "chunked"
    assert "fast_strings chunked" in smap_models.needs_series("x86_64", "none", chunked)
    assert smap_models.needs_series("x86_64", "none", cpu_presets.with_params(
        default, {"fast_strings": "loop"})) == ""
    with pytest.raises(UserError) as e:
        cpu_presets.with_params(cpu_presets.load_cpu("arm64-o3-default", "arm64"),
                                {"fast_strings": "chunked"})
    assert str(e.value) == ("CPU preset arm64-o3-default: fast_strings chunked is x86-only "
                            "(x86 fast strings); an arm64 CPU keeps gem5's")
    with pytest.raises(UserError, match="fast_strings must be one of"):
        cpu_presets.with_params(sky, {"fast_strings": "fast"})


# --- the microcode, on a model ------------------------------------------

def _case(rng: random.Random, size: int) -> model.Machine:
    """A machine for one rep: source and destination pages, some of them
    refusing reads or writes, pointers anywhere in them, sometimes close
    together or aligned to a line, any count, DF sometimes set."""
    pages = {}
    src_page = 0x200
    dst_page = src_page + rng.choice([0, 1, 3, 6])
    for p in set(range(src_page - 1, src_page + 5)) | set(range(dst_page - 1, dst_page + 5)):
        pages[p] = [bytearray(rng.randbytes(PAGE)), True, True]
    for _ in range(rng.choice([0, 0, 1, 1, 2])):
        # a page the string runs into, or any
        p = rng.choice([src_page + 1, dst_page + 1, rng.choice(sorted(pages))])
        pages[p][1], pages[p][2] = rng.random() < 0.5, False
    # anywhere in the page, or near its end
    src = src_page * PAGE + rng.choice([rng.randrange(PAGE), PAGE - rng.randrange(1, 80)])
    dst = dst_page * PAGE + rng.choice([rng.randrange(PAGE), PAGE - rng.randrange(1, 80)])
    if rng.random() < 0.3:
        # close together: within a line either way, or just beyond
        dst = src + rng.choice([-1, 1]) * rng.choice([1, 7, 8, 15, 16, 17, 63, 64, 65, 100])
    if rng.random() < 0.3:
        src, dst = (src & ~63) | rng.choice([0, 8, 3]), (dst & ~63) | rng.choice([0, 8, 1])
    count = rng.choice([0, 1, 7, 8, 9, 63, 64, 65, 130, 300, rng.randrange(700)])
    count = min(count, 3 * PAGE // size)
    df = int(rng.random() < 0.1)
    if df:
        src, dst = src + count * size, dst + count * size
    regs = {"rax": rng.getrandbits(64), "rcx": count, "rsi": src, "rdi": dst}
    regs.update({f"t{i}": rng.getrandbits(64) for i in range(1, 16)})
    return model.Machine(regs, model.Memory(pages), df)


def test_the_series_microcode_computes_and_faults_as_the_element_loop():
    macroops = _macroops()
    rng = random.Random(64)
    chunked = faults = 0
    interrupts = [0]

    def interrupt(irq: random.Random) -> bool:
        if irq.random() < 0.2:
            interrupts[0] += 1
            return True
        return False

    for _ in range(600):
        kind = rng.choice(("movs", "stos"))
        size = rng.choice((1, 2, 4, 8))
        start = _case(rng, size)
        loop = model.Machine(dict(start.r), start.mem.copy(), start.df)
        fast = model.Machine(dict(start.r), start.mem.copy(), start.df)
        want = model.element_loop(loop, kind == "movs", size)
        windows = []
        irq = random.Random(rng.random())
        _, got = model.run(macroops[FAST[kind]], fast, size,
                           interrupt=lambda: interrupt(irq),
                           on_window=lambda m: windows.append((m.ecf, m.ezf)))
        where = (kind, size, start.r["rcx"], hex(start.r["rsi"]), hex(start.r["rdi"]), start.df)
        assert got == want, where
        assert fast.arch() == loop.arch(), where
        assert fast.mem.state() == loop.mem.state(), where
        # At every window RCX, RSI and RDI are the loop's (an interrupt
        # there restarts the rep, and the result above is still the
        # loop's), and gem5's two microcode flags, which the RFLAGS image
        # an interrupt pushes holds, are clear.
        assert all(w == (0, 0) for w in windows), where
        chunked += bool(windows)
        faults += want is not None
    # The sample reaches lines, faults and interrupts alike.
    assert chunked > 100 and faults > 20 and interrupts[0] > 100


def test_the_micro_ops_the_commit_message_gives():
    # A page-aligned 4 KiB: 64 lines of 14 (movs) or 9 (stos) micro-ops,
    # and 30 or 29 around them, whatever the element's size.
    for size in (1, 8):
        assert _uops("movs", PAGE // size, size) == 30 + 64 * 14 == 926
        assert _uops("stos", PAGE // size, size) == 29 + 64 * 9 == 605
        assert _uops("movs", PAGE // size, size) - _uops("movs", PAGE // 2 // size, size) \
            == 32 * 14
        assert _uops("stos", PAGE // size, size) - _uops("stos", PAGE // 2 // size, size) \
            == 32 * 9
    # Under a line, in one page: at most four accesses and the room's
    # bookkeeping, 42-48 micro-ops a rep movsb of 8-63 bytes and 38-42 a
    # rep stosb, where gem5's loop takes 7 + 6 or 4 an element.
    movsb = {_uops("movs", n, 1) for n in range(8, 64)}
    stosb = {_uops("stos", n, 1) for n in range(8, 64)}
    assert (min(movsb), max(movsb), min(stosb), max(stosb)) == (42, 48, 38, 42)
    # Not a fast string: gem5's loop (7 + 6 or 4 micro-ops an element),
    # after the checks that sent it there: DF set (2 micro-ops more), or
    # for movs a destination within a line of the source (6 more).
    for n in (1, 40):
        assert _uops("movs", n, 8, df=1) == 7 + 6 * n + 2
        assert _uops("stos", n, 8, df=1) == 7 + 4 * n + 2
        pages = {p: [bytearray(PAGE), True, True] for p in (0x100, 0x101)}
        m = model.Machine({"rcx": n, "rsi": 0x100 * PAGE, "rdi": 0x100 * PAGE + 32},
                          model.Memory(pages))
        assert model.run(_macroops()[FAST["movs"]], m, 1) == (7 + 6 * n + 6, None)


# --- gem5 ---------------------------------------------------------------

def _gem5_or_skip():
    from test_smap import _gem5_with_series_or_skip
    return _gem5_with_series_or_skip("fast_strings chunked (patch 0030)")


def _cpu(fast_strings: str):
    return cpu_presets.with_params(cpu_presets.load_cpu(PRESET, "x86_64"),
                                   {"fast_strings": fast_strings})


def _both(kernel, image, job, g, **kwargs) -> dict:
    """The job's ROI on the Skylake preset with each fast_strings value."""
    import gem5_runs
    cache = cache_presets.load_cache(CACHE)
    return {f: gem5_runs.run(kernel, image, job, g, _cpu(f), cache, "smap",
                             timeout=3 * 3600, **kwargs)
            for f in knobs.BY_NAME["fast_strings"].choices}


def _both_with_twin(job_dict: dict):
    """The stock kernel's job on the loop and chunked, each call made
    without error, with the loop's checksum and the QEMU twin's: (kernel,
    {"loop": record, "chunked": record})."""
    import qemu_runs
    g = _gem5_or_skip()
    job = script.from_dict(job_dict, f"<fast strings {job_dict['workload']}>")
    kernel = kbuild.build_kernel("x86_64", "stock", layers=smap_models.layers_for("x86_64"))
    image = assemble.build_image("x86_64", job)
    recs = _both(kernel, image, job, g, uop_profile=True)
    for r in recs.values():
        assert r["result"]["ops"] == job_dict["run"]["iterations"] and r["result"]["errors"] == 0
    assert recs["loop"]["result"]["checksum"] == recs["chunked"]["result"]["checksum"]
    twin = qemu_runs.run(kernel, image, job,
                         smap_models.twin_profile("x86_64", "smap", _cpu("chunked").cpuid), 300,
                         plugin=True)
    assert twin["result"]["checksum"] == recs["chunked"]["result"]["checksum"]
    return kernel, recs


def _reps(rec: dict, kernel, symbols=None) -> list:
    """(pc, symbol, form, micro-ops, mnemonics, interrupted) of each rep
    movs or rep stos the ROI committed, in order; `symbols`: only those in
    them. An interrupted one (a timer interrupt between lines, or a fault)
    runs on into gem5's ROM, so its micro-ops are not all its own form's,
    and the rep then starts again."""
    names = SymbolMap(kernel.system_map)
    out = []
    for pc, forms, mnemonics in uop_profile.instances(Path(rec["gem5"]["uop_profile"]["trace"])):
        if forms[0] not in ("MOVS_E_M_M", "STOS_E_M"):
            continue
        symbol = names.name(pc)
        if symbols is None or symbol in symbols:
            out.append((pc, symbol, forms[0], len(mnemonics), mnemonics,
                        any(f != forms[0] for f in forms)))
    return out


def _by_pc(reps: list) -> dict:
    """pc -> [(micro-ops, mnemonics, interrupted)] of each time the rep at
    pc started (not its restarts after an interrupt), in order."""
    out, restarting = collections.defaultdict(list), set()
    for pc, _, _, n, mnemonics, interrupted in reps:
        if pc not in restarting:
            out[pc].append((n, mnemonics, interrupted))
        if interrupted:
            restarting.add(pc)
        else:
            restarting.discard(pc)
    return out


@pytest.mark.gem5
def test_a_page_copy_takes_the_models_micro_ops():
    """pread() of 4 KiB, page-aligned on both sides (usercopy-loop): one
    copy_user_* rep a call, rep movsq of 512 or, where the guest has
    erms, rep movsb of 4096; without erms a rep movsb of the 0-byte tail
    follows."""
    kernel, recs = _both_with_twin({"workload": "usercopy-loop",
                                    "run": {"iterations": 100, "warmup": 20, "size": PAGE,
                                            "direction": "to"}})
    erms = "erms" in recs["chunked"]["guest"]["cpu_flags"].split()
    size = 1 if erms else 8
    copy = {"copy_user_enhanced_fast_string" if erms else "copy_user_generic_string"}
    # gem5's loop: 7 + 6 micro-ops an element, each copy's rep once (no
    # interrupt enters a rep there); without erms the 0-byte rep movsb, 3.
    loop = _by_pc(_reps(recs["loop"], kernel, copy))
    (pc,) = [p for p, runs in loop.items() if runs[0][0] != 3]
    assert [n for n, _, _ in loop[pc]] == [7 + 6 * PAGE // size] * 100
    assert all([n for n, _, _ in runs] == [3] * 100 for p, runs in loop.items() if p != pc)
    # Chunked: 64 lines of 14 micro-ops and 30 around them, 926, as the
    # model of the patch's microcode counts it, for every copy no timer
    # interrupt entered (one that did restarts after a line).
    want = _uops("movs", PAGE // size, size)
    assert want == 926
    chunked = _by_pc(_reps(recs["chunked"], kernel, copy))[pc]
    assert len(chunked) == 100
    whole = [(n, mnemonics) for n, mnemonics, interrupted in chunked if not interrupted]
    assert len(whole) >= 95 and {n for n, _ in whole} == {want}
    assert all(m.count("ldsplitplain") == m.count("stsplit") == 4 * 64 for _, m in whole)


@pytest.mark.gem5
def test_statx_with_fast_strings_is_the_loops_statx():
    kernel, recs = _both_with_twin({"workload": "statx-loop",
                                    "run": {"iterations": 200, "warmup": 20}})
    # The same instructions, to the timer ticks.
    s0, s1 = recs["loop"]["gem5"]["summary"], recs["chunked"]["gem5"]["summary"]
    assert abs(s1["insts"] - s0["insts"]) <= 0.01 * s0["insts"]
    # Each rep stos of the calls (the compiler's memsets, at the same
    # addresses every call): gem5's loop takes 7 + 4 micro-ops an element,
    # so its micro-ops give its elements; chunked, the same rep takes what
    # the model counts for that many elements at some page offset of the
    # destination, the same every call.
    loop = _by_pc([r for r in _reps(recs["loop"], kernel) if r[2] == "STOS_E_M"])
    chunked = _by_pc([r for r in _reps(recs["chunked"], kernel) if r[2] == "STOS_E_M"])
    calls = [pc for pc, runs in loop.items() if len(runs) >= 200]
    assert calls
    for pc in calls:
        counts = collections.Counter(n for n, _, _ in loop[pc])
        (n_loop, times), = counts.most_common(1)
        assert times >= 200 and (n_loop - 7) % 4 == 0, (hex(pc), counts)
        elements = (n_loop - 7) // 4
        fast = collections.Counter(n for n, _, interrupted in chunked[pc] if not interrupted)
        (n_fast, times), = fast.most_common(1)
        assert times >= 190, (hex(pc), fast)
        possible = {_uops("stos", elements, size, dst_offset=offset)
                    for size in (1, 8) for offset in range(0, PAGE, size)
                    if elements * size <= 3 * PAGE}
        assert n_fast in possible, (hex(pc), elements, n_fast)
    # Fewer micro-ops in the rep forms, chunked.
    forms = ("MOVS_E_M_M", "STOS_E_M")
    p0, p1 = (recs[f]["gem5"]["uop_profile"]["forms"] for f in ("loop", "chunked"))
    assert sum(p1[f][1] for f in forms if f in p1) < sum(p0[f][1] for f in forms if f in p0)


@pytest.mark.gem5
def test_smap_still_faults_with_fast_strings(monkeypatch):
    from test_smap import assert_violator_faults_on_gem5
    assert_violator_faults_on_gem5(_gem5_or_skip(), _cpu("chunked"),
                                   cache_presets.load_cache(CACHE), "fast strings", monkeypatch)


REP_WITHOUT_STAC = "test-statx-rep-movsb-without-stac"
_REG = re.compile(r"\b(RSI|RDI|RCX): ([0-9a-f]{16})\b")
_ADDRESS = re.compile(r"unable to handle page fault for address: ([0-9a-f]+)")


def _oops_registers(console: str) -> dict:
    """The faulting rep's RCX, RSI and RDI, and the fault's address, from
    the console's first oops."""
    oops = console[console.index("unable to handle page fault"):]
    regs = {}
    for name, value in _REG.findall(oops):
        regs.setdefault(name, int(value, 16))
    regs["address"] = int(_ADDRESS.search(oops).group(1), 16)
    return regs


@pytest.mark.gem5
def test_a_fault_inside_a_fast_string_leaves_the_loops_registers(monkeypatch):
    """cp_statx copies with a bare rep movsb of 256 bytes and no stac: its
    first store faults (SMAP) on the copy's first byte, with RCX 0x100.
    Chunked gem5 leaves what gem5's loop leaves, on the same checkpoint,
    and QEMU the same RCX and fault address."""
    import gem5_runs
    import qemu_runs
    from test_smap import DATA, _failed_console
    g = _gem5_or_skip()
    monkeypatch.setenv("UACCESS_EXTRA_VARIANTS", str(DATA / "variants"))
    job = script.from_dict({"workload": "statx-loop", "run": {"iterations": 20, "warmup": 0}},
                           "<fast strings fault test>")
    kernel = kbuild.build_kernel("x86_64", REP_WITHOUT_STAC,
                                 layers=smap_models.layers_for("x86_64"))
    image = assemble.build_image("x86_64", job)
    seen = {}
    for f in knobs.BY_NAME["fast_strings"].choices:
        console = _failed_console(lambda: gem5_runs.run(
            kernel, image, job, g, _cpu(f), cache_presets.load_cache(CACHE), "smap",
            timeout=3 * 3600, force=True))
        assert "#PF: supervisor write access in kernel mode" in console
        assert "#PF: error_code(0x0003) - permissions violation" in console
        assert "RIP: 0010:cp_statx" in console
        seen[f] = _oops_registers(console)
    # The same checkpoint, so the same buffers: the same RCX, RSI and RDI,
    # and the fault at RDI, the copy's first byte, with nothing copied.
    assert seen["chunked"] == seen["loop"]
    assert seen["chunked"]["RCX"] == 0x100
    assert seen["chunked"]["address"] == seen["chunked"]["RDI"]
    qemu = _oops_registers(_failed_console(lambda: qemu_runs.run(
        kbuild.build_kernel("x86_64", REP_WITHOUT_STAC), image, job, "x86_64-smap", 300,
        force=True)))
    assert qemu["RCX"] == 0x100 and qemu["address"] == qemu["RDI"]
