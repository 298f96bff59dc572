"""The `ember` command: compile, inspect and run models; `ember demo` shows the whole flow."""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import sys
import time
from pathlib import Path

import numpy as np


def _output(path: str) -> str:
    """Makes the folder an output goes to before any work (an OSError is one line, in main)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    return path


def _compile(args) -> int:
    import ember
    from ember.models import entry

    _output(args.output)
    model, example_inputs, calibration = entry(args.entry)()
    program = ember.compile(model, example_inputs, calibration=calibration, target=args.target,
                            float_io=args.float_io, memory=args.memory, plan=args.plan,
                            ram_budget=args.ram_budget, npu_reference=not args.no_npu_reference)
    program.save(args.output)
    _summary(program, args.output)
    return 0


def _summary(program, path: str) -> None:
    info = program.inspect()
    mem = info["memory"]
    regions = ", ".join(f"{r['name']} {r['bytes']:,} B" for r in mem["regions"])
    print(f"{path}: {info['file_bytes']:,} bytes ({info['constant_bytes']:,} of constants), "
          f"{len(info['ops'])} ops, {len(info['kernels'])} kernels")
    print(f"planned RAM: {regions}; lower bound {mem['lower_bound_bytes']:,} B, peak at {mem['peak_op']}")


def _inspect(args) -> int:
    from ember import Program

    program = Program.load(args.program)
    info = program.inspect()
    if args.plot:
        from ember.plot import plot_memory

        plot_memory(info, args.plot, title=args.program)
        print(f"memory timeline -> {args.plot}")
    # Program.load ran the runtime's checks (a file they reject stops there, in one line), as
    # the device of the file's target runs them.
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    _summary(program, args.program)
    print(f"runtime checks: ok for {program.target or 'every target (the file names none)'}")
    for kind in ("inputs", "outputs"):
        for io in info[kind]:  # the model's shape; how the device stores it beside (docs/firmware.md)
            stored = "" if io["layout"] == "as_model" else f" {io['shape']} {io['layout']}"
            quant = f", scale={io['scale']:.9g} zero_point={io['zero_point']}" if io["scale"] is not None else ""
            label = kind[:-1] if io["name"] == kind[:-1] else f"{kind[:-1]} {io['name']}"  # not "output output"
            print(f"{label}: {io['model_shape']}; on the device {io['dtype']}{stored}{quant}")
    width = max((len(op["kernel"]) for op in info["ops"]), default=0)
    note_width = max((len(op["kernel_note"]) for op in info["ops"]), default=0)
    # Per layer: MACs, its constants' bytes (flash: weights, tables) and its outputs' (RAM).
    print(f"{'op':>4}  {'kernel':<{width}}  {'kernel note':<{note_width}}  {'MACs':>11}  {'weights B':>9}  "
          f"{'output B':>8}  source")
    for i, op in enumerate(info["ops"]):
        print(f"{i:4d}  {op['kernel']:<{width}}  {op['kernel_note']:<{note_width}}  {op['macs']:>11,}  "
              f"{op['weight_bytes']:>9,}  {op['output_bytes']:>8,}  {op['source']}")
    return 0


def _view(args) -> int:
    from ember import Program
    from ember.view import write_view

    path = write_view(Program.load(args.program), _output(args.output), Path(args.program).name, args.bench, args.model)
    print(f"{args.program} -> {path}")
    return 0


def _run(args) -> int:
    import torch

    from ember import Program

    program = Program.load(args.program)
    arrays = [np.load(path) for path in args.input]
    if args.raw:
        outs = program.run_raw(*arrays)
    else:
        outs = program.run(*[torch.from_numpy(a) for a in arrays])
        outs = [o.numpy() for o in (outs if isinstance(outs, list) else [outs])]
    for i, out in enumerate(outs):
        path = args.output[i] if i < len(args.output) else None
        if path:
            np.save(path, out)
        flat = out.reshape(-1)
        print(f"output {i}: {out.dtype}{list(out.shape)}, argmax {int(flat.argmax())}"
              + (f" -> {path}" if path else ""))
    return 0


def _demo(args) -> int:
    """Keyword spotting from PyTorch to firmware: quantize, compile for the target, run on the
    host, build firmware for the target's emulated board, run it under QEMU and compare."""
    import torch

    import ember
    from ember.firmware import build_firmware, firmware_target
    from ember.measure import elf_size
    from ember.qemu import run_qemu
    from ember.models import kws
    from ember.models.kws import LABELS

    out_dir = Path(args.output).parent
    out_dir.mkdir(parents=True, exist_ok=True)
    model, example_inputs, calibration = kws()
    start = time.perf_counter()
    ep = ember.quantize(model, example_inputs, calibration)
    program = ember.lower(ep, target=args.target)
    seconds = time.perf_counter() - start
    program.save(args.output)
    print(f"compiled keyword spotting (DS-CNN, MLPerf Tiny) for {args.target} in {seconds:.1f} s")
    _summary(program, args.output)

    x = calibration[0][0]
    got = program.run(x, dequantize=False)
    ref = torch.round(ep.module()(x) / program.outputs[0]["scale"]) + program.outputs[0]["zero_point"]
    top = int(got.reshape(-1).argmax())
    print(f"host run: top class {top} ({LABELS[top]}), "
          f"{int((got.float() - ref).abs().max())} quanta from PyTorch's quantized reference")

    from ember.program import to_device

    elf = out_dir / f"kws-{args.target}.elf"
    fw = build_firmware(program, args.target, elf, inputs=[(to_device(x, program.inputs[0]),)])
    result = run_qemu(fw.elf, args.target)
    board = firmware_target(args.target).qemu_machine
    print(f"firmware {elf} on QEMU {board}: {result.describe()}")
    if result.status != "pass":
        return 1
    size = elf_size(fw.elf)
    state, stack = result.ram.get("runtime_state") or 0, result.ram.get("stack") or 0
    print(f"device: top class {top} ({LABELS[top]}), the host's bit for bit; "
          f"{result.instructions:,} instructions per inference; "
          f"RAM {program.arena_bytes + state + stack:,} B (arena {program.arena_bytes:,} + runtime {state} "
          f"+ stack {stack}); flash {size['text'] + size['data']:,} B")
    return 0


def _firmware(args) -> int:
    from ember import Program
    from ember.firmware import build_firmware, check_capacities
    from ember.measure import elf_size, flash_breakdown
    from ember.qemu import run_qemu

    program = Program.load(args.program)
    _output(args.output)
    inputs = None
    if args.input:  # the model's tensors, as for `run`, unless --raw
        arrays = [np.load(path) for path in args.input]
        if not args.raw:
            import torch

            from ember.program import to_device

            if len(arrays) != len(program.inputs):
                raise ValueError(f"the program takes {len(program.inputs)} inputs, got {len(arrays)}")
            arrays = [to_device(torch.from_numpy(a), io) for a, io in zip(arrays, program.inputs)]
        inputs = [tuple(arrays)]
    if args.memory:
        check_capacities(program, args.target, args.memory)
    fw = build_firmware(program, args.target, args.output, inputs=inputs, num_inputs=args.inputs)
    size = elf_size(fw.elf)
    flash = flash_breakdown(fw.map)
    print(f"{fw.elf}: {args.target}, {len(fw.inputs)} test input(s); text {size['text']:,} B, "
          f"data {size['data']:,} B, bss {size['bss']:,} B")
    print("flash: " + ", ".join(f"{k} {v:,} B" for k, v in flash.items()))
    if args.run:
        return _report_qemu(run_qemu(fw.elf, args.target, timeout=args.timeout), fw.meta_path, args.verbose)
    return 0


def _report_qemu(result, meta_path, verbose: bool) -> int:
    meta = json.loads(Path(meta_path).read_text()) if Path(meta_path).exists() else {}
    names = meta.get("ops", [])
    # A firmware of one's own (no description beside it) has only its console to show.
    if verbose or not meta or result.status not in ("pass", "mismatch"):
        print(result.stdout, end="")
        print(result.stderr, end="", file=sys.stderr)
    if result.ops:
        for op in result.ops:
            i = op["index"]
            label = f"{names[i]['kernel']:<22} {names[i].get('source', names[i]['op'])}" if i < len(names) else f"kernel {op['kernel_id']}"
            print(f"{i:4d}  {op['instructions']:>12,}  {label}")
    if result.ram:
        print(f"RAM: runtime state {result.ram['runtime_state']} B, stack {result.ram['stack']} B "
              f"of {result.ram['stack_size']} B")
    print(result.describe())
    return {"pass": 0, "mismatch": 1, "error": 2, "fault": 3, "timeout": 4}.get(result.status, 5)


def _qemu(args) -> int:
    from ember.qemu import run_qemu

    result = run_qemu(args.elf, args.target, timeout=args.timeout)
    return _report_qemu(result, Path(args.elf).with_suffix(".json"), args.verbose)


def _export_c(args) -> int:
    from ember import Program

    if (args.output is None) == (args.bundle is None):
        raise SystemExit("ember export-c: give one of -o PREFIX (the program as C) or --bundle DIR")
    program = Program.load(args.program)
    if args.bundle:
        from ember.bundle import export_bundle

        print(export_bundle(program, args.bundle, args.target))
        return 0
    from ember.export import export_c

    for path in export_c(program, _output(args.output), args.target):
        print(path)
    return 0


def _bench(args) -> int:
    from ember.bench import render_page, run_bench

    if args.from_json:
        if not args.md:
            raise SystemExit("ember bench --from-json needs --md, the page to write")
        Path(args.md).write_text(render_page(json.loads(Path(args.from_json).read_text())))
        return 0
    from ember.models import SUITE

    models = [m for name in args.models.split(",") for m in (SUITE if name == "suite" else [name])]
    report = run_bench(models, args.targets.split(","), args.json, args.md, args.work_dir,
                       plans=args.plan.split(","), memory=args.memory)
    bad = [r for r in report["results"] if r.get("status") != "pass"]
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    import ember

    parser = argparse.ArgumentParser(prog="ember", description=__doc__)
    parser.add_argument("--version", action="version", version=f"ember {importlib.metadata.version('ember')}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("compile", help="compile a zoo model or MODULE:NAME (a function returning model, "
                       "example inputs, calibration data)")
    p.add_argument("entry")
    p.add_argument("--target", default=ember.DEFAULT_TARGET, choices=ember.targets())
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--float-io", action="store_true", help="keep float model inputs and outputs")
    p.add_argument("--memory", help="region capacities, e.g. DTCM=64K,SRAM=256K (default: the target table)")
    p.add_argument("--plan", default="default", choices=("simple", "default", "smallest"),
                   help="memory plan: simple, default (in place, op order) or smallest (docs/memory.md)")
    p.add_argument("--ram-budget", type=int, help="total arena bytes; plans smaller when over it, fails if it cannot")
    p.add_argument("--no-npu-reference", action="store_true", help="with an NPU: leave out the partitions' TOSA "
                   "graphs (a smaller file; host runs of the partitions then fail)")
    p.set_defaults(func=_compile)

    p = sub.add_parser("inspect", help="describe a program file and run the runtime's load checks on it")
    p.add_argument("program")
    p.add_argument("--json", action="store_true")
    p.add_argument("--plot", metavar="PNG", help="draw the memory timeline (matplotlib)")
    p.set_defaults(func=_inspect)

    p = sub.add_parser("view", help="write one self-contained HTML page of a program: graph, kernels, memory plan")
    p.add_argument("program")
    p.add_argument("-o", "--output", required=True, help="the .html file to write")
    p.add_argument("--bench", help="an `ember bench --json` report: show each op's instructions")
    p.add_argument("--model", help="the bench row's model (default: the one with as many ops on this target)")
    p.set_defaults(func=_view)

    p = sub.add_parser("run", help="run a program file on the host")
    p.add_argument("program")
    p.add_argument("--input", action="append", required=True, help=".npy file, once per input")
    p.add_argument("--output", action="append", default=[], help=".npy file, once per output")
    p.add_argument("--raw", action="store_true", help="inputs/outputs are the device's bytes "
                   "(stored layout and dtype) instead of the model's float tensors")
    p.set_defaults(func=_run)

    p = sub.add_parser("demo", help="compile and run keyword spotting")
    p.add_argument("--target", default=ember.DEFAULT_TARGET, choices=ember.targets())
    p.add_argument("-o", "--output", default="kws.emb")
    p.set_defaults(func=_demo)

    p = sub.add_parser("firmware", help="build test firmware for a program (runs it with --run)")
    p.add_argument("program")
    p.add_argument("--target", default=ember.DEFAULT_TARGET)
    p.add_argument("-o", "--output", required=True, help="the ELF file to write")
    p.add_argument("--inputs", type=int, default=1, help="number of random test inputs to embed")
    p.add_argument("--input", action="append", default=[],
                   help=".npy file, once per input: the model's tensor, as for `run` (shown by `inspect`)")
    p.add_argument("--raw", action="store_true", help="--input files are the device's bytes (stored layout "
                   "and dtype)")
    p.add_argument("--run", action="store_true", help="run it under QEMU afterwards")
    p.add_argument("--memory", help="the board's region capacities, e.g. DTCM=64K,SRAM=256K: "
                   "refuse a program whose plan does not fit them")
    p.add_argument("--timeout", type=float, default=300)
    p.add_argument("-v", "--verbose", action="store_true")
    p.set_defaults(func=_firmware)

    p = sub.add_parser("qemu", help="run firmware under QEMU on its board")
    p.add_argument("elf")
    p.add_argument("--target", help="default: from the .json next to the ELF")
    p.add_argument("--timeout", type=float, default=300)
    p.add_argument("-v", "--verbose", action="store_true")
    p.set_defaults(func=_qemu)

    p = sub.add_parser("export-c", help="write a program as C: <output>.h, <output>.c, <output>_kernels.cc, "
                       "or a folder that builds alone (--bundle)")
    p.add_argument("program")
    p.add_argument("-o", "--output", help="path prefix, e.g. out/model")
    p.add_argument("--bundle", metavar="DIR", help="write DIR: the program, the runtime, only its kernels, a "
                   "Makefile and a CMakeLists (builds with arm-none-eabi-gcc alone; needs it to derive the files)")
    p.add_argument("--target", help="the kernels' tier and the bundle's CPU (default: the program's target)")
    p.set_defaults(func=_export_c)

    p = sub.add_parser("bench", help="compile, build and run zoo models under QEMU; JSON + Markdown")
    p.add_argument("--models", default="kws,vww,ic,ad,sww",
                   help="zoo entries or MODULE:NAME, comma-separated; \"suite\" for the real-model suite "
                   "(docs/models.md)")
    p.add_argument("--targets", default="cortex-m55,cortex-m4,cortex-m3")
    p.add_argument("--json")
    p.add_argument("--md", help="Markdown: the summary table, runtime core, load cost and stack, then a "
                   "per-layer table per model, the targets side by side (default plans); docs/results.md is one")
    p.add_argument("--from-json", metavar="JSON", help="write --md from this bench JSON; run nothing")
    p.add_argument("--work-dir", help="where the ELFs and maps go (default: a temporary folder)")
    p.add_argument("--memory", help="region capacities, e.g. DTCM=64K,SRAM=256K (default: the target table)")
    p.add_argument("--plan", default="default", help="memory plan(s), comma-separated: simple, default, "
                   "smallest (docs/memory.md)")
    p.set_defaults(func=_bench)

    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except Exception as e:  # the errors a user causes are one line; anything else is a bug
        from ember.sdk import FirmwareError

        if not isinstance(e, (FirmwareError, ember.CompileError, ember.ProgramError, ember.FrontendError,
                              OSError, ValueError, ImportError)):
            raise
        print(f"ember: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
