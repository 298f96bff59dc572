"""Reading and patching fields of a flatbuffers file in place, for crafting malformed programs.

Only what the tests need: locate a scalar field of the root table, of a table in a vector of
tables, of a tensor (a struct in the program's vector of tensors), or an element of a scalar
vector, following the flatbuffers binary layout (little endian; a table starts with a signed
offset to its vtable; the vtable lists field offsets; a struct's fields sit at fixed offsets).
"""

from __future__ import annotations

import struct

# Field indices in schema/program.fbs (declaration order).
PROGRAM = {"version": 0, "tensors": 1, "tensor_names": 2, "ops": 3, "inputs": 4, "outputs": 5,
           "regions": 6, "kernels": 7, "constant_data": 8}
OP = {"kernel": 0, "inputs": 1, "outputs": 2, "ints": 3, "floats": 4, "source": 5, "kernel_note": 6,
      "rows_bottom_up": 7}
REGION = {"name": 0, "size": 1}
# struct Tensor: byte offsets of its fields (flatc's layout: declaration order, natural alignment).
TENSOR = {"dims": 0, "offset": 20, "view_of": 24, "scale": 28, "zero_point": 32, "region": 36,
          "rank": 37, "dtype": 38, "storage": 39, "layout": 40}
TENSOR_BYTES = 44


def _u32(buf, pos):
    return struct.unpack_from("<I", buf, pos)[0]


def root(buf) -> int:
    return _u32(buf, 0)


def field_pos(buf, table: int, index: int) -> int | None:
    """Absolute position of field `index` of the table at `table`, or None when absent."""
    vtable = table - struct.unpack_from("<i", buf, table)[0]
    vt_size = struct.unpack_from("<H", buf, vtable)[0]
    if 4 + 2 * index >= vt_size:
        return None
    off = struct.unpack_from("<H", buf, vtable + 4 + 2 * index)[0]
    return table + off if off else None


def deref(buf, pos: int) -> int:
    """Follows the uoffset stored at `pos` (to a table, vector or string)."""
    return pos + _u32(buf, pos)


def vector(buf, table: int, index: int) -> tuple[int, int]:
    """(position of element 0, length) of the vector field `index` of a table."""
    vec = deref(buf, field_pos(buf, table, index))
    return vec + 4, _u32(buf, vec)


def table_in_vector(buf, table: int, index: int, element: int) -> int:
    start, _ = vector(buf, table, index)
    return deref(buf, start + 4 * element)


SCHEMAS = {"program": PROGRAM, "op": OP, "region": REGION}


class Patcher:
    """A program file being mutated: named access to tensors, ops and their fields.

        p = Patcher(program_bytes)
        t = p.tensor_named("x")
        p.set(p.tensor(t), "tensor", "offset", "<I", 3)
        bad = bytes(p.buf)

    A table is named by its position and kind ("program", "op", "region"); a tensor by its
    position (`tensor(i)`) and kind "tensor".
    """

    def __init__(self, data: bytes):
        self.buf = bytearray(data)

    @property
    def root(self) -> int:
        return root(self.buf)

    def pos(self, table: int, kind: str, name: str) -> int | None:
        if kind == "tensor":
            return table + TENSOR[name]
        return field_pos(self.buf, table, SCHEMAS[kind][name])

    def vec(self, table: int, kind: str, name: str) -> tuple[int, int]:
        return vector(self.buf, table, SCHEMAS[kind][name])

    def get(self, table: int, kind: str, name: str, fmt: str, default=0):
        p = self.pos(table, kind, name)
        return default if p is None else struct.unpack_from(fmt, self.buf, p)[0]

    def set(self, table: int, kind: str, name: str, fmt: str, value) -> None:
        p = self.pos(table, kind, name)
        if p is None:
            raise KeyError(f"{kind}.{name} is not stored in this file (default value)")
        struct.pack_into(fmt, self.buf, p, value)

    def count(self, name: str) -> int:
        return self.vec(self.root, "program", name)[1]

    def tensor(self, i: int) -> int:
        start, n = vector(self.buf, self.root, PROGRAM["tensors"])
        assert 0 <= i < n
        return start + TENSOR_BYTES * i

    def op(self, i: int) -> int:
        return table_in_vector(self.buf, self.root, PROGRAM["ops"], i)

    def region(self, i: int) -> int:
        return table_in_vector(self.buf, self.root, PROGRAM["regions"], i)

    def name(self, tensor_index: int) -> str:
        if self.pos(self.root, "program", "tensor_names") is None:
            return ""
        start, n = self.vec(self.root, "program", "tensor_names")  # NUL-ended names
        names = bytes(self.buf[start:start + n]).split(b"\0")
        return names[tensor_index].decode() if tensor_index < len(names) - 1 else ""

    def tensor_named(self, name: str) -> int:
        for i in range(self.count("tensors")):
            if self.name(i) == name:
                return i
        raise KeyError(name)

    def int_vec(self, table: int, kind: str, name: str) -> list[int]:
        start, n = self.vec(table, kind, name)
        return list(struct.unpack_from(f"<{n}i", self.buf, start))

    def set_int(self, table: int, kind: str, name: str, index: int, value: int) -> None:
        start, n = self.vec(table, kind, name)
        assert 0 <= index < n
        struct.pack_into("<i", self.buf, start + 4 * index, value)

    def shape(self, tensor_index: int) -> list[int]:
        t = self.tensor(tensor_index)
        rank = self.get(t, "tensor", "rank", "<B")
        return list(struct.unpack_from(f"<{rank}i", self.buf, t + TENSOR["dims"]))

    def set_dim(self, tensor_index: int, d: int, value: int) -> None:
        assert 0 <= d < len(self.shape(tensor_index))
        struct.pack_into("<i", self.buf, self.tensor(tensor_index) + TENSOR["dims"] + 4 * d, value)

    def is_constant(self, tensor_index: int) -> bool:
        return self.get(self.tensor(tensor_index), "tensor", "storage", "<B") == 1

    def vtable(self, table: int) -> int:
        return table - struct.unpack_from("<i", self.buf, table)[0]

    def drop_field(self, table: int, kind: str, name: str) -> None:
        """Marks the field absent in the table's vtable (shared vtables drop it for all users)."""
        entry = self.vtable(table) + 4 + 2 * SCHEMAS[kind][name]
        struct.pack_into("<H", self.buf, entry, 0)
