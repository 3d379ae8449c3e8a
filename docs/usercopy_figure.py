"""The arm64 copies on the Neoverse V2 machine (usercopy-arm), size by
size and each way: gem5's copy routine after/before (its own cycles, the
commit profile) for each [[arm_effect]] claim's judged pair and the pairs
shown beside it, against each thread's time ratio, as the scorecard
reads them. docs/figures.py calls it (--all).
"""

import textwrap
from pathlib import Path

from analysis.kinds import arm_effect, registry
from analysis.scorecard import Scored


def draw(plt, rows: list, path: Path) -> bool:
    """Draw into `path`; False (nothing drawn) without usercopy runs."""
    runs = arm_effect.copy_runs(Scored.of(rows).rows)
    if not runs:
        return False
    claims = registry.CLAIMS.of("arm_effect")
    fig, axes = plt.subplots(1, 2, figsize=(11, 5.6), sharey=True)
    for ax, direction in zip(axes, ("to", "from")):
        mine = [c for c in claims if c.direction == direction]
        if not mine:
            continue
        c = mine[0]
        styles = (("o-", "#1f77b4"), ("s:", "#9467bd"), ("d:", "#7f7f7f"))
        pairs = [((c.before, c.after), "gem5, the thread's copy (judged)")] + [
            ((b, a), f"gem5, not judged: {why}") for b, a, why in c.shown]
        for ((before, after), label), (style, color) in zip(pairs, styles):
            points = []
            for (variant, d, size, *setup), b in sorted(runs.items()):
                if variant != before or d != direction:
                    continue
                a = runs.get((after, d, size, *setup))
                cb = arm_effect.copy_cycles(b, c.function)
                ca = arm_effect.copy_cycles(a, c.function) if a else None
                if cb and ca:
                    points.append((size, ca / cb))
            if points:
                ax.plot(*zip(*sorted(points)), style, color=color, ms=5,
                        label=textwrap.fill(f"{label} ({before} -> {after})", 70))
        for claim, color in zip(mine, ("#d62728", "#2ca02c")):
            ax.plot(*zip(*sorted(claim.ratios)), "^--", color=color, ms=5,
                    label=f"hardware: {claim.what}")
        ax.set_xscale("log", base=2)
        ax.axhline(1, color="#777777", lw=0.8)
        # The PAN window's MSRs make a small copy up to 3.6x slower: past
        # the top, so that the claims' range stays readable.
        ax.set_ylim(0.45, 1.4)
        ax.set_xlabel(f"bytes per copy_{direction}_user")
        ax.set_title(f"__arch_copy_{direction}_user", fontsize=10)
        ax.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.16), frameon=False)
    axes[0].set_ylabel("time after / before (the copy routine's cycles)")
    fig.suptitle("arm64 user copies on the Neoverse V2 machine: gem5 against the threads",
                 fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
