"""The report's figures (matplotlib, Agg; PNG). Each function draws one
figure from data the metrics module computed, and says whether it could."""

import os
from pathlib import Path

from analysis.metrics import per_op


def pyplot():
    """matplotlib's pyplot without a display, or None: figures are optional."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def _save(plt, fig, title: str, path: Path) -> None:
    """Title, lay out, and write atomically (a report never shows half a PNG)."""
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    os.replace(tmp, path)


def group_bars(members: list, arch: str, count=per_op, digits: int = 1) -> list:
    """plot_group's two panels: (axis label, [(variant, value, its label)]).
    `count(row, column)` is the per-op value (the README's figure passes
    findings.per_call, the calls' own instructions, and digits=0, so its
    labels read as the table above it does)."""
    if arch == "x86_64":
        mech = ("stac + clac per op", lambda r: (per_op(r, "stac") or 0) + (per_op(r, "clac") or 0))
    else:
        mech = ("PSTATE.PAN writes per op", lambda r: per_op(r, "pan_writes") or 0)
    panels = [("kernel instructions per op", lambda r: count(r, "insns_kernel") or 0), mech]
    return [(label, [(r["variant"], value(r), f"{value(r):,.{digits}f}") for r in members])
            for label, value in panels]


def plot_group(title: str, members: list, arch: str, path: Path, count=per_op,
               digits: int = 1) -> bool:
    """Kernel insns/op and the uaccess-mechanism count per variant."""
    plt = pyplot()
    if plt is None:
        return False
    panels = group_bars(members, arch, count, digits)
    names = [name for name, _, _ in panels[0][1]]
    fig, axes = plt.subplots(1, 2, figsize=(10, 0.45 * len(names) + 1.6))
    for ax, (label, bars_) in zip(axes, panels):
        bars = ax.barh(names, [v for _, v, _ in bars_],
                       color=["#777777" if n == "stock" else "#3b6ea8" for n in names])
        ax.invert_yaxis()
        ax.set_xlabel(label)
        ax.bar_label(bars, labels=[text for _, _, text in bars_], fontsize=8, padding=2)
        ax.margins(x=0.2)
    _save(plt, fig, title, path)
    return True


def plot_gem5_group(title: str, members: list, path: Path) -> bool:
    """gem5 cycles per op: a bar per variant, grouped by smap model, so the
    modelled cost of STAC/CLAC shows beside each variant's own effect."""
    plt = pyplot()
    if plt is None:
        return False
    variants_ = list(dict.fromkeys(r["variant"] for r in members))
    order = ("-", "none", "lfence", "serialize", "smap")
    models = sorted({r["smap_model"] or "-" for r in members},
                    key=lambda m: (order.index(m) if m in order else len(order), m))
    cell = {(r["variant"], r["smap_model"] or "-"): per_op(r, "cycles") for r in members}
    fig, ax = plt.subplots(figsize=(max(5.0, 1.6 * len(variants_) * len(models) / 2), 3.4))
    width = 0.8 / len(models)
    for i, model in enumerate(models):
        xs = [j + (i - (len(models) - 1) / 2) * width for j in range(len(variants_))]
        ys = [cell.get((v, model)) or 0 for v in variants_]
        bars = ax.bar(xs, ys, width, label=f"smap_model {model}")
        ax.bar_label(bars, fmt="%.0f", fontsize=7, padding=1)
    ax.set_xticks(range(len(variants_)), variants_)
    ax.set_ylabel("cycles per op (gem5 O3)")
    top = max((v or 0) for v in cell.values())
    ax.set_ylim(0, top * 1.25)
    if models != ["-"]:
        ax.legend(fontsize=8, loc="upper center", ncol=len(models), frameon=False)
    _save(plt, fig, title, path)
    return True


def plot_window_costs(costs: dict, path: Path) -> bool:
    plt = pyplot()
    if plt is None or not costs:
        return False
    fig, ax = plt.subplots(figsize=(6, 3.4))
    for (arch, workload, variant, model), pts in sorted(costs.items()):
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                label=f"{arch} {variant} ({workload}, smap_model {model})")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("ROB entries (gem5 O3)")
    ax.set_ylabel("cycles per op over stock")
    ax.axhline(0, color="grey", linewidth=0.5)
    ax.legend(fontsize=7, frameon=False)
    _save(plt, fig, "A mechanism's cost against the out-of-order window", path)
    return True


def plot_model_cycles(title: str, by_preset: dict, path: Path) -> bool:
    """Cycles per op per CPU model, a bar per variant within each model."""
    plt = pyplot()
    if plt is None or not by_preset:
        return False
    presets = list(by_preset)
    variants = sorted({v for cells in by_preset.values() for v in cells},
                      key=lambda v: (v != "stock", v))
    fig, ax = plt.subplots(figsize=(max(6.0, 1.4 * len(presets)), 3.6))
    width = 0.8 / len(variants)
    for i, v in enumerate(variants):
        xs = [j + (i - (len(variants) - 1) / 2) * width for j in range(len(presets))]
        ax.bar(xs, [by_preset[p].get(v) or 0 for p in presets], width, label=v)
    ax.set_xticks(range(len(presets)), [p.replace("+", "\n+") for p in presets], fontsize=7)
    ax.set_ylabel("cycles per op")
    ax.legend(fontsize=8, frameon=False)
    _save(plt, fig, title, path)
    return True


def plot_calibration(title: str, xlabel: str, latencies: list, series: dict, lines: dict,
                     effect: list, target: float, effect_label: str, fitted: float,
                     path: Path) -> bool:
    """A calibration fit: each kernel's simulated time per op against the
    latency (points measured, lines fitted), and the effect between them
    against the seed's target, with the fitted latency marked."""
    plt = pyplot()
    if plt is None:
        return False
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    top = max(latencies + ([fitted] if fitted == fitted else []))
    xs = [0, top * 1.1]
    for name, ys in series.items():
        dots = left.plot(latencies, ys, "o", label=f"{name} (measured)")
        a, b = lines[name]
        left.plot(xs, [a + b * x for x in xs], "-", color=dots[0].get_color(), alpha=0.6)
    left.set_xlabel(xlabel)
    left.set_ylabel("simulated ns per op")
    left.legend(fontsize=8)
    right.plot(latencies, effect, "o-", color="#3b6ea8", label="gem5")
    right.axhline(target, color="#aa3333", ls="--", label="seed's hardware")
    if fitted == fitted and fitted >= 1:
        right.axvline(fitted, color="#777777", ls=":", label=f"fit: {fitted:.1f}")
    right.set_xlabel(xlabel)
    right.set_ylabel(effect_label)
    right.legend(fontsize=8)
    _save(plt, fig, title, path)
    return True


def plot_warmup(title: str, xlabel: str, lines: dict, path: Path, cold: dict = None) -> bool:
    """Cycles per op against one warm-up length, as the difference from
    the longest setting (in %, with the study's 1 % band): a line per
    variant ({label: [(length, cycles/op)]}), and the cold scheme's value
    per variant ({label: cycles/op}) as a dashed level where it was run."""
    plt = pyplot()
    if plt is None or not lines:
        return False
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    ax.axhspan(-1, 1, color="#dddddd", alpha=0.6, label="within 1 %")
    for i, (label, pts) in enumerate(sorted(lines.items())):
        colour, ref = f"C{i}", pts[-1][1]
        ax.plot([x for x, _ in pts], [100 * (y / ref - 1) for _, y in pts], "o-",
                color=colour, label=f"{label} ({ref:,.0f} cycles at {pts[-1][0]:,})")
        if cold and label in cold:
            ax.axhline(100 * (cold[label] / ref - 1), color=colour, linestyle="--",
                       linewidth=1, label=f"{label}, cold scheme")
    # Lengths start at 0 (no warm-up): linear near 0, logarithmic beyond.
    ax.set_xscale("symlog", linthresh=10)
    lowest = min(x for pts in lines.values() for x, _ in pts)
    ax.set_xlim(left=-0.5 if lowest == 0 else lowest / 2)
    # A tick at each length swept (a few storm passes get none of their
    # own on a log axis).
    ax.set_xticks(sorted({x for pts in lines.values() for x, _ in pts}))
    ax.set_xticklabels([f"{x:,}" for x in ax.get_xticks()])
    ax.set_xlabel(xlabel)
    ax.set_ylabel("cycles per op, % from the longest")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    _save(plt, fig, title, path)
    return True


def plot_prediction(title: str, bars: list, path: Path) -> bool:
    """A prediction's figure: per calibrated machine, gem5's change per
    call in percent (a bar), and where the machine has a band, the range
    the hardware's change would lie in if the machine's error stays
    within it (a line across the bar). `bars`: (machine, change %,
    (low %, high %) or None)."""
    plt = pyplot()
    if plt is None or not bars:
        return False
    names = [m for m, _, _ in bars]
    fig, ax = plt.subplots(figsize=(7, 0.6 * len(names) + 1.6))
    drawn = ax.barh(names, [c for _, c, _ in bars], color="#3b6ea8")
    ax.bar_label(drawn, labels=[f"{c:+.1f} %" for _, c, _ in bars], fontsize=8, padding=2)
    for i, (_, _, span) in enumerate(bars):
        if span:
            # Below the bar's middle, where its label is not.
            ax.plot(span, [i + 0.25, i + 0.25], color="#222222", linewidth=2, marker="|",
                    markersize=10)
    ax.axvline(0, color="#777777", linewidth=0.8)
    ax.invert_yaxis()
    ax.set_xlabel("change per call, % (bar: gem5; line: on hardware, within the band)")
    ax.margins(x=0.25)
    _save(plt, fig, title, path)
    return True
