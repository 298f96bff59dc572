"""`ember view`: one self-contained HTML page of a program (no scripts, no external files): its
inputs and outputs, the graph op by op (kernel, optimized or portable or float and why, layer and
source line, shapes, MACs, weight and output bytes, the ops each input comes from, and
instructions per op when a bench JSON is given) and the memory plan as a timeline per region
with the peak op marked."""

from __future__ import annotations

import html
import json
from pathlib import Path

_CSS = """
body { font: 13px/1.4 system-ui, sans-serif; margin: 24px; color: #1b1b1b; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
table { border-collapse: collapse; } td, th { padding: 3px 8px; border-bottom: 1px solid #ddd; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
tr.optimized td.k { border-left: 6px solid #2e8b57; } tr.bytes td.k { border-left: 6px solid #7aa6c2; }
tr.portable td.k { border-left: 6px solid #e0a030; } tr.float td.k { border-left: 6px solid #c0392b; }
.note { color: #555; } svg text { font: 9px sans-serif; }
.key { padding: 0 6px; border-left: 6px solid; margin-right: 8px; }
"""


def _kind(op: dict) -> str:
    note = op["kernel_note"]
    if note.startswith("float:"):
        return "float"
    if "moves bytes" in note:
        return "bytes"
    return "portable" if "portable" in note else "optimized"


def _instructions(bench: dict | None, target: str, model: str | None, num_ops: int) -> list | None:
    """Per-op instructions from an `ember bench --json` report: the row of `model` on the
    program's target (any model with as many ops when none is named)."""
    if not bench:
        return None
    for row in bench.get("results", []):
        if row.get("target") == target and (row.get("model") == model or (model is None and len(row.get("ops", [])) == num_ops)):
            if len(row.get("ops", [])) == num_ops:
                return [op.get("instructions") for op in row["ops"]]
    raise ValueError(f"the bench JSON has no row for {model or 'a program of ' + str(num_ops) + ' ops'} on {target}")


def _timeline(mem: dict, num_ops: int, region: dict) -> str:
    width, height, left = 900, 260, 50
    buffers = [b for b in mem["buffers"] if b["region"] == region["name"] and b["view_of"] < 0 and b["bytes"] > 0]
    size = max(1, region["bytes"])
    x = lambda op: left + (op + 0.5) * (width - left) / max(1, num_ops)  # noqa: E731
    y = lambda offset: height - 20 - offset * (height - 30) / size  # noqa: E731
    step = (width - left) / max(1, num_ops)
    parts = [f'<svg width="{width}" height="{height}" role="img" aria-label="memory plan of {html.escape(region["name"])}">',
             f'<text x="4" y="12">{region["bytes"]:,} B</text><text x="4" y="{height - 22}">0</text>']
    palette = ["#8dd3c7", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5", "#bc80bd"]
    for k, b in enumerate(buffers):
        first, last = max(0, b["first_op"]), max(0, b["last_op"])
        x0, x1 = x(first) - 0.45 * step, x(last) + 0.45 * step
        y0, y1 = y(b["offset"] + b["bytes"]), y(b["offset"])
        label = html.escape(f"{b['name']}: {b['bytes']:,} B at {b['offset']:,}, ops {first}-{last}")
        parts.append(f'<rect class="buffer" x="{x0:.1f}" y="{y0:.1f}" width="{x1 - x0:.1f}" height="{max(1.0, y1 - y0):.1f}" '
                     f'fill="{palette[k % len(palette)]}" stroke="#333" stroke-width="0.5"><title>{label}</title></rect>')
    peak = mem["peak_op_index"]
    if 0 <= peak < num_ops:
        parts.append(f'<line class="peak" x1="{x(peak):.1f}" x2="{x(peak):.1f}" y1="10" y2="{height - 20}" '
                     f'stroke="#c0392b" stroke-dasharray="4 3"/><text x="{x(peak) + 3:.1f}" y="20" fill="#c0392b">peak: op {peak}</text>')
    parts.append(f'<text x="{left}" y="{height - 4}">op 0</text><text x="{width - 40}" y="{height - 4}">op {num_ops - 1}</text>')
    return "".join(parts) + "</svg>"


def render(info: dict, title: str, instructions: list | None = None) -> str:
    """The page for `info` (Program.inspect())."""
    e = html.escape
    mem = info["memory"]
    producer = {t: i for i, op in enumerate(info["ops"]) for t in op["output_ids"]}
    view_of = {b["tensor"]: b["view_of"] for b in mem["buffers"] if b["view_of"] >= 0}

    def source(t: int) -> int | None:  # the op that wrote t's bytes (a view's: its source's)
        while t not in producer and t in view_of:
            t = view_of[t]
        return producer.get(t)

    rows = []
    for i, op in enumerate(info["ops"]):
        sources = sorted({s for s in map(source, op["input_ids"]) if s is not None})
        shape = op["input_shapes"][0] if op["input_shapes"] else ""
        count = f'<td class="n">{instructions[i]:,}</td>' if instructions and instructions[i] is not None else ("<td></td>" if instructions else "")
        rows.append(f'<tr class="{_kind(op)}"><td class="n">{i}</td><td class="k">{e(op["kernel"])}</td>'
                    f'<td class="note">{e(op["kernel_note"])}</td><td>{e(op["source"])}</td><td>{e(str(shape))}</td>'
                    f'<td class="n">{op["macs"]:,}</td><td class="n">{op["weight_bytes"]:,}</td>'
                    f'<td class="n">{op["output_bytes"]:,}</td><td>{", ".join(map(str, sources)) or "input"}</td>{count}</tr>')
    io_rows = [f'<tr><td>{kind[:-1]}</td><td>{e(io["name"])}</td><td>{io["model_shape"]}</td><td>{io["dtype"]}{io["shape"]} '
               f'{io["layout"]}</td><td>{io["scale"] if io["scale"] is not None else ""}</td><td>{"" if io["zero_point"] is None else io["zero_point"]}</td></tr>'
               for kind in ("inputs", "outputs") for io in info[kind]]
    kinds = [_kind(op) for op in info["ops"]]
    summary = ", ".join(f"{kinds.count(k)} {k}" for k in ("optimized", "bytes", "portable", "float") if k in kinds)
    regions = "".join(f'<h3>{e(r["name"])}: {r["bytes"]:,} B</h3>{_timeline(mem, len(info["ops"]), r)}' for r in mem["regions"])
    peak = e(mem["peak_op"] or "")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{e(title)}</title><style>{_CSS}</style></head><body>
<h1>{e(title)}</h1>
<p>target {e(info["target"])}; {info["file_bytes"]:,} bytes ({info["constant_bytes"]:,} of constants); {len(info["ops"])} ops: {summary}.
RAM {mem["arena_bytes"]:,} B planned, op-by-op bound {mem["lower_bound_bytes"]:,} B, peak at op {mem["peak_op_index"]} ({peak}).</p>
<h2>Inputs and outputs</h2>
<table><tr><th></th><th>name</th><th>model shape</th><th>on the device</th><th>scale</th><th>zero point</th></tr>{"".join(io_rows)}</table>
<h2>Graph</h2>
<p class="note"><span class="key" style="border-color:#2e8b57">optimized</span><span class="key" style="border-color:#7aa6c2">moves bytes</span><span class="key" style="border-color:#e0a030">portable</span><span class="key" style="border-color:#c0392b">float</span> "from" names the ops whose outputs an op reads.</p>
<table><tr><th>op</th><th>kernel</th><th>why</th><th>source (layer)</th><th>input shape</th><th>MACs</th><th>weights B</th><th>output B</th><th>from</th>{"<th>instructions</th>" if instructions else ""}</tr>
{"".join(rows)}</table>
<h2>Memory plan</h2>
<p class="note">Each box is a buffer from the first op that touches it to the last (hover for name, bytes and offset); the dashed line is the peak op.</p>
{regions}
</body></html>
"""


def write_view(program, path: str | Path, title: str, bench: str | Path | None = None, model: str | None = None) -> Path:
    info = program.inspect()
    report = json.loads(Path(bench).read_text()) if bench else None
    counts = _instructions(report, info["target"], model, len(info["ops"]))
    path = Path(path)
    path.write_text(render(info, title, counts))
    return path
