"""An independent checker of memory plans, from `ember inspect --json` alone.

It shares no code with the planner (compiler/passes/plan_memory.cc, compiler/memory_planner.cc,
compiler/in_place.cc) or the runtime's verifier: lifetimes come from the op list, and the
in-place rules are written out again here from docs/memory.md.

    problems = check_plan(program.inspect(), capacities={"DTCM": 515072, "SRAM": 4194304})
    assert not problems, problems

Rules checked:
  - every arena buffer lies inside its region's planned size, and every region's size is within
    its capacity (when capacities are given);
  - two buffers (views count as their source) whose lifetimes meet and whose bytes intersect
    are allowed only if one is an op's output and the other an input of that op that is read by
    no later op (nor is a program output), the op's kernel may work in place over that input,
    and the output starts at least `delta` bytes below the input (delta from the rules below),
    or, when the op has `rows_bottom_up`, at least `rise` bytes above the input's start;
  - no buffer is written in place over a program input unless `inputs_consumed`.

In-place rules (delta = how far below the input the output must start):
  - elementwise kernels, an operand of the output's shape with elements at least as wide: 0;
  - conv2d_s8, depthwise_conv2d_s8 (stride_h = ints[0], pad_top = ints[2]) and max/avg_pool2d_s8
    (ints[2], ints[4]), NHWC with batch 1: output pixels are written in row-major order, a
    block of B at a time (B = 4 for conv2d_s8, 1 for the others), and the inputs of output row
    r start at input row f(r) = clamp(r * stride_h - pad_top, 0, H_in); pixel q must end below
    the input rows still to be read, those from f(row of pixel q - B + 1):
    delta = max over q of (q + 1) * out_pixel_bytes - f(row(max(0, q - B + 1))) * in_row_bytes.
  - bottom-up (`rows_bottom_up`, conv2d_s8 and depthwise_conv2d_s8 only), the mirror: rows are
    written last-first, and output row r reads input rows up to
    l(r) = min(H_in - 1, r * stride_h - pad_top + dilation_h * (KH - 1)) (dilation_h = ints[4],
    KH = the filter's dimension 1, from `input_shapes`); pixel q must start above the input
    rows still to be read, those up to l(row of pixel q + B - 1):
    rise = max over q of (l(row(min(q + B - 1, last pixel))) + 1) * in_row_bytes - q * out_pixel_bytes.
    Any other kernel with `rows_bottom_up` may not overlap an input at all.
"""

from __future__ import annotations

ELEMENTWISE_BINARY = {"add_s8", "mul_s8", "add_f32", "sub_f32", "mul_f32", "div_f32", "minimum_f32",
                      "maximum_f32", "pow_f32"}
ELEMENTWISE_UNARY = {"lut_s8", "requantize_s8", "quantize_s8", "neg_f32", "abs_f32", "exp_f32", "log_f32",
                     "sqrt_f32", "rsqrt_f32", "sigmoid_f32", "tanh_f32"}
# kernel: (stride_h position in ints, pad_top position, output pixels finished as one block)
ROW_STREAMING = {"conv2d_s8": (0, 2, 4), "depthwise_conv2d_s8": (0, 2, 1), "max_pool2d_s8": (2, 4, 1),
                 "avg_pool2d_s8": (2, 4, 1)}
ELEM = {"int8": 1, "int32": 4, "float32": 4}


def _pixel_geometry(in_shape, out_shape, elem, stride, pad):
    """(input row bytes, output pixel bytes, output pixels) of a batch-1 NHWC op, or None."""
    if len(in_shape) != 4 or len(out_shape) != 4 or in_shape[0] != 1 or out_shape[0] != 1:
        return None
    if stride < 1 or pad < 0:
        return None
    return in_shape[2] * in_shape[3] * elem, out_shape[3] * elem, out_shape[1] * out_shape[2]


def _row_delta(in_shape, out_shape, elem, stride, pad, block):
    geometry = _pixel_geometry(in_shape, out_shape, elem, stride, pad)
    if geometry is None:
        return None
    in_row, pixel, pixels = geometry
    worst = 0
    for q in range(pixels):  # every pixel, plainly
        row = max(0, q - block + 1) // out_shape[2]
        first = min(in_shape[1], max(0, row * stride - pad))
        worst = max(worst, (q + 1) * pixel - first * in_row)
    return worst


def _row_rise(in_shape, out_shape, elem, stride, pad, window, block):
    geometry = _pixel_geometry(in_shape, out_shape, elem, stride, pad)
    if geometry is None or window < 1:
        return None
    in_row, pixel, pixels = geometry
    worst = 0
    for q in range(pixels):  # every pixel, plainly
        row = min(q + block - 1, pixels - 1) // out_shape[2]
        last = max(-1, min(in_shape[1] - 1, row * stride - pad + window - 1))
        worst = max(worst, (last + 1) * in_row - q * pixel)
    return worst


def allowed_rise(op: dict, operand: int, tensors: dict) -> int | None:
    """For an op with rows_bottom_up: the least distance (bytes) by which its output must start
    above the start of input `operand` to be written over it, or None when it may not."""
    if op["kernel"] not in ("conv2d_s8", "depthwise_conv2d_s8") or operand != 0 or not op["output_ids"]:
        return None
    out, src = tensors.get(op["output_ids"][0]), tensors.get(op["input_ids"][0])
    shapes = op.get("input_shapes") or []
    if out is None or src is None or src["dtype"] != out["dtype"] or len(shapes) < 2 or not shapes[1]:
        return None
    if len(shapes[1]) != 4 or len(op["ints"]) < 5:
        return None
    window = op["ints"][4] * (shapes[1][1] - 1) + 1
    block = ROW_STREAMING[op["kernel"]][2]
    return _row_rise(src["shape"], out["shape"], ELEM[out["dtype"]], op["ints"][0], op["ints"][2], window, block)


def allowed_delta(op: dict, operand: int, tensors: dict) -> int | None:
    """The least distance (bytes) by which op's output must start below input `operand` to be
    written over it, or None when the kernel may not write over that input."""
    kernel = op["kernel"]
    if not op["output_ids"] or operand >= len(op["input_ids"]):
        return None
    out = tensors.get(op["output_ids"][0])
    src = tensors.get(op["input_ids"][operand])
    if out is None or src is None:
        return None
    if kernel in ELEMENTWISE_BINARY or (kernel in ELEMENTWISE_UNARY and operand == 0):
        if src["shape"] == out["shape"] and ELEM[out["dtype"]] <= ELEM[src["dtype"]]:
            return 0
        return None
    if kernel in ROW_STREAMING and operand == 0 and src["dtype"] == out["dtype"]:
        s, p, block = ROW_STREAMING[kernel]
        if len(op["ints"]) <= p:
            return None
        return _row_delta(src["shape"], out["shape"], ELEM[out["dtype"]], op["ints"][s], op["ints"][p], block)
    return None


def check_plan(info: dict, capacities: dict | None = None, inputs_consumed: bool = False) -> list[str]:
    """Problems with the plan in `info` (Program.inspect()); an empty list means it is sound."""
    problems = []
    mem = info["memory"]
    region_bytes = {r["name"]: r["bytes"] for r in mem["regions"]}
    for name, size in region_bytes.items():
        if capacities and name in capacities and size > capacities[name]:
            problems.append(f"region {name}: {size} bytes planned, capacity {capacities[name]}")
    tensors = {b["tensor"]: b for b in mem["buffers"]}
    by_name = {b["name"]: b["tensor"] for b in mem["buffers"]}
    root = {t: (b["view_of"] if b["view_of"] >= 0 else t) for t, b in tensors.items()}
    for t, b in tensors.items():
        if b["region"] not in region_bytes:
            problems.append(f"tensor {b['name']}: unknown region {b['region']}")
        elif b["offset"] + b["bytes"] > region_bytes[b["region"]]:
            problems.append(f"tensor {b['name']}: [{b['offset']}, +{b['bytes']}) past region {b['region']}")
        if b["view_of"] >= 0:
            src = tensors.get(b["view_of"])
            if not src or (src["region"], src["offset"], src["bytes"]) != (b["region"], b["offset"], b["bytes"]):
                problems.append(f"tensor {b['name']}: not exactly on the bytes of its source")

    # Lifetimes per buffer (root): inputs defined before op 0 (-1), outputs read after the last (n).
    ops = info["ops"]
    n = len(ops)
    first, last, writer = {}, {}, {}
    program_inputs = {root[by_name[io["name"]]] for io in info["inputs"] if io["name"] in by_name}
    program_outputs = {root[by_name[io["name"]]] for io in info["outputs"] if io["name"] in by_name}

    def touch(t, k):
        if t in root:
            r = root[t]
            first[r] = min(first.get(r, k), k)
            last[r] = max(last.get(r, k), k)

    for r in program_inputs:
        touch(r, -1)
    for k, op in enumerate(ops):
        for t in op["input_ids"]:
            touch(t, k)
        for t in op["output_ids"]:
            touch(t, k)
            writer.setdefault(root.get(t, t), k)
    for r in program_outputs:
        touch(r, n)

    roots = sorted(set(root.values()))
    for i, a in enumerate(roots):
        ta = tensors[a]
        for b in roots[i + 1:]:
            tb = tensors[b]
            if ta["region"] != tb["region"] or not ta["bytes"] or not tb["bytes"]:
                continue
            if not (ta["offset"] < tb["offset"] + tb["bytes"] and tb["offset"] < ta["offset"] + ta["bytes"]):
                continue
            if a not in first or b not in first or first[a] > last[b] or first[b] > last[a]:
                continue  # never live together
            # Bytes shared while both are live: only an op's output over an input dying there.
            (src, dst) = (a, b) if first[a] < first[b] else (b, a)
            k = first[dst]
            why = None
            result = root.get(ops[k]["output_ids"][0]) if 0 <= k < n and ops[k]["output_ids"] else None
            if last[src] != k or writer.get(dst) != k or result != dst:
                why = f"both live from op {max(first[a], first[b])} to op {min(last[a], last[b])}"
            elif src in program_outputs:
                why = "the input is a program output"
            elif src in program_inputs and not inputs_consumed:
                why = "the input is a program input"
            else:
                op = ops[k]
                up = bool(op.get("rows_bottom_up"))
                rule = allowed_rise if up else allowed_delta
                deltas = [rule(op, j, tensors) for j, t in enumerate(op["input_ids"])
                          if t in root and root[t] == src]
                deltas = [d for d in deltas if d is not None]
                gap = tensors[dst]["offset"] - tensors[src]["offset"]  # output above input: > 0
                if not deltas:
                    why = f"kernel {op['kernel']} may not write over that input" + (" bottom-up" if up else "")
                elif up and gap < min(deltas):
                    why = (f"bottom-up in place under {op['kernel']} needs the output {min(deltas)} bytes above "
                           f"its input, it is {gap}")
                elif not up and -gap < min(deltas):
                    why = (f"in place under {op['kernel']} needs the output {min(deltas)} bytes below its input, "
                           f"it is {-gap}")
            if why:
                problems.append(f"{ta['name']} [{ta['offset']}, +{ta['bytes']}) and {tb['name']} "
                                f"[{tb['offset']}, +{tb['bytes']}) in {ta['region']} overlap: {why}")
    return problems


def overlapping_pairs(info: dict) -> int:
    """How many (input, output) pairs share bytes: the in-place executions of a plan."""
    mem = info["memory"]
    tensors = {b["tensor"]: b for b in mem["buffers"]}
    count = 0
    for op in info["ops"]:
        for o in op["output_ids"]:
            for t in op["input_ids"]:
                a, b = tensors.get(t), tensors.get(o)
                if a and b and a["region"] == b["region"] and a["offset"] < b["offset"] + b["bytes"] \
                        and b["offset"] < a["offset"] + a["bytes"]:
                    count += 1
    return count
