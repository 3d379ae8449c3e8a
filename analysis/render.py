"""Writing the report out: Markdown and HTML from the sections the report
assembled (title, table, symbol deltas, figure)."""

import html
import json

from analysis.metrics import fmt


def title(arch, workload, params, profile):
    p = json.loads(params or "{}")
    extra = ", ".join(f"{k}={v}" for k, v in p.items())
    return f"{arch} / {workload}" + (f" ({extra})" if extra else "") + f" / {profile}"


def md_table(header, body):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in body]
    return "\n".join(lines)


def html_table(header, body):
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    rows = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
                   for row in body)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


INTRO = ("QEMU counts are instructions QEMU-TCG executed inside the workload's "
         "region of interest, per operation, from the uaccess_profile plugin; "
         "ns/op is guest wall time under TCG, a rough guide, not a cycle count. "
         "gem5 numbers are the O3 model's statistics for exactly the ROI. On x86 "
         "the smap_model column says what stood at every stac/clac site: with "
         "'smap', gem5 executed STAC/CLAC and enforced SMAP (our patch series, "
         "at the CPU preset's IprAccess latency); with none, lfence or serialize, "
         "an unpatched gem5 ran nothing, LFENCE or SERIALIZE there, so those "
         "rows MODEL the cost of SMAP rather than measure it. "
         "'checksum = stock' says the variant returned exactly what stock "
         "returned. In the cross-check, QEMU executes a rep string instruction "
         "once per iteration and gem5 commits it once, so 'QEMU, rep once' is "
         "the count that should agree with gem5's; what remains is mostly timer "
         "interrupts that land in QEMU's ROI (its clock follows host time). "
         "'./run.py crosscheck' explains a difference kernel function by kernel "
         "function from gem5's instruction trace.")


def markdown(sweep, sections, failed, prov) -> str:
    out = [f"# uaccess-lab report: sweep `{sweep}`", "", INTRO, ""]
    for title, header, body, deltas, fig in sections:
        out += [f"## {title}", "", md_table(header, body), ""]
        if fig:
            out += [f"![{title}]({fig})", ""]
        for variant, ds in deltas:
            if ds:
                out += [f"Kernel symbols that changed most, {variant} vs stock "
                         f"(instructions per op):", "",
                         md_table(["symbol", "stock", variant, "delta"],
                                   [[s, fmt(b), fmt(m), f"{d:+,.1f}"] for s, d, b, m in ds]),
                         ""]
    if failed:
        out += ["## Failed points", ""]
        out += [f"- {r['arch']}/{r['variant']}/{r['workload']}: {r['error']}" for r in failed]
        out.append("")
    out += ["## Provenance", ""]
    for p in prov:
        out += [f"- **{p['point']}** run `{p['run']}`",
                f"  - kernel: {p['kernel']}; patches: {p['patches']}",
                f"  - simulator: {p['simulator']}; image: {p['image']}",
                f"  - command: `{p['command']}`",
                f"  - {p['host']}"]
    return "\n".join(out) + "\n"


def html_page(sweep, sections, failed, prov) -> str:
    parts = [f"<h1>uaccess-lab report: sweep {html.escape(sweep)}</h1>",
             f"<p>{html.escape(INTRO)}</p>"]
    for title, header, body, deltas, fig in sections:
        parts.append(f"<h2>{html.escape(title)}</h2>{html_table(header, body)}")
        if fig:
            parts.append(f'<p><img src="{html.escape(str(fig))}" alt="{html.escape(title)}"></p>')
        for variant, ds in deltas:
            if ds:
                parts.append(f"<p>Kernel symbols that changed most, {html.escape(variant)} "
                             f"vs stock (instructions per op):</p>")
                parts.append(html_table(["symbol", "stock", variant, "delta"],
                                         [[s, fmt(b), fmt(m), f"{d:+,.1f}"]
                                          for s, d, b, m in ds]))
    if failed:
        parts.append("<h2>Failed points</h2><ul>" + "".join(
            f"<li>{html.escape(r['arch'])}/{html.escape(r['variant'])}/"
            f"{html.escape(r['workload'])}: {html.escape(r['error'] or '')}</li>"
            for r in failed) + "</ul>")
    parts.append("<h2>Provenance</h2>" + html_table(
        ["point", "run", "kernel", "patches", "simulator", "image", "command", "host"],
        [[p["point"], p["run"], p["kernel"], p["patches"], p["simulator"], p["image"],
          p["command"], p["host"]] for p in prov]))
    style = ("body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em}"
             "table{border-collapse:collapse;margin:.5em 0 1.5em}"
             "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right;font-size:13px}"
             "td:first-child,th:first-child{text-align:left}")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>uaccess-lab: "
            f"{html.escape(sweep)}</title><style>{style}</style></head><body>"
            + "\n".join(parts) + "</body></html>\n")
