"""Writing the report out: Markdown and HTML from the sections the report
assembled (title, table, symbol deltas, figure). Both open with the
findings (analysis/findings.py) and a table of contents, then the intro."""

import html
import json

from analysis.metrics import fmt


def title(arch, workload, params, profile, script=""):
    """A group's title: the swept values, and the script where that is
    what tells two groups apart."""
    p = json.loads(params or "{}")
    extra = ", ".join([f"{k}={v}" for k, v in p.items()] + ([script] if script else []))
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


FINDINGS_NOTE = ("Read off QEMU's exact counts per call, stock -> variant; instructions "
                 "are the calls' own, what the ROI's interrupts ran taken out (the tables "
                 "below include it, as gem5's counts do). Each group's table has every "
                 "variant; `./run.py sweep` prints these lines too.")


def contents(sections, failed) -> list:
    """(anchor, title) of every part of the report, in order."""
    out = [("findings", "Findings"), ("about", "About these numbers")]
    out += [(f"s{i}", s[0]) for i, s in enumerate(sections, 1)]
    if failed:
        out.append(("failed", "Failed points"))
    return out + [("provenance", "Provenance")]


def markdown(sweep, sections, failed, prov, findings=()) -> str:
    """findings: (where, what, section number or None) per line."""
    out = [f"# uaccess-lab report: sweep `{sweep}`", "", '<a id="findings"></a>',
           "", "## Findings", ""]
    if findings:
        out += [FINDINGS_NOTE, ""]
        out += [f"- [{where}](#s{n}): {what}" if n else f"- {where}: {what}"
                for where, what, n in findings]
    else:
        out.append("No mechanism's variant ran beside stock on QEMU in this sweep.")
    out += ["", "## Contents", ""]
    out += [f"- [{t}](#{a})" for a, t in contents(sections, failed)[1:]]
    out += ["", '<a id="about"></a>', "", "## About these numbers", "", INTRO, ""]
    for i, (title, header, body, deltas, fig) in enumerate(sections, 1):
        out += [f'<a id="s{i}"></a>', "", f"## {title}", "", md_table(header, body), ""]
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
        out += ['<a id="failed"></a>', "", "## Failed points", ""]
        out += [f"- {r['arch']}/{r['variant']}/{r['workload']}: {r['error']}" for r in failed]
        out.append("")
    out += ['<a id="provenance"></a>', "", "## Provenance", ""]
    for p in prov:
        out += [f"- **{p['point']}** run `{p['run']}`",
                f"  - kernel: {p['kernel']}; patches: {p['patches']}",
                f"  - simulator: {p['simulator']}; image: {p['image']}",
                f"  - command: `{p['command']}`",
                f"  - {p['host']}"]
    return "\n".join(out) + "\n"


def html_page(sweep, sections, failed, prov, findings=()) -> str:
    """findings: (where, what, section number or None) per line."""
    esc = html.escape
    parts = [f"<h1>uaccess-lab report: sweep {esc(sweep)}</h1>",
             '<h2 id="findings">Findings</h2>']
    if findings:
        parts.append(f"<p>{esc(FINDINGS_NOTE)}</p><ul>" + "".join(
            f'<li><a href="#s{n}">{esc(where)}</a>: {esc(what)}</li>' if n else
            f"<li>{esc(where)}: {esc(what)}</li>" for where, what, n in findings) + "</ul>")
    else:
        parts.append("<p>No mechanism's variant ran beside stock on QEMU in this sweep.</p>")
    parts.append('<h2 id="contents">Contents</h2><ul>' + "".join(
        f'<li><a href="#{a}">{esc(t)}</a></li>' for a, t in contents(sections, failed)[1:])
        + "</ul>")
    parts.append(f'<h2 id="about">About these numbers</h2><p>{esc(INTRO)}</p>')
    for i, (title, header, body, deltas, fig) in enumerate(sections, 1):
        parts.append(f'<h2 id="s{i}">{esc(title)}</h2>{html_table(header, body)}')
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
        parts.append('<h2 id="failed">Failed points</h2><ul>' + "".join(
            f"<li>{html.escape(r['arch'])}/{html.escape(r['variant'])}/"
            f"{html.escape(r['workload'])}: {html.escape(r['error'] or '')}</li>"
            for r in failed) + "</ul>")
    parts.append('<h2 id="provenance">Provenance</h2>' + html_table(
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
