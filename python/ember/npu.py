"""Which ops of a compiled graph an Ethos-U NPU takes, and in which partitions.

The input is the graph after `cleanup` (`_ember.lower_to_ir`). An op goes to the NPU when Ember
has its TOSA form (ember.tosa) and it is inside the constraints Vela documents for the NPU
(`vela --supported-ops-report`, TOSA section, per NPU family); every other op stays on the CPU
with the reason. NPU ops are grouped into partitions, each one TOSA graph for Vela: an op's
level is the highest of its producers' levels, plus one where the path crosses between NPU and
CPU, and the NPU ops of one level form one partition. A path from a partition back into itself
crosses at least twice, so partitions never depend on each other in a cycle.

    plan = partition(ir, "ethos-u55-128")
    plan.partitions                # [[op index, ...], ...] in graph order
    plan.cpu                       # {op index: why it stays on the CPU}
    subgraph(ir, plan.partitions[0])   # the partition as a graph of its own, for ember.tosa.emit
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ember.tosa import EMITTED

# Vela's TOSA constraints (ethos-u-vela 5.2.0, SUPPORTED_OPS.md): kernel and stride limits of
# convolutions and pools, the same on U55/U65 and U85 for what Ember emits.
MAX_KERNEL_Y, MAX_KERNEL_AREA, MAX_STRIDE = 64, 4096, 3
MAX_POOL_KERNEL_Y, MAX_POOL_KERNEL_AREA, MAX_PADDED_AVG_POOL_KERNEL = 256, 65536, 8
MAX_ABS_WEIGHT_SUM = 127 * 65536


@dataclass
class Plan:
    accelerator: str
    partitions: list = field(default_factory=list)  # op indices per partition, in graph order
    cpu: dict = field(default_factory=dict)         # op index -> why it stays on the CPU
    # Per partition once compiled (delegate): Vela's estimates (ember.vela) with the ops' count,
    # scratch and weight bytes. Estimates, not measurements.
    estimates: list = field(default_factory=list)


def _int8(ir, op) -> bool:
    """Every activation the op reads or writes is int8 (constants are the op's business)."""
    activations = [t for t in op["inputs"] if t >= 0 and ir["tensors"][t]["data"] is None] + op["outputs"]
    return all(ir["tensors"][t]["dtype"] == "int8" for t in activations)


def _why_not(ir: dict, op: dict) -> str:
    """"" when the NPU takes `op`, else one line saying why not."""
    kind, a = op["kind"], op["attrs"]
    if kind not in EMITTED:
        return f"{kind} has no TOSA form in Ember"
    if not _int8(ir, op):
        return f"{kind} is not int8"
    if kind == "conv":
        if len(ir["tensors"][op["inputs"][0]]["shape"]) != 4:  # 1-D convs are stored as 2-D ones
            return "a convolution over a 5-D tensor"
        if not a["depthwise"] and a["groups"] != 1:
            return f"grouped convolution (groups={a['groups']})"
        w = ir["tensors"][op["inputs"][1]]
        kh, kw = w["shape"][1], w["shape"][2]
        if kh > MAX_KERNEL_Y or kh * kw > MAX_KERNEL_AREA:
            return f"kernel {kh}x{kw} over Vela's limit (height {MAX_KERNEL_Y}, area {MAX_KERNEL_AREA})"
        if max(a["stride"]) > MAX_STRIDE:
            return f"stride {a['stride']} over {MAX_STRIDE}"
    if kind in ("conv", "linear"):
        shift = np.frombuffer(ir["tensors"][op["inputs"][4]]["data"], np.int32)
        if (31 - shift).min() < 2 or (31 - shift).max() > 62:
            return "a requantization shift outside TOSA's 2..62"
        w = np.frombuffer(ir["tensors"][op["inputs"][1]]["data"], np.int8).astype(np.int64)
        w = w.reshape(ir["tensors"][op["inputs"][1]]["shape"])
        sums = np.abs(w).reshape(w.shape[0], -1).sum(1) if not a.get("depthwise") else np.abs(w).sum(axis=(0, 1, 2))
        if sums.max() > MAX_ABS_WEIGHT_SUM:
            return "weights whose absolute sum exceeds Vela's 127*65536"
    if kind in ("max_pool2d", "avg_pool2d"):
        kh, kw = a["kernel"]
        out = ir["tensors"][op["outputs"][0]]["shape"]
        stride = [s for s, n in zip(a["stride"], out[1:3]) if n > 1]  # one output: no stride
        padded = any(a["padding"])
        if (kh > MAX_POOL_KERNEL_Y or kh * kw > MAX_POOL_KERNEL_AREA or max(stride, default=1) > MAX_STRIDE
                or (kind == "avg_pool2d" and padded and max(kh, kw) > MAX_PADDED_AVG_POOL_KERNEL)):
            return f"pool window {kh}x{kw} stride {a['stride']} over Vela's limits"
        if a.get("dilation", [1, 1]) != [1, 1]:
            return "dilated pool"
        if kind == "avg_pool2d" and padded and a["count_include_pad"]:
            return "average pool counting padding (TOSA counts only the input)"
    if kind == "add":
        rights = [30 - a["left_shift"], 31 - a["a_shift"], 31 - a["b_shift"], 31 - a["output_shift"]]
        if len(op["inputs"]) != 2 or min(rights) < 2 or max(rights) > 62:
            return "an add whose rescaling TOSA cannot express"
    if kind == "mul" and (len(op["inputs"]) != 2 or not 2 <= 31 - a["output_shift"] <= 62):
        return "a mul whose rescaling TOSA cannot express"
    if kind == "slice" and a["step"] != 1:
        return f"slice with step {a['step']} (TOSA's SLICE takes every element)"
    if kind == "cat" and any(ir["tensors"][t]["quant"] != ir["tensors"][op["outputs"][0]]["quant"]
                             for t in op["inputs"]):
        return "cat of inputs quantized unlike its output"
    return ""


def partition(ir: dict, accelerator: str) -> Plan:
    plan = Plan(accelerator)
    producer = {t: i for i, op in enumerate(ir["ops"]) for t in op["outputs"]}
    level: dict[int, int] = {}
    groups: dict[int, list] = {}
    for i, op in enumerate(ir["ops"]):
        why = _why_not(ir, op)
        on_npu = not why
        if why:
            plan.cpu[i] = why
        level[i] = max((level[p] + ((p not in plan.cpu) != on_npu)
                        for p in (producer.get(t) for t in op["inputs"] if t >= 0) if p is not None), default=0)
        if on_npu:
            groups.setdefault(level[i], []).append(i)
    plan.partitions = [groups[k] for k in sorted(groups)]
    return plan


def subgraph(ir: dict, ops: list[int]) -> dict:
    """The ops `ops` of `ir` as a graph: its inputs are the activations they read that none of
    them writes, its outputs those they write that another op or the graph reads."""
    inside = set(ops)
    written = {t for i in ops for t in ir["ops"][i]["outputs"]}
    read_outside = {t for j, op in enumerate(ir["ops"]) if j not in inside for t in op["inputs"]} | set(ir["outputs"])
    inputs = []
    for i in ops:
        for t in ir["ops"][i]["inputs"]:
            if t >= 0 and t not in written and ir["tensors"][t]["data"] is None and t not in inputs:
                inputs.append(t)
    outputs = [t for i in ops for t in ir["ops"][i]["outputs"] if t in read_outside]
    return {"tensors": ir["tensors"], "ops": [ir["ops"][i] for i in ops], "inputs": inputs, "outputs": outputs}


# The ethos_u kernel takes the command stream, weights and TOSA graph, then the partition's inputs,
# at most kMaxVariadicInputs (16) operands in all (runtime/op_signatures.h).
MAX_PARTITION_INPUTS = 13


def delegate(graph, target: str, keep_tosa: bool = True) -> Plan | None:
    """Partitions `graph` (an ember.frontend graph) for the NPU of `target` ("cortex-m55+ethos-u55-128"),
    compiles each partition with Vela, and hands the partitions and the CPU ops' reasons to the
    compiler (graph.set_npu), whose delegate_npu pass replaces them with ethos_u ops; with
    `keep_tosa`, each with its TOSA graph for host runs. None when the graph does not lower (the
    compile that follows reports why)."""
    from ember import _ember
    from ember.tosa import TosaError, emit, serializer
    from ember.vela import VelaError, compile_tosa, vela_command

    serializer(), vela_command()  # a missing package is an error, never a silent CPU fallback
    accelerator = target.split("+", 1)[1]
    try:
        ir = _ember.lower_to_ir(graph, target, "cleanup")
    except ValueError:
        return None
    plan = partition(ir, accelerator)
    parts = []

    def to_cpu(ops: list[int], why: str) -> None:
        plan.partitions.remove(ops)
        plan.cpu.update({i: why for i in ops})

    for ops in list(plan.partitions):
        sub = subgraph(ir, ops)
        if len(sub["inputs"]) > MAX_PARTITION_INPUTS:
            to_cpu(ops, f"a partition of {len(sub['inputs'])} inputs (at most {MAX_PARTITION_INPUTS})")
            continue
        try:
            tosa = emit(sub)
            r = compile_tosa(tosa, accelerator)
        except (TosaError, VelaError) as e:  # the NPU is never all or nothing: its ops stay on the CPU
            to_cpu(ops, f"its partition was refused: {e}")
            continue
        for places, tensors in ((r.inputs, sub["inputs"]), (r.outputs, sub["outputs"])):
            sizes = [int(np.prod(ir["tensors"][t]["shape"])) for t in tensors]
            if [int(np.prod(p.shape)) * p.element_size for p in places] != sizes:
                raise RuntimeError(f"internal: Vela's inputs or outputs are not the partition's ({places} for {sizes})")
        plan.estimates.append({**r.estimate, "ops": len(ops), "scratch_bytes": r.scratch_size,
                               "fast_scratch_bytes": r.fast_scratch_size, "weight_bytes": len(r.weights)})
        parts.append({"ops": ops, "inputs": sub["inputs"], "outputs": sub["outputs"],
                      "input_offsets": [p.offset for p in r.inputs], "output_offsets": [p.offset for p in r.outputs],
                      "command_stream": r.command_stream, "weights": r.weights, "tosa": tosa if keep_tosa else b"",
                      "scratch_bytes": r.scratch_size, "fast_scratch_bytes": r.fast_scratch_size,
                      "note": f"NPU {accelerator}: {len(ops)} ops; Vela's estimate {r.estimate['cycles_npu']:,} NPU "
                              f"cycles, scratch {r.scratch_size:,} B, weights {len(r.weights):,} B"})
    graph.set_npu(parts, plan.cpu)
    return plan


def tosa_io_shapes(tosa: bytes) -> tuple[list, list]:
    """The shapes of a TOSA graph's inputs and of its outputs, in order."""
    from tosa.TosaGraph import TosaGraph

    block = TosaGraph.GetRootAs(tosa, 0).Regions(0).Blocks(0)
    shapes = {block.Tensors(i).Name(): list(block.Tensors(i).ShapeAsNumpy()) for i in range(block.TensorsLength())}
    return ([shapes[block.Inputs(i)] for i in range(block.InputsLength())],
            [shapes[block.Outputs(i)] for i in range(block.OutputsLength())])


def main(argv=None) -> int:
    """python -m ember.npu [models] [--targets t,u]: per model and NPU target, the partitions, Vela's
    estimates and Ember's measured CPU instructions, as a Markdown table (docs/npu.md)."""
    import argparse
    import tempfile
    from pathlib import Path

    import ember
    from ember.bench import bench_pair, first_sample
    from ember.firmware import firmware_target
    from ember.models import entry

    ap = argparse.ArgumentParser(prog="python -m ember.npu", description=main.__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", default=["kws", "vww", "ic", "ad", "sww", "mobilenet_v2_96"])
    ap.add_argument("--targets", default="cortex-m55+ethos-u55-128,cortex-m85+ethos-u85-256")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="ember-npu-"))

    def cpu_instructions(program, target, name, calibration) -> str:
        """Instructions per inference of the program's CPU ops on the target's QEMU board."""
        if not firmware_target(target).qemu_machine:
            return "no board"
        return f"{bench_pair(program, target, name, 0, first_sample(program, calibration), work)['instructions']:,}"

    print("| model | target | ops on the NPU | partitions | NPU cycles (Vela's estimate) | NPU SRAM B (Vela's "
          "estimate) | CPU instructions (measured) | the M55 alone (measured) | on the CPU |\n"
          "|---|---|---:|---:|---:|---:|---:|---:|---|")
    for name in args.models:
        model, example, calibration = entry(name)()
        ep = ember.quantize(model, tuple(example), calibration)
        alone = cpu_instructions(ember.lower(ep, "cortex-m55"), "cortex-m55", name, calibration)
        for target in args.targets.split(","):
            program = ember.lower(ep, target)
            ops = program.inspect()["ops"]
            parts = program.npu["partitions"]
            cpu = ", ".join(sorted({op["kernel"] for op in ops if op["kernel"] != "ethos_u"})) or "-"
            print(f"| {name} | {target} | {sum(p['ops'] for p in parts)} of "
                  f"{sum(p['ops'] for p in parts) + len(ops) - len(parts)} | {len(parts)} | "
                  f"{sum(p['cycles_npu'] for p in parts):,} | {max((p['sram_bytes'] for p in parts), default=0):,} | "
                  f"{cpu_instructions(program, target, name, calibration)} | {alone} | {cpu} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
