"""Reading and patching fields of a flatbuffers file in place, for crafting malformed programs.

Only what the tests need: locate a scalar field of the root table, of a table in a vector of
tables, or an element of a scalar vector, following the flatbuffers binary layout (little
endian; a table starts with a signed offset to its vtable; the vtable lists field offsets).
"""

from __future__ import annotations

import struct

# Field indices in schema/program.fbs (declaration order).
PROGRAM = {"version": 0, "tensors": 1, "ops": 2, "inputs": 3, "outputs": 4, "regions": 5,
           "kernels": 6, "constant_data": 7}
TENSOR = {"name": 0, "shape": 1, "dtype": 2, "quant": 3, "storage": 4, "region": 5, "offset": 6,
          "layout": 7, "view_of": 8}
OP = {"kernel": 0, "inputs": 1, "outputs": 2, "ints": 3, "floats": 4, "source": 5, "kernel_note": 6,
      "rows_bottom_up": 7}
REGION = {"name": 0, "size": 1}
QUANT = {"scale": 0, "zero_point": 1, "axis": 2}


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


SCHEMAS = {"program": PROGRAM, "tensor": TENSOR, "op": OP, "region": REGION, "quant": QUANT}


class Patcher:
    """A program file being mutated: named access to tensors, ops and their fields.

        p = Patcher(program_bytes)
        t = p.tensor_named("x")
        p.set(p.tensor(t), "tensor", "offset", "<I", 3)
        bad = bytes(p.buf)
    """

    def __init__(self, data: bytes):
        self.buf = bytearray(data)

    @property
    def root(self) -> int:
        return root(self.buf)

    def pos(self, table: int, kind: str, name: str) -> int | None:
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
        return table_in_vector(self.buf, self.root, PROGRAM["tensors"], i)

    def op(self, i: int) -> int:
        return table_in_vector(self.buf, self.root, PROGRAM["ops"], i)

    def quant(self, tensor_index: int) -> int:
        return deref(self.buf, self.pos(self.tensor(tensor_index), "tensor", "quant"))

    def region(self, i: int) -> int:
        return table_in_vector(self.buf, self.root, PROGRAM["regions"], i)

    def name(self, tensor_index: int) -> str:
        p = self.pos(self.tensor(tensor_index), "tensor", "name")
        if p is None:
            return ""
        s = deref(self.buf, p)
        return bytes(self.buf[s + 4:s + 4 + _u32(self.buf, s)]).decode()

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
        return self.int_vec(self.tensor(tensor_index), "tensor", "shape")

    def is_constant(self, tensor_index: int) -> bool:
        return self.get(self.tensor(tensor_index), "tensor", "storage", "<B") == 1

    def vtable(self, table: int) -> int:
        return table - struct.unpack_from("<i", self.buf, table)[0]

    def drop_field(self, table: int, kind: str, name: str) -> None:
        """Marks the field absent in the table's vtable (shared vtables drop it for all users)."""
        entry = self.vtable(table) + 4 + 2 * SCHEMAS[kind][name]
        struct.pack_into("<H", self.buf, entry, 0)
