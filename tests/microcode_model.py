"""A model of the gem5 x86 microcode our series gives rep movs and rep stos
(configs/gem5-patches 0030, fast strings), to run it without gem5: the
patch's own microcode text, assembled here micro-op by micro-op, on a
machine of 64-bit registers, gem5's two microcode flags (ECF, EZF), DF
and paged memory whose pages can refuse reads or writes.

What it models: each micro-op the fast-string macroops use, with gem5's
semantics (a subtraction's ECF is its borrow, a logic operation's EZF its
zero, a branch tests one flag; t0 reads 0 and drops writes), in program
order; an access of n bytes that touches a page it may not touch faults
at its first such byte, before it changes anything; an interrupt at an
.interrupt_window restarts the macroop from its first micro-op, as gem5's
interrupt entry does (it pushes the instruction's own RIP). What it cannot
see: timing, O3's reordering (its commit is in program order, which is
what a fault and an interrupt see) and how gem5 splits an access across
cache lines.

element_loop() is the instructions' Operation from the SDM (Vol. 2B,
MOVS and STOS with REP), the result the microcode must give.
"""

import re

MASK64 = (1 << 64) - 1
PAGE = 4096
REGS = ("rax", "rcx", "rsi", "rdi") + tuple(f"t{i}" for i in range(16))
# What a micro-op's parameters name, as gem5's microassembler's symbols do.
_SYMS = {r: r for r in REGS}
_SYMS.update({n: n for n in ("seg", "es", "dsz", "asz", "EZF", "ECF",
                             "CEZF", "nCEZF", "CECF", "nCECF")})
_SYMS["label"] = lambda name: ("label", name)


class Fault(Exception):
    """An access refused by its page: the first refused byte, read or write."""

    def __init__(self, addr: int, write: bool):
        super().__init__(f"{'write' if write else 'read'} fault at {addr:#x}")
        self.addr, self.write = addr, write

    def __eq__(self, other):
        return isinstance(other, Fault) and (self.addr, self.write) == (other.addr, other.write)


class Memory:
    """Pages by number: [bytes, readable, writable]; a missing page refuses both."""

    def __init__(self, pages: dict):
        self.pages = pages

    def copy(self) -> "Memory":
        return Memory({p: [bytearray(v[0]), v[1], v[2]] for p, v in self.pages.items()})

    def _check(self, addr: int, n: int, write: bool) -> None:
        for a in range(addr, addr + n):
            page = self.pages.get(a >> 12)
            if page is None or not page[1] or (write and not page[2]):
                raise Fault(a, write)

    def read(self, addr: int, n: int) -> int:
        self._check(addr, n, False)
        page = self.pages[addr >> 12][0]
        off = addr & (PAGE - 1)
        if off + n <= PAGE:
            return int.from_bytes(page[off:off + n], "little")
        return int.from_bytes(bytes(self.pages[(addr + i) >> 12][0][(addr + i) & (PAGE - 1)]
                                    for i in range(n)), "little")

    def write(self, addr: int, n: int, value: int) -> None:
        self._check(addr, n, True)
        for i, b in enumerate(value.to_bytes(n, "little")):
            self.pages[(addr + i) >> 12][0][(addr + i) & (PAGE - 1)] = b

    def state(self) -> dict:
        return {p: bytes(v[0]) for p, v in self.pages.items()}


def _c_eval(expr, dsz: int) -> int:
    """A C integer expression of the microcode (env.dataSize, ?:, /)."""
    return _ternary(str(expr).replace("env.dataSize", str(dsz)))


def _ternary(s: str) -> int:
    s = s.strip()
    while s.startswith("(") and _close(s) == len(s) - 1:
        s = s[1:-1].strip()
    depth, q = 0, -1
    for i, ch in enumerate(s):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "?" and depth == 0:
            q = i
            break
    if q < 0:
        return int(eval(s.replace("/", "//"), {"__builtins__": {}}))
    depth, nested = 0, 0
    for i in range(q + 1, len(s)):
        depth += {"(": 1, ")": -1}.get(s[i], 0)
        if depth == 0 and s[i] == "?":
            nested += 1
        elif depth == 0 and s[i] == ":":
            if not nested:
                return _ternary(s[q + 1:i]) if _ternary(s[:q]) else _ternary(s[i + 1:])
            nested -= 1
    raise ValueError(f"no ':' for '?' in {s!r}")


def _close(s: str) -> int:
    depth = 0
    for i, ch in enumerate(s):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            return i
    raise ValueError(s)


class MicroOp:
    def __init__(self, mnemonic, args, kwargs):
        self.mnemonic, self.args, self.kwargs = mnemonic, args, kwargs
        self.window = False  # .interrupt_window: not IsDelayedCommit


def patched_microcode(patch_text: str, path: str) -> str:
    """The microcode a patch adds to one of gem5's microcode files (a
    Python module whose `microcode` string it extends): its added lines,
    run as that module's tail."""
    m = re.search(r"^diff --git a/%s .*?(?=^diff --git |\Z)" % re.escape(path), patch_text,
                  re.S | re.M)
    if not m:
        raise ValueError(f"the patch does not change {path}")
    added = [line[1:] for line in m.group(0).splitlines()
             if line.startswith("+") and not line.startswith("+++")]
    namespace = {}
    exec('microcode = """' + "\n".join(added) + "\n", namespace)
    return namespace["microcode"]


def assemble(text: str) -> dict:
    """{macroop name: (micro-ops, {label: index})} of microcode text."""
    out = {}
    for m in re.finditer(r"def macroop (\w+)\s*\{(.*?)\n\};", text, re.S):
        ops, labels, pending = [], {}, []
        for line in m.group(2).splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if re.fullmatch(r"\w+:", line):
                pending.append(line[:-1])
                continue
            if line.startswith("."):
                if line != ".interrupt_window":
                    raise ValueError(f"{m.group(1)}: directive {line!r}")
                ops[-1].window = True
                continue
            mnemonic, _, params = line.partition(" ")
            ops.append(eval(f"_op({mnemonic!r}, {params})", dict(_SYMS),
                            {"_op": lambda n, *a, **k: MicroOp(n, a, k)}))
            labels.update(dict.fromkeys(pending, len(ops) - 1))
            pending = []
        out[m.group(1)] = (ops, labels)
    return out


class Machine:
    def __init__(self, regs: dict, memory: Memory, df: int = 0):
        self.r = dict.fromkeys(REGS, 0)
        self.r.update(regs)
        self.mem, self.df = memory, df
        self.ecf = self.ezf = 0

    def arch(self) -> dict:
        return {r: self.r[r] for r in ("rax", "rcx", "rsi", "rdi")}


def element_loop(m: Machine, movs: bool, dsz: int) -> Fault:
    """REP MOVS / REP STOS as the SDM gives their Operation, element by
    element; the fault that stops it (None: none)."""
    step = -dsz if m.df else dsz
    try:
        while m.r["rcx"]:
            value = m.mem.read(m.r["rsi"], dsz) if movs else m.r["rax"] & ((1 << 8 * dsz) - 1)
            m.mem.write(m.r["rdi"], dsz, value)
            m.r["rcx"] -= 1
            m.r["rdi"] = (m.r["rdi"] + step) & MASK64
            if movs:
                m.r["rsi"] = (m.r["rsi"] + step) & MASK64
    except Fault as f:
        return f
    return None


# More micro-ops than any rep the tests run needs (3 pages of bytes in
# gem5's loop take 73,735): past it the microcode is taken not to end.
MAX_MICRO_OPS = 200_000


def run(macroop, m: Machine, dsz: int, interrupt=lambda: False, on_window=None):
    """Run a macroop on `m`: (micro-ops executed, the fault or None)."""
    ops, labels = macroop
    env = {"dsz": dsz, "asz": 8}
    r = m.r

    def value(x, size):
        if x in r:
            return 0 if x == "t0" else r[x] & ((1 << 8 * size) - 1)
        if x in env:
            return env[x]
        return _c_eval(x, dsz) & ((1 << 8 * size) - 1)

    def put(reg, v, size):
        if reg == "t0":
            return
        full = (1 << 8 * size) - 1
        r[reg] = v & full if size >= 4 else (r[reg] & ~full) | (v & full)

    def holds(cond):
        return {"CEZF": m.ezf, "nCEZF": not m.ezf, "CECF": m.ecf, "nCECF": not m.ecf}[cond]

    upc = count = 0
    while True:
        op = ops[upc]
        count += 1
        if count > MAX_MICRO_OPS:
            raise AssertionError(f"no end after {MAX_MICRO_OPS} micro-ops (at {upc})")
        a, k, mn = op.args, op.kwargs, op.mnemonic
        size = value(k.get("dataSize", "dsz"), 8)
        flags = k.get("flags", ())
        nxt = upc + 1
        try:
            if mn == "br":
                if not flags or holds(flags[0]):
                    nxt = labels[a[0][1]]
            elif mn == "fault":
                return count, None
            elif mn == "ruflag":
                m.ezf = int(m.df == 0)  # bit 10: DF
            elif mn == "limm":
                put(a[0], value(a[1], 8), size)
            elif mn in ("mov", "movi"):
                if holds(flags[0]):
                    put(a[0], value(a[2], size), size)
            elif mn in ("ld", "st", "ldsplitplain", "stsplit"):
                scale, index, base = a[2]
                disp = a[3] if len(a) > 3 else k.get("disp", 0)
                addr = (value(base, 8) + scale * value(index, 8) + _c_eval(disp, dsz)) & MASK64
                if mn == "ld":
                    put(a[0], m.mem.read(addr, size), size)
                elif mn == "st":
                    m.mem.write(addr, size, value(a[0], size))
                elif mn == "ldsplitplain":
                    v = m.mem.read(addr, 16)
                    put(a[0][0], v & MASK64, 8)
                    put(a[0][1], v >> 64, 8)
                else:
                    m.mem.write(addr, 16, value(a[0][0], 8) | value(a[0][1], 8) << 64)
            else:
                s1, s2 = value(a[1], size), value(a[2], size)
                full = (1 << 8 * size) - 1
                if mn in ("repstart", "and", "andi", "andi64"):
                    res = s1 & s2
                elif mn == "or":
                    res = s1 | s2
                elif mn in ("sub", "subi"):
                    res = (s1 - s2) & full
                    if "ECF" in flags:
                        m.ecf = int(s1 < s2)
                elif mn in ("add", "addi"):
                    res = (s1 + s2) & full
                    if "ECF" in flags:
                        m.ecf = int(s1 + s2 > full)
                elif mn == "slli":
                    res = (s1 << (s2 & 63)) & full
                elif mn == "srli":
                    res = s1 >> (s2 & 63)
                elif mn == "zexti":
                    res = s1 & ((1 << (s2 + 1)) - 1)
                else:
                    raise NotImplementedError(mn)
                if "EZF" in flags:
                    m.ezf = int(res == 0)
                if "ECF" in flags and mn in ("repstart", "and", "andi", "andi64", "or"):
                    m.ecf = 0  # a logic operation clears the carries it is given
                put(a[0], res, size)
        except Fault as f:
            return count, f
        if op.window:
            if on_window:
                on_window(m)
            if interrupt():
                nxt = 0
        upc = nxt
