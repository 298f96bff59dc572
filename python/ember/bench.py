"""`ember bench`: compile, build and run zoo models under QEMU; one JSON file, one Markdown table.

Per (model, target) pair: instructions per inference (QEMU -icount + SysTick, exact and
repeatable), MACs (ember.models.stats.count) and MACs per instruction, RAM (planned arena per
region, the runtime's own state, the measured stack high-water mark), flash split from the link
map (runtime core, kernels, constants, other), mismatches against the host runtime, and the
instructions of every op. docs/firmware.md explains each number.

The Markdown page is a function of the JSON alone (`render_page`), so a committed JSON and its
page can be checked against each other without QEMU (`ember bench --from-json`,
tests/test_docs.py): docs/results.md is that page.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

DEFAULT_MODELS = ("kws", "vww", "ic", "ad", "sww")
DEFAULT_TARGETS = ("cortex-m55", "cortex-m4", "cortex-m3")


def bench_pair(program, target: str, model_name: str, macs: int, inputs, work: Path) -> dict:
    from ember.firmware import build_firmware, firmware_target
    from ember.measure import STACK_BUDGET, elf_size, flash_breakdown, static_stack
    from ember.qemu import run_qemu
    from ember.sdk import FirmwareError

    fw = build_firmware(program, target, work / f"{model_name}-{target}.elf", inputs=inputs)
    result = run_qemu(fw.elf, target)
    info = program.inspect()
    arena = {r["name"]: r["bytes"] for r in info["memory"]["regions"]}
    ram = {"arena": arena, "runtime_state": result.ram.get("runtime_state"),
           "stack": result.ram.get("stack"), "stack_static": static_stack(target)}
    over = [k for k in ("load", "run") if ram["stack_static"][k] > STACK_BUDGET]
    if over:
        raise FirmwareError(f"{target}: static stack of {', '.join(over)} over the budget of "
                            f"{STACK_BUDGET} bytes: {ram['stack_static']}")
    ram["total"] = sum(arena.values()) + (ram["runtime_state"] or 0) + (ram["stack"] or 0)
    flash = flash_breakdown(fw.map)
    test_vectors = sum(x.nbytes for case in inputs for x in case) + sum(
        y.nbytes for case in fw.expected for y in case)
    flash["test_vectors"] = test_vectors   # part of "other": not needed by a real application
    size = elf_size(fw.elf)
    flash["elf_text_data"] = size["text"] + size["data"]   # what `ember demo` prints
    instructions = result.instructions
    shapes = {b["tensor"]: b["shape"] for b in info["memory"]["buffers"]}
    ops = []
    for op, measured in zip(info["ops"], result.ops):
        ops.append({"op": op["op"], "layer": _layer(op["source"]), "kernel": op["kernel"],
                    "kernel_note": op["kernel_note"], "input_shape": shapes.get(op["input_ids"][0]),
                    "output_shape": shapes.get(op["output_ids"][0]),
                    "instructions": measured["instructions"], "macs": op.get("macs", 0)})
    npu = getattr(program, "npu", None)
    if npu:
        # The CPU's work only: an ethos_u op's count is the firmware's NPU stand-in (QEMU has no
        # NPU); the NPU's time is Vela's estimate, in NPU cycles.
        instructions -= sum(o["instructions"] for o in ops if o["kernel"] == "ethos_u")
        npu = {**npu, "cycles_estimate": sum(p["cycles_npu"] for p in npu["partitions"])}
        macs = 0  # on the NPU: a CPU ratio would mean nothing
    return {
        "model": model_name, "target": target, "tier": firmware_target(target).tier,
        "status": result.status, "fault": result.fault or None,
        "instructions": instructions, "macs": macs,
        "load_instructions": result.load_instructions,   # Program::load (verification), once
        "load_share": round(result.load_instructions / instructions, 4)
        if instructions and result.load_instructions else None,
        "macs_per_instruction": round(macs / instructions, 4) if instructions and macs else None,
        "npu": npu,
        "ram": ram, "flash": flash, "mismatches": result.mismatches, "ops": ops,
        "kernel_mix": kernel_mix(info["ops"]),
        "program": {"file_bytes": info["file_bytes"], "constant_bytes": info["constant_bytes"],
                    "ops": len(info["ops"]), "kernels": len(info["kernels"]),
                    "peak_op": info["memory"]["peak_op"]},
        "emulation_seconds": round(result.seconds, 2),
    }


def first_sample(program, calibration) -> list[tuple]:
    """The calibration set's first input tuple, in the device's layout and dtype: what a bench
    firmware runs."""
    import torch

    from ember.program import to_device

    return [tuple(to_device(torch.as_tensor(x), io) for x, io in zip(calibration[0], program.inputs))]


def run_bench(models=DEFAULT_MODELS, targets=DEFAULT_TARGETS, json_path=None, md_path=None,
              work_dir=None, log=print, plans=("default",), memory=None) -> dict:
    import ember
    from ember.models import entry, stats

    began = time.perf_counter()
    work = Path(work_dir) if work_dir else Path(tempfile.mkdtemp(prefix="ember-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    results = []
    for name in models:
        model, example_inputs, calibration = entry(name)()
        macs = stats.count(model, example_inputs).macs
        ep = ember.quantize(model, tuple(example_inputs), calibration)
        for target in targets:
            for plan in plans:
                start = time.perf_counter()
                tag = name if plan == "default" else f"{name}-{plan}"
                try:
                    program = ember.lower(ep, target, plan=plan, memory=memory)
                    row = bench_pair(program, target, tag, macs, first_sample(program, calibration), work)
                    row["model"] = name
                    row["ram"]["lower_bound"] = program.inspect()["memory"]["lower_bound_bytes"]
                except (ember.CompileError, RuntimeError) as e:
                    row = {"model": name, "target": target, "status": "error", "error": str(e)}
                row["plan"] = plan
                results.append(row)
                log(f"{name} ({plan} plan) on {target}: {_line(row)} ({time.perf_counter() - start:.1f} s)")
    # The runtime core alone, with and without its error messages (EMBER_NO_LOG), per target.
    core = {}
    for target in targets:
        from ember.firmware import build_firmware
        from ember.measure import flash_breakdown

        try:
            program = ember.lower(ember.quantize(*_tiny()), target)
            sizes = {"verifier": {}}
            for no_log in (False, True):
                fw = build_firmware(program, target, work / f"core-{target}-{no_log}.elf", no_log=no_log)
                flash = flash_breakdown(fw.map)
                key = "no_log" if no_log else "with_log"
                sizes[key] = flash["runtime_core"]
                sizes["verifier"][key] = flash["verifier"]   # part of runtime_core
            core[target] = sizes
        except (ember.CompileError, RuntimeError) as e:
            core[target] = {"error": str(e)}
        log(f"runtime core on {target}: {core[target]}")
    report = {"results": results, "runtime_core": core, "method": "QEMU -icount shift=10,sleep=off, SysTick in the guest "
              "(docs/firmware.md); instructions, not cycles", "source": _source(models, targets, plans, memory)}
    report["source"]["seconds"] = round(time.perf_counter() - began)
    if json_path:
        Path(json_path).write_text(json.dumps(report, indent=1) + "\n")
    if md_path:
        Path(md_path).write_text(render_page(report))
    return report


def render_page(report: dict) -> str:
    """The Markdown page of a bench report: what was measured and how, the summary table, the
    runtime core and verifier per target, load cost and static stack, then one per-layer table
    per model and target (default plans)."""
    results, core, src = report["results"], report.get("runtime_core", {}), report.get("source", {})
    out = ["# Results",
           "Written by `ember bench` from `docs/results.json`; do not edit it by hand. To measure again "
           f"({_duration(src.get('seconds'))} on {src.get('cpus', '?')} cores) and rewrite both:\n",
           f"```sh\n{src.get('command', 'ember bench')}\n```\n",
           "To rewrite this page from the JSON alone: `ember bench --from-json docs/results.json --md "
           "docs/results.md`. `tests/test_docs.py` fails when the page is not what the JSON gives.\n"]
    if src:
        tree = "" if src.get("clean") else " with uncommitted changes in the measured sources"
        out.append(f"Measured at commit `{src.get('commit', '?')}`{tree}; {src.get('gcc', '?')}; "
                   f"{src.get('qemu', '?')}. {report.get('method', '')}. What each column counts: "
                   "[firmware.md](firmware.md#how-the-numbers-are-measured).\n")
    out.append("## Summary\n\n" + markdown(results))
    ok = {t: c for t, c in core.items() if "error" not in c}
    if ok:
        out.append("\n## Runtime core and verifier\n\n"
                   "Flash bytes in the link map of a one-layer model's firmware (the model does not change "
                   "them): `libember_runtime.a`, and of it the load-time file checks (`program_verifier`, "
                   "`program_structure`), with error messages and with `EMBER_NO_LOG`.\n\n"
                   "| target | runtime core | runtime core, `EMBER_NO_LOG` | verifier | verifier, `EMBER_NO_LOG` |\n"
                   "|---|---:|---:|---:|---:|\n" +
                   "".join(f"| {t} | {c['with_log']:,} | {c['no_log']:,} | {c['verifier']['with_log']:,} | "
                           f"{c['verifier']['no_log']:,} |\n" for t, c in ok.items()))
    out.append("\n## Load cost and stack\n\n" + load_markdown(results))
    out.append("\n## Per layer (default plans)\n\nInstructions of each op's `Executor::run_op` (binding and call "
               "included) per core; the kernel column is the program's `kernel_note` on the first core. MACs "
               "are 0 for ops without multiply-accumulates.\n" + layers_markdown([r for r in results if r.get("plan", "default") == "default"]))
    return "\n\n".join(part.strip("\n") for part in out) + "\n"


def load_markdown(results: list[dict]) -> str:
    """Program::load's instructions (every check, once per program), its ratio to one inference,
    the op-by-op lower bound of the plan, and the static stack bounds of load and run."""
    rows = ["| model | plan | target | load instructions | load / inference | arena lower bound | "
            "stack bound: load / run (static) | stack used (measured) |",
            "|---|---|---|---:|---:|---:|---:|---:|"]
    for r in results:
        if r.get("status") != "pass":
            continue
        ram, share = r["ram"], r.get("load_share")
        rows.append(f"| {r['model']} | {r.get('plan', 'default')} | {r['target']} | "
                    f"{r['load_instructions']:,} | {'' if share is None else f'{100 * share:.1f}%'} | "
                    f"{ram.get('lower_bound', 0):,} | {ram['stack_static']['load']:,} / "
                    f"{ram['stack_static']['run']:,} | {ram['stack']:,} |")
    return "\n".join(rows) + "\n"


def _source(models, targets, plans, memory) -> dict:
    """What was measured: the sources' commit, whether they had uncommitted changes, the
    toolchain, and the command that measures it again."""
    from ember.sdk import source_root

    root = source_root()

    def run(*cmd) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return ""

    dirty = run("git", "-C", str(root), "status", "--porcelain", "--", "runtime", "kernels", "compiler",
                "schema", "targets", "python")
    command = (f"ember bench --models {','.join(models)} --targets {','.join(targets)} --plan {','.join(plans)}"
               + (f" --memory {memory}" if memory else "") + " --json docs/results.json --md docs/results.md")
    return {"commit": run("git", "-C", str(root), "rev-parse", "--short=12", "HEAD") or "?",
            "clean": not dirty, "gcc": run("arm-none-eabi-gcc", "--version").split("\n")[0],
            "qemu": run("qemu-system-arm", "--version").split("\n")[0], "command": command,
            "cpus": os.cpu_count()}


def _duration(seconds) -> str:
    if seconds is None:
        return "time not recorded"
    return f"{seconds / 60:.0f} minutes" if seconds >= 120 else f"{seconds} s"


def _tiny():
    """A one-layer model: the runtime core does not depend on the model."""
    import torch

    model = torch.nn.Sequential(torch.nn.Linear(8, 4)).eval()
    x = (torch.randn(1, 8),)
    return model, x, [x]


def _layer(source: str) -> str:
    """The module path in an op's source ("aten.conv2d.default at kws.py:30 (blocks.0.dw)")."""
    return source[source.rfind("(") + 1:-1] if source.endswith(")") else source.split(" ")[0]


def kernel_mix(ops: list[dict]) -> dict:
    """How many ops run an optimized kernel, a byte-moving one (the same on every tier), a
    portable fallback, or a float kernel, from each op's kernel note."""
    mix = {"optimized": 0, "bytes": 0, "portable": 0, "float": 0}
    for op in ops:
        note = op["kernel_note"]
        kind = ("float" if note.startswith("float:") else "bytes" if "moves bytes" in note
                else "portable" if note.startswith("portable") else "optimized")
        mix[kind] += 1
    return mix


def _line(row: dict) -> str:
    if row.get("status") != "pass":
        return f"{row.get('status')}: {row.get('error') or row.get('fault') or row.get('mismatches')}"
    mix = ", ".join(f"{v} {k}" for k, v in row["kernel_mix"].items())
    npu = f" + {row['npu']['cycles_estimate']:,} NPU cycles (Vela's estimate)" if row.get("npu") else ""
    return (f"{row['instructions']:,} instructions{npu}, {row['macs_per_instruction']} MACs/instruction, "
            f"RAM {row['ram']['total']:,} B, flash {row['flash']['total']:,} B; ops: {mix}")


def markdown(results: list[dict]) -> str:
    head = ("| model | plan | target | instructions | MACs | MACs/instr | arena | stack | runtime state | RAM total "
            "| flash: runtime core | kernels | constants | other | total | mismatches |\n"
            "|---|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    rows = []
    for r in results:
        if r.get("status") != "pass" and "ram" not in r:
            rows.append(f"| {r['model']} | {r.get('plan', 'default')} | {r['target']} | {r.get('status')} | | | | | | | | | | | | |")
            continue
        arena = ", ".join(f"{k} {v:,}" for k, v in r["ram"]["arena"].items())
        f = r["flash"]
        work = f"{r['instructions']:,}"
        if r.get("npu"):
            work += f" on the CPU + {r['npu']['cycles_estimate']:,} NPU cycles (Vela's estimate)"
        ratio = "-" if r["macs_per_instruction"] is None else f"{r['macs_per_instruction']:.3f}"
        rows.append(f"| {r['model']} | {r.get('plan', 'default')} | {r['target']} | {work} | {r['macs']:,} | "
                    f"{ratio} | {arena} | {r['ram']['stack']:,} | "
                    f"{r['ram']['runtime_state']:,} | {r['ram']['total']:,} | {f['runtime_core']:,} | "
                    f"{f['kernels']:,} | {f['constants']:,} | {f['other']:,} | {f['total']:,} | "
                    f"{r['mismatches']} |")
    note = ("\nBytes. Instructions per inference under QEMU (`-icount shift=10,sleep=off` + SysTick), "
            "not cycles. Flash `other` includes board support, libc/libgcc and the embedded test "
            "vectors (`flash.test_vectors` in the JSON).\n")
    return head + "\n".join(rows) + "\n" + note


def layers_markdown(results: list[dict]) -> str:
    """One table per model and plan: each layer's kernel (as the first target runs it), its MACs
    and its instructions on every target side by side; a target whose program has other ops gets
    a table of its own."""
    tables: dict[tuple, list[dict]] = {}  # (model, plan, layers) -> results
    for r in results:
        if r.get("status") == "pass":
            layers = tuple(op["layer"] for op in r["ops"])
            tables.setdefault((r["model"], r.get("plan", "default"), layers), []).append(r)

    def shape(s):
        return "x".join(map(str, s[1:] if s and len(s) > 1 else s or []))

    out = []
    for (model, plan, _), rows in tables.items():
        plan_note = "" if plan == "default" else f" ({plan} plan)"
        cores = " | ".join(f"{r['target']} ({r['tier']})" for r in rows)
        out.append(f"\n#### {model}{plan_note}\n\n| # | layer | input -> output | kernel | MACs | {cores} |\n"
                   "|---:|---|---|---|---:|" + "---:|" * len(rows))
        for i, op in enumerate(rows[0]["ops"]):
            counts = " | ".join(f"{r['ops'][i]['instructions']:,}" for r in rows)
            out.append(f"| {i} | {op['layer']} | {shape(op['input_shape'])} -> {shape(op['output_shape'])} | "
                       f"{op['kernel']}: {op['kernel_note']} | {op['macs']:,} | {counts} |")
    return "\n".join(out) + "\n"
