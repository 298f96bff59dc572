"""`ember bench`: compile, build and run zoo models under QEMU; one JSON file, one Markdown table.

Per (model, target) pair: instructions per inference (QEMU -icount + SysTick, exact and
repeatable), MACs (ember.models.stats.count) and MACs per instruction, RAM (planned arena per
region, the runtime's own state, the measured stack high-water mark), flash split from the link
map (runtime core, kernels, constants, other), mismatches against the host runtime, and the
instructions of every op. docs/firmware.md explains each number.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

DEFAULT_MODELS = ("kws", "vww", "ic", "ad", "sww")
DEFAULT_TARGETS = ("cortex-m55", "cortex-m4", "cortex-m3")


def bench_pair(program, target: str, model_name: str, macs: int, inputs, work: Path) -> dict:
    from ember.firmware import (STACK_BUDGET, FirmwareError, build_firmware, flash_breakdown,
                                firmware_target, run_qemu, static_stack)

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
    instructions = result.instructions
    shapes = {b["tensor"]: b["shape"] for b in info["memory"]["buffers"]}
    ops = []
    for op, measured in zip(info["ops"], result.ops):
        ops.append({"op": op["op"], "layer": _layer(op["source"]), "kernel": op["kernel"],
                    "kernel_note": op["kernel_note"], "input_shape": shapes.get(op["input_ids"][0]),
                    "output_shape": shapes.get(op["output_ids"][0]),
                    "instructions": measured["instructions"], "macs": op.get("macs", 0)})
    return {
        "model": model_name, "target": target, "tier": firmware_target(target).tier,
        "status": result.status, "fault": result.fault or None,
        "instructions": instructions, "macs": macs,
        "load_instructions": result.load_instructions,   # Program::load (verification), once
        "load_share": round(result.load_instructions / instructions, 4)
        if instructions and result.load_instructions else None,
        "macs_per_instruction": round(macs / instructions, 4) if instructions else None,
        "ram": ram, "flash": flash, "mismatches": result.mismatches, "ops": ops,
        "emulation_seconds": round(result.seconds, 2),
    }


def run_bench(models=DEFAULT_MODELS, targets=DEFAULT_TARGETS, json_path=None, md_path=None,
              work_dir=None, log=print, plans=("default",), memory=None) -> dict:
    import torch

    import ember
    from ember.models import ZOO, stats
    from ember.program import to_device

    work = Path(work_dir) if work_dir else Path(tempfile.mkdtemp(prefix="ember-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    results = []
    for name in models:
        model, example_inputs, calibration = ZOO[name]()
        macs = stats.count(model, example_inputs).macs
        ep = ember.quantize(model, tuple(example_inputs), calibration)
        for target in targets:
            for plan in plans:
                start = time.perf_counter()
                tag = name if plan == "default" else f"{name}-{plan}"
                try:
                    program = ember.lower(ep, target, plan=plan, memory=memory)
                    inputs = [tuple(to_device(torch.as_tensor(x), io)
                                    for x, io in zip(calibration[0], program.inputs))]
                    row = bench_pair(program, target, tag, macs, inputs, work)
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
        from ember.firmware import build_firmware, flash_breakdown

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
    report = {"results": results, "runtime_core": core, "method": "QEMU 7.2 -icount shift=10,sleep=off, SysTick in the guest "
              "(docs/firmware.md); instructions, not cycles"}
    if json_path:
        Path(json_path).write_text(json.dumps(report, indent=1) + "\n")
    if md_path:
        text = markdown(results) + "\nRuntime core (flash bytes of libember_runtime.a in the link map; "
        text += "with error messages / with EMBER_NO_LOG): "
        text += ", ".join(f"{t} {c.get('with_log', '?'):,} / {c.get('no_log', '?'):,}" for t, c in core.items()
                          if "error" not in c) + "\n"
        text += ("\nVerifier, part of the runtime core (flash bytes of program_verifier and program_structure "
                 "in the link map; with error messages / with EMBER_NO_LOG): ")
        text += ", ".join(f"{t} {c['verifier']['with_log']:,} / {c['verifier']['no_log']:,}"
                          for t, c in core.items() if "error" not in c) + "\n"
        Path(md_path).write_text(text + "\n### Per layer\n" + layers_markdown(results))
    return report


def _tiny():
    """A one-layer model: the runtime core does not depend on the model."""
    import torch

    model = torch.nn.Sequential(torch.nn.Linear(8, 4)).eval()
    x = (torch.randn(1, 8),)
    return model, x, [x]


def _layer(source: str) -> str:
    """The module path in an op's source ("aten.conv2d.default at kws.py:30 (blocks.0.dw)")."""
    return source[source.rfind("(") + 1:-1] if source.endswith(")") else source.split(" ")[0]


def _line(row: dict) -> str:
    if row.get("status") != "pass":
        return f"{row.get('status')}: {row.get('error') or row.get('fault') or row.get('mismatches')}"
    return (f"{row['instructions']:,} instructions, {row['macs_per_instruction']} MACs/instruction, "
            f"RAM {row['ram']['total']:,} B, flash {row['flash']['total']:,} B")


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
        rows.append(f"| {r['model']} | {r.get('plan', 'default')} | {r['target']} | {r['instructions']:,} | {r['macs']:,} | "
                    f"{r['macs_per_instruction']:.3f} | {arena} | {r['ram']['stack']:,} | "
                    f"{r['ram']['runtime_state']:,} | {r['ram']['total']:,} | {f['runtime_core']:,} | "
                    f"{f['kernels']:,} | {f['constants']:,} | {f['other']:,} | {f['total']:,} | "
                    f"{r['mismatches']} |")
    note = ("\nBytes. Instructions per inference under QEMU (`-icount shift=10,sleep=off` + SysTick), "
            "not cycles. Flash `other` includes board support, libc/libgcc and the embedded test "
            "vectors (`flash.test_vectors` in the JSON).\n")
    return head + "\n".join(rows) + "\n" + note


def layers_markdown(results: list[dict]) -> str:
    """One table per (model, plan, target): each layer's kernel and what it costs."""
    out = []
    for r in results:
        if r.get("status") != "pass":
            continue
        plan = "" if r.get("plan", "default") == "default" else f", {r['plan']} plan"
        out.append(f"\n#### {r['model']} on {r['target']} ({r['tier']}{plan})\n\n"
                   "| # | layer | input -> output | kernel | MACs | instructions | MACs/instr | share |\n"
                   "|---:|---|---|---|---:|---:|---:|---:|")
        for i, op in enumerate(r["ops"]):
            shape = lambda s: "x".join(map(str, s[1:] if s and len(s) > 1 else s or []))  # noqa: E731
            rate = f"{op['macs'] / op['instructions']:.2f}" if op["macs"] and op["instructions"] else ""
            out.append(f"| {i} | {op['layer']} | {shape(op['input_shape'])} -> {shape(op['output_shape'])} | "
                       f"{op['kernel']}: {op['kernel_note']} | {op['macs']:,} | {op['instructions']:,} | {rate} | "
                       f"{100 * op['instructions'] / r['instructions']:.1f}% |")
    return "\n".join(out) + "\n"
