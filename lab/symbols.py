"""Kernel symbols, and gem5's instruction trace read against them.

Both the run stage (the O3 commit profile) and analysis (the symbol-by-
symbol cross-check) attribute gem5's committed instructions to kernel
functions; the rule is the QEMU plugin's, so the two simulators agree on
which function an address belongs to.
"""

import bisect
import gzip
import re
from pathlib import Path

USER = "<user>"
UNKNOWN = "[unknown]"
KERNEL_ADDR_BIT = 1 << 63
TEXT_RANK = {"T": 0, "W": 1, "t": 2, "w": 3}  # the plugin's preference at one address

# gem5's Exec trace, one macro-op per line:
# "<tick>: board.processor.cores.core: 0xffffffff8118668c    :   LFENCE  : ..."
# The tick is when the record was stamped: execution on the simple CPUs,
# commit on O3 with our series' patch 0007.
_LINE = re.compile(r"^\s*(\d+): \S+: (0x[0-9a-f]+)(?:\.\d+)?\s*:\s*(\S+)")


class SymbolMap:
    """Kernel text symbols by address, one name per address."""

    def __init__(self, system_map: Path):
        best = {}
        for order, line in enumerate(system_map.read_text().splitlines()):
            parts = line.split()
            if len(parts) < 3 or parts[1] not in TEXT_RANK:
                continue
            addr = int(parts[0], 16)
            rank = (TEXT_RANK[parts[1]], order)
            if addr not in best or rank < best[addr][0]:
                best[addr] = (rank, parts[2])
        self.addrs = sorted(best)
        self.names = [best[a][1] for a in self.addrs]

    def name(self, pc: int) -> str:
        if not pc & KERNEL_ADDR_BIT:
            return USER
        i = bisect.bisect_right(self.addrs, pc) - 1
        return self.names[i] if i >= 0 else UNKNOWN


def roi_instructions(trace: Path):
    """(tick, pc, mnemonic) of every instruction a ROI replay's Exec trace
    holds, from the restore up to and including the m5 workend that ends
    the ROI; a ValueError if the trace has no workend."""
    opener = gzip.open if trace.suffix == ".gz" else open
    with opener(trace, "rt", errors="replace") as f:
        for line in f:
            m = _LINE.match(line)
            if not m:
                continue  # gem5's own messages (the RTC, warnings)
            mnemonic = m.group(3)
            yield int(m.group(1)), int(m.group(2), 16), mnemonic
            if mnemonic.lower() == "gem5op":  # x86 "gem5Op", Arm "gem5op"
                return
    raise ValueError(f"{trace}: the trace has no m5 workend: the ROI never ended")
