"""The mutators of tests/lying_programs.py, per class of docs/runtime.md: each rewrites one
field (or two) of a program file being patched and says what it did, or raises Skip when the
program has no such op, field or tensor. A mutator takes the Patcher of the copy, the base
(lying_programs.Base: its ops, constants, arena tensors, regions) and the generator's random
source. They keep the flatbuffers structure valid except in classes 1, 2 and 4, whose subject is
the file itself.
"""

from __future__ import annotations

import struct

import fbpatch
from fbpatch import Patcher

# Program fields by vtable slot (schema/program.fbs), past fbpatch's list.
PROGRAM_SLOTS = dict(fbpatch.PROGRAM, lower_bound=9, peak_op=10, target=11)
OP_VECTORS = ("inputs", "outputs", "ints", "floats")
PROGRAM_VECTORS = ("tensors", "ops", "inputs", "outputs", "regions", "kernels", "constant_data")
INTS = (0, 1, -1, 2, 3, 7, 8, 15, 16, 31, 32, 63, 64, 127, 128, -128, -129, 255, 256, 4095, 32767,
        32768, 65535, 65536, 1 << 24, 1 << 30, (1 << 31) - 1, -(1 << 31), -2)
FLOATS = (float("nan"), float("inf"), float("-inf"), -1.0, 0.0, -0.0, 1e30, -1e30, 1e-45, 6.0, 1e-30)


class Skip(Exception):
    """The mutator does not apply to this base (no such op, field or tensor)."""


def _i32(v: int) -> int:
    return ((v + (1 << 31)) % (1 << 32)) - (1 << 31)


def _int_lie(rng, v: int) -> int:
    if rng.random() < 0.5:
        return rng.choice(INTS)
    return _i32(rng.choice((v + 1, v - 1, 2 * v, -v, v + rng.randint(-4, 4), v << 16, v * 1000 + 1)))


def _constant_bytes(p: Patcher, t: int) -> tuple[int, int]:
    """(file position, bytes) of constant tensor t."""
    data, n = p.vec(p.root, "program", "constant_data")
    offset = p.get(p.tensor(t), "tensor", "offset", "<I")
    size = {0: 1, 1: 4, 2: 4}[p.get(p.tensor(t), "tensor", "dtype", "<b")]
    for d in p.shape(t):
        size *= d
    return data + offset, min(size, n - offset)


def _vector_field(p: Patcher, b, rng) -> tuple[int, str, str]:
    if rng.random() < 0.5:
        return p.root, "program", rng.choice(PROGRAM_VECTORS)
    op = rng.randrange(b.num_ops)
    names = [n for n in OP_VECTORS if p.pos(p.op(op), "op", n) is not None]
    return p.op(op), "op", rng.choice(names)


def _set_u32(p, pos, v):
    struct.pack_into("<I", p.buf, pos, v % (1 << 32))


# --- the mutators, per class: each changes p and returns what it did, or raises Skip ---------

def truncate(p, b, rng):
    n = rng.choice((rng.randrange(0, len(p.buf)), len(p.buf) - rng.randint(1, 256), rng.randrange(0, 64)))
    del p.buf[max(n, 0):]
    return f"cut to {max(n, 0)} bytes"


def root_past_end(p, b, rng):
    v = rng.choice((len(p.buf), len(p.buf) + 4, len(p.buf) << 4, 0xFFFFFFFC, 0x7FFFFFF0))
    _set_u32(p, 0, v)
    return f"root offset {v:#x}"


def version(p, b, rng):
    v = rng.choice((0, 1, 2, 4, 5, 99, 0xFFFFFFFF, rng.getrandbits(32)))
    if v == 3:
        raise Skip
    p.set(p.root, "program", "version", "<I", v)
    return f"schema version {v}"


def identifier(p, b, rng):
    ident = bytearray(b"EMB1")
    ident[rng.randrange(4)] = rng.choice([c for c in range(256) if c not in b"EMB1"])
    p.buf[4:8] = ident
    return f"identifier {bytes(ident)!r}"


def constant_offset_off_grid(p, b, rng):
    t = rng.choice(b.constants)
    delta = rng.choice((1, 2, 4, 8, 12, rng.randint(1, 15)))
    p.set(p.tensor(t), "tensor", "offset", "<I", p.get(p.tensor(t), "tensor", "offset", "<I") + delta)
    return f"constant tensor {t} offset +{delta}"


def arena_offset_off_element(p, b, rng):
    ts = [t for t in b.arena if b.dtype[t] != 0]
    if not ts:
        raise Skip
    t = rng.choice(ts)
    delta = rng.choice((1, 2, 3, 5))
    p.set(p.tensor(t), "tensor", "offset", "<I", p.get(p.tensor(t), "tensor", "offset", "<I") + delta)
    return f"arena tensor {t} ({'int32' if b.dtype[t] == 1 else 'float32'}) offset +{delta}"


def vtable_offset(p, b, rng):
    table = rng.choice([p.root] + [p.op(rng.randrange(b.num_ops))] + [p.region(rng.randrange(b.regions))])
    v = rng.choice((0, 4, -4, 1 << 20, -(1 << 20), rng.getrandbits(31), -(len(p.buf) + 8), 2))
    struct.pack_into("<i", p.buf, table, v)
    return f"vtable offset {v} of the table at {table}"


def vector_length(p, b, rng):
    table, kind, name = _vector_field(p, b, rng)
    start, n = p.vec(table, kind, name)
    v = rng.choice((n + 1, n + rng.randint(2, 1000), n * 2 + 1, 1 << 30, 0xFFFFFFFF, 0x40000001))
    _set_u32(p, start - 4, v)
    return f"{kind}.{name} length {n} -> {v}"


def uoffset(p, b, rng):
    table, kind, name = _vector_field(p, b, rng)
    pos = p.pos(table, kind, name)
    delta = rng.choice((4, -4, 8, 2, 1 << 20, -(1 << 20), len(p.buf), -pos))
    _set_u32(p, pos, struct.unpack_from("<I", p.buf, pos)[0] + delta)
    return f"{kind}.{name} offset {delta:+}"


def vtable_entry(p, b, rng):
    table = rng.choice([p.root, p.op(rng.randrange(b.num_ops))])
    vt = p.vtable(table)
    size = struct.unpack_from("<H", p.buf, vt)[0]
    if rng.random() < 0.25:
        v = rng.choice((2, 3, 5, size + 2, 0xFFFE, 0xFFFF))
        struct.pack_into("<H", p.buf, vt + rng.choice((0, 2)), v)
        return f"vtable size field {v}"
    slot = rng.randrange((size - 4) // 2)
    v = rng.choice((1, 2, 3, 0xFFFF, rng.getrandbits(16), struct.unpack_from("<H", p.buf, vt + 4 + 2 * slot)[0] + 4))
    struct.pack_into("<H", p.buf, vt + 4 + 2 * slot, v)
    return f"vtable slot {slot} -> {v}"


def string_end(p, b, rng):
    field = rng.choice(("tensor_names", "target"))
    pos = p.pos(p.root, "program", field) if field == "tensor_names" else fbpatch.field_pos(
        p.buf, p.root, PROGRAM_SLOTS["target"])
    if pos is None:
        raise Skip
    s = fbpatch.deref(p.buf, pos)
    n = struct.unpack_from("<I", p.buf, s)[0]
    if rng.random() < 0.5:
        p.buf[s + 4 + n] = 0x41  # the NUL after the string
        return f"{field}: no NUL"
    _set_u32(p, s, n + rng.choice((1, 1 << 16, 0x7FFFFFFF)))
    return f"{field}: length past its bytes"


def swapped_ops(p, b, rng):
    """Two elements of the ops vector swapped (tables stay valid; the order lies)."""
    if b.num_ops < 2:
        raise Skip
    i, j = sorted(rng.sample(range(b.num_ops), 2))
    start, _ = p.vec(p.root, "program", "ops")
    pi, pj = start + 4 * i, start + 4 * j
    ti, tj = p.op(i), p.op(j)
    if tj - pi <= 0 or ti - pj <= 0:
        raise Skip  # a uoffset points forward only
    _set_u32(p, pi, tj - pi)
    _set_u32(p, pj, ti - pj)
    return f"ops {i} and {j} swapped"


def unknown_kernel(p, b, rng):
    op = rng.randrange(b.num_ops)
    v = rng.choice((len(b.kernel_names), len(b.kernel_names) + 1, rng.randrange(len(b.kernel_names), 65536), 65535))
    p.set(p.op(op), "op", "kernel", "<H", v)
    return f"op {op} kernel id {v}"


def unknown_enum(p, b, rng):
    t = rng.randrange(b.num_tensors)
    name, values = rng.choice((("dtype", (3, 4, 127, -1, -128)), ("storage", (2, 3, 255)), ("layout", (3, 7, 255))))
    v = rng.choice(values)
    p.set(p.tensor(t), "tensor", name, "<b" if v < 0 else "<B", v)
    return f"tensor {t} {name} {v}"


def unknown_listed_kernel(p, b, rng):
    start, n = p.vec(p.root, "program", "kernels")
    k = rng.randrange(n)
    v = rng.randrange(len(b.kernel_names), 65536)
    struct.pack_into("<H", p.buf, start + 2 * k, v)
    return f"program kernels[{k}] = {v}"


def drop_program_field(p, b, rng):
    name = rng.choice(list(PROGRAM_SLOTS))
    if fbpatch.field_pos(p.buf, p.root, PROGRAM_SLOTS[name]) is None:
        raise Skip
    struct.pack_into("<H", p.buf, p.vtable(p.root) + 4 + 2 * PROGRAM_SLOTS[name], 0)
    return f"program.{name} absent"


def drop_op_field(p, b, rng):
    op = rng.randrange(b.num_ops)
    name = rng.choice(list(fbpatch.OP))
    if p.pos(p.op(op), "op", name) is None:
        raise Skip
    p.drop_field(p.op(op), "op", name)
    return f"op {op}.{name} absent (and in every op sharing its vtable)"


def drop_region_field(p, b, rng):
    r = rng.randrange(b.regions)
    name = rng.choice(list(fbpatch.REGION))
    p.drop_field(p.region(r), "region", name)
    return f"region {r}.{name} absent"


def _bad_index(b, rng) -> int:
    return rng.choice((-2, -1, b.num_tensors, b.num_tensors + rng.randint(1, 1000), (1 << 31) - 1, -(1 << 31)))


def operand_out_of_range(p, b, rng):
    op = rng.randrange(b.num_ops)
    which = rng.choice(("inputs", "outputs"))
    j = rng.randrange(len(b.ops[op][which]))
    v = _bad_index(b, rng)
    p.set_int(p.op(op), "op", which, j, v)
    return f"op {op} {which}[{j}] = {v}"


def io_out_of_range(p, b, rng):
    which = rng.choice(("inputs", "outputs"))
    v = _bad_index(b, rng)
    p.set_int(p.root, "program", which, 0, v)
    return f"program {which}[0] = {v}"


def view_out_of_range(p, b, rng):
    t = rng.choice(b.arena)
    v = rng.choice((b.num_tensors, b.num_tensors + 7, -2, (1 << 31) - 1, -(1 << 31)))
    p.set(p.tensor(t), "tensor", "view_of", "<i", v)
    return f"tensor {t} view_of {v}"


def region_out_of_range(p, b, rng):
    t = rng.choice(b.arena)
    v = rng.choice((b.regions, 4, 5, 255))
    p.set(p.tensor(t), "tensor", "region", "<B", v)
    return f"tensor {t} region {v}"


def peak_op(p, b, rng):
    pos = fbpatch.field_pos(p.buf, p.root, PROGRAM_SLOTS["peak_op"])
    if pos is None:
        raise Skip
    v = rng.choice((b.num_ops, b.num_ops + 1, -2, (1 << 31) - 1, -(1 << 31)))
    struct.pack_into("<i", p.buf, pos, v)
    return f"peak_op {v}"


def dim(p, b, rng):
    t = rng.randrange(b.num_tensors)
    shape = p.shape(t)
    if not shape:
        raise Skip
    d = rng.randrange(len(shape))
    v = rng.choice((0, -1, 1, shape[d] + 1, shape[d] - 1, shape[d] * 2, shape[d] // 2, 65536, -(1 << 31)))
    if v == shape[d]:
        raise Skip
    p.set_dim(t, d, v)
    return f"tensor {t} dim {d}: {shape[d]} -> {v}"


def rank(p, b, rng):
    t = rng.randrange(b.num_tensors)
    r = len(p.shape(t))
    v = rng.choice([x for x in (0, 1, 2, 3, 4, 5, 6, 7, 255) if x != r])
    p.set(p.tensor(t), "tensor", "rank", "<B", v)
    return f"tensor {t} rank {r} -> {v}"


def swapped_dims(p, b, rng):
    t = rng.randrange(b.num_tensors)
    shape = p.shape(t)
    if len(shape) < 2:
        raise Skip
    i, j = rng.sample(range(len(shape)), 2)
    if shape[i] == shape[j]:
        raise Skip
    p.set_dim(t, i, shape[j])
    p.set_dim(t, j, shape[i])
    return f"tensor {t} dims {i} and {j} swapped"


def dims_overflow(p, b, rng):
    t = rng.randrange(b.num_tensors)
    shape = p.shape(t)
    if len(shape) < 2:
        raise Skip
    for d in rng.sample(range(len(shape)), 2):
        p.set_dim(t, d, rng.choice((1 << 16, 1 << 17, 1 << 20, 46341, (1 << 31) - 1)))
    return f"tensor {t}: two dims large"


def offset_overflow(p, b, rng):
    t = rng.randrange(b.num_tensors)
    v = rng.choice((0xFFFFFFF0, 0xFFFF0000, 0x80000000, 0xFFFFFFFF - 15))
    p.set(p.tensor(t), "tensor", "offset", "<I", v)
    return f"tensor {t} offset {v:#x}"


def constant_past_data(p, b, rng):
    t = rng.choice(b.constants)
    _, n = p.vec(p.root, "program", "constant_data")
    _, size = _constant_bytes(p, t)
    v = rng.choice((n, n + 16, (n - size + 16) // 16 * 16, n + (rng.randint(1, 256) << 4)))
    p.set(p.tensor(t), "tensor", "offset", "<I", v)
    return f"constant tensor {t} offset {v} (data {n} bytes)"


def constant_data_short(p, b, rng):
    start, n = p.vec(p.root, "program", "constant_data")
    v = rng.choice((0, 1, 16, n // 2, n - 1, n - 16, rng.randrange(n)))
    _set_u32(p, start - 4, v)
    return f"constant_data {n} -> {v} bytes"


def constant_grown(p, b, rng):
    t = rng.choice([c for c in b.constants if p.shape(c)])
    d = rng.randrange(len(p.shape(t)))
    v = p.shape(t)[d] * rng.choice((2, 3, 16, 1000))
    p.set_dim(t, d, v)
    return f"constant tensor {t} dim {d} -> {v}"


def region_smaller(p, b, rng):
    r = rng.randrange(b.regions)
    size = p.get(p.region(r), "region", "size", "<I")
    v = rng.choice((size - 1, size - 16, size // 2, 16, 0, size - rng.randint(1, max(size - 1, 1))))
    p.set(p.region(r), "region", "size", "<I", max(v, 0))
    return f"region {r} size {size} -> {max(v, 0)}"


def arena_moved(p, b, rng):
    t = rng.choice(b.arena)
    offset = p.get(p.tensor(t), "tensor", "offset", "<I")
    others = [p.get(p.tensor(u), "tensor", "offset", "<I") for u in b.arena if u != t]
    v = rng.choice((offset + 16, offset - 16, offset + 1, offset + 32, offset - 32, rng.choice(others),
                    rng.randrange(0, 1 << 14) & ~15))
    if v < 0 or v == offset:
        raise Skip
    p.set(p.tensor(t), "tensor", "offset", "<I", v)
    return f"arena tensor {t} offset {offset} -> {v}"


def in_place_claim(p, b, rng):
    ops = [i for i in range(b.num_ops) if p.pos(p.op(i), "op", "rows_bottom_up") is not None]
    if not ops:
        raise Skip
    op = rng.choice(ops)
    if rng.random() < 0.5:
        v = rng.choice((0, 2, 255))
        p.set(p.op(op), "op", "rows_bottom_up", "<B", v)
        return f"op {op} rows_bottom_up -> {v}"
    out = b.ops[op]["outputs"][0]
    delta = rng.choice((16, -16, 32, -32, 48))
    p.set(p.tensor(out), "tensor", "offset", "<I", p.get(p.tensor(out), "tensor", "offset", "<I") + delta)
    return f"op {op} (in place) output moved {delta:+}"


def view_redirected(p, b, rng):
    t = rng.choice(b.arena)
    v = rng.choice((rng.randrange(b.num_tensors), rng.choice(b.arena), t))
    p.set(p.tensor(t), "tensor", "view_of", "<i", v)
    return f"tensor {t} view_of {v}"


def region_swapped(p, b, rng):
    if b.regions < 2:
        raise Skip
    t = rng.choice(b.arena)
    r = p.get(p.tensor(t), "tensor", "region", "<B")
    v = rng.choice([x for x in range(b.regions) if x != r])
    p.set(p.tensor(t), "tensor", "region", "<B", v)
    return f"arena tensor {t} region {r} -> {v}"


def kernel_relabelled(p, b, rng):
    op = rng.randrange(b.num_ops)
    v = rng.randrange(len(b.kernel_names))
    if b.kernel_names[v] == b.ops[op]["kernel"]:
        raise Skip
    p.set(p.op(op), "op", "kernel", "<H", v)
    return f"op {op} {b.ops[op]['kernel']} -> {b.kernel_names[v]}"


def output_is_input(p, b, rng):
    op = rng.randrange(b.num_ops)
    v = rng.choice([t for t in b.ops[op]["inputs"] if t >= 0])
    p.set_int(p.op(op), "op", "outputs", 0, v)
    return f"op {op} output 0 = its input {v}"


def list_shortened(p, b, rng):
    op = rng.randrange(b.num_ops)
    names = [n for n in OP_VECTORS if p.pos(p.op(op), "op", n) is not None and p.vec(p.op(op), "op", n)[1] > 0]
    name = rng.choice(names)
    start, n = p.vec(p.op(op), "op", name)
    v = rng.choice((n - 1, 0)) if n > 1 else 0
    _set_u32(p, start - 4, v)
    return f"op {op} {name}: {n} -> {v} entries"


def operand_replaced(p, b, rng):
    op = rng.randrange(b.num_ops)
    j = rng.randrange(len(b.ops[op]["inputs"]))
    v = rng.randrange(b.num_tensors)
    if v == b.ops[op]["inputs"][j]:
        raise Skip
    p.set_int(p.op(op), "op", "inputs", j, v)
    return f"op {op} input {j}: {b.ops[op]['inputs'][j]} -> {v}"


def op_int(p, b, rng):
    op = b.op(rng, lambda o: o["ints"])
    ints = b.ops[op]["ints"]
    changed = []
    for _ in range(rng.choice((1, 1, 2))):
        j = rng.randrange(len(ints))
        v = _int_lie(rng, ints[j])
        p.set_int(p.op(op), "op", "ints", j, v)
        changed.append(f"ints[{j}] {ints[j]} -> {v}")
    return f"op {op} ({b.ops[op]['kernel']}) " + ", ".join(changed)


def op_float(p, b, rng):
    op = b.op(rng, lambda o: o["floats"])
    j = rng.randrange(b.ops[op]["floats"])
    start, _ = p.vec(p.op(op), "op", "floats")
    v = rng.choice(FLOATS)
    struct.pack_into("<f", p.buf, start + 4 * j, v)
    return f"op {op} ({b.ops[op]['kernel']}) floats[{j}] -> {v}"


def scale(p, b, rng):
    t = rng.choice(b.arena + b.constants[:4])
    random_bits = struct.unpack("<f", struct.pack("<I", rng.getrandbits(32)))[0]
    v = rng.choice(FLOATS[:5] + (1e-45, 1e38, 3.4e38, 0.5, random_bits))
    p.set(p.tensor(t), "tensor", "scale", "<f", v)
    return f"tensor {t} scale {v}"


def zero_point(p, b, rng):
    t = rng.choice(b.arena)
    v = rng.choice((-129, 128, 255, -(1 << 31), (1 << 31) - 1, rng.randint(-128, 127), 127, -128))
    p.set(p.tensor(t), "tensor", "zero_point", "<i", v)
    return f"tensor {t} zero point {v}"


def constant_value(p, b, rng):
    """An int32 or int8 value inside a constant an int8 op reads: multipliers, shifts, biases,
    folded biases, add_s8's rescale tables, lookup tables, weights."""
    op = b.op(rng, lambda o: o["kernel"].endswith("_s8") and any(t in b.constants for t in o["inputs"]))
    t = rng.choice([t for t in b.ops[op]["inputs"] if t in b.constants])
    pos, size = _constant_bytes(p, t)
    if size <= 0:
        raise Skip
    if b.dtype[t] == 0:
        k = rng.randrange(size)
        v = rng.choice((-128, 127, 0, rng.randint(-128, 127)))
        struct.pack_into("<b", p.buf, pos + k, v)
    else:
        k = rng.randrange(size // 4) * 4
        old = struct.unpack_from("<i", p.buf, pos + k)[0]
        v = rng.choice((0, -1, 1 << 30, (1 << 30) - 1, (1 << 31) - 1, -(1 << 31), 31, 32, -31, -32, 99, -99,
                        old + 1, old ^ (1 << rng.randrange(31))))
        struct.pack_into("<i", p.buf, pos + k, v)
    return f"op {op} ({b.ops[op]['kernel']}) constant {t} byte {k} -> {v}"


def depthwise_minus_128(p, b, rng):
    """A -128 depthwise weight: the Helium kernel's check refuses it, the other tiers take it."""
    op = b.op(rng, lambda o: o["kernel"] == "depthwise_conv2d_s8")
    pos, size = _constant_bytes(p, b.ops[op]["inputs"][1])
    k = rng.randrange(size)
    p.buf[pos + k] = 0x80
    return f"op {op} depthwise weight {k} = -128"


def read_before_write(p, b, rng):
    op = b.op(rng, lambda o: True)
    later = [t for o in b.ops[op + 1:] for t in o["outputs"]]
    if not later:
        raise Skip
    j = rng.choice([k for k, t in enumerate(b.ops[op]["inputs"]) if t in b.arena] or [0])
    v = rng.choice(later)
    p.set_int(p.op(op), "op", "inputs", j, v)
    return f"op {op} input {j} = tensor {v}, written later"


def written_twice(p, b, rng):
    op = rng.randrange(b.num_ops)
    earlier = [t for o in b.ops[:op] for t in o["outputs"]] + b.inputs
    v = rng.choice(earlier)
    p.set_int(p.op(op), "op", "outputs", 0, v)
    return f"op {op} output 0 = tensor {v}, already written"


def output_unwritten(p, b, rng):
    v = rng.choice(b.constants + b.inputs + [t for t in b.arena if t not in b.outputs])
    p.set_int(p.root, "program", "outputs", 0, v)
    return f"program output 0 = tensor {v}"


def io_lists(p, b, rng):
    which = rng.choice(("inputs", "outputs"))
    start, n = p.vec(p.root, "program", which)
    kind = rng.randrange(4)
    if kind == 0:
        _set_u32(p, start - 4, n - 1)
        return f"program {which}: {n} -> {n - 1} entries"
    if kind == 1 and n > 1:
        p.set_int(p.root, "program", which, 1, p.int_vec(p.root, "program", which)[0])
        return f"program {which}[1] = {which}[0]"
    if kind == 2:
        other = b.outputs if which == "inputs" else b.inputs
        p.set_int(p.root, "program", which, 0, other[0])
        return f"program {which}[0] = tensor {other[0]}"
    v = rng.choice([t for o in b.ops for t in o["outputs"]])
    p.set_int(p.root, "program", which, 0, v)
    return f"program {which}[0] = tensor {v}, an op's output"


def region_larger(p, b, rng):
    r = rng.randrange(b.regions)
    size = p.get(p.region(r), "region", "size", "<I")
    v = rng.choice((size + 1, size + 16, size + 17, size + 4096, size + (1 << 20), 1 << 31, 0xFFFFFFFF, 0xFFFFFFF0))
    p.set(p.region(r), "region", "size", "<I", v % (1 << 32))
    return f"region {r} size {size} -> {v}"


MUTATORS = {
    1: (truncate, root_past_end),
    2: (version, identifier),
    3: (constant_offset_off_grid, arena_offset_off_element),
    4: (vtable_offset, vector_length, uoffset, vtable_entry, string_end),
    5: (unknown_kernel, unknown_enum, unknown_listed_kernel),
    6: (drop_program_field, drop_op_field, drop_region_field),
    7: (operand_out_of_range, io_out_of_range, view_out_of_range, region_out_of_range, peak_op),
    8: (dim, rank, swapped_dims),
    9: (dims_overflow, offset_overflow),
    10: (constant_past_data, constant_data_short, constant_grown),
    11: (region_smaller, arena_moved, in_place_claim, view_redirected, region_swapped),
    12: (kernel_relabelled, output_is_input, list_shortened, operand_replaced),
    13: (op_int, op_int, op_int, op_float),
    14: (scale, zero_point, constant_value, constant_value, depthwise_minus_128),
    15: (read_before_write, written_twice, output_unwritten, swapped_ops),
    16: (io_lists,),
    17: (region_larger,),
}
