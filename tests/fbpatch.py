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
OP = {"kernel": 0, "inputs": 1, "outputs": 2, "ints": 3, "floats": 4, "source": 5}
REGION = {"name": 0, "size": 1}


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
