"""The supported-ops table (docs/ops.md), generated from the project's own tables through the
binding: compiler/ops.def (Ember ops, their aten renames, traits and kernels),
compiler/aten_ops.def (every other aten op legalize accepts, with its constraints) and
kernels/kernels.def (which tiers optimize a kernel). ``python3 -m ember.ops_table > docs/ops.md``
writes it; tests/test_docs.py fails when the page differs."""

from __future__ import annotations

from ember import _ember

HEADER = """# Supported ops

From `compiler/ops.def`, `compiler/aten_ops.def` and `kernels/kernels.def` by `python3 -m ember.ops_table > docs/ops.md`. An aten op not listed is a compile error naming it, its layer and its source line. Optimized: the int8 kernels with their own code on every optimized tier (scalar, DSP, Helium) or that only move bytes; the others run the portable kernel (`ember inspect` says why, per op).

| aten ops | Ember op | int8 | float | optimized | notes |
|---|---|---|---|---|---|
"""


def _groups() -> dict[str, tuple[list[str], list[str]]]:
    """Ember op (or "identity" / "constant") -> (aten names, notes), in table order."""
    groups: dict[str, tuple[list[str], list[str]]] = {}
    for op in _ember.ops():
        if op["aten"]:
            groups.setdefault(op["kind"], ([], []))[0].append(op["aten"])
    for row in _ember.aten_ops():
        key = row["op"] or ("identity" if row["how"] == "Alias" else "constant")
        names, notes = groups.setdefault(key, ([], []))
        names.append(row["aten"])
        notes.extend(n for n in row["note"].split("; ") if n and n not in notes)
    return groups


def _row(key: str, names: list[str], notes: list[str], ops: dict, kernels: dict) -> str:
    atens = ", ".join(f"`{n.removeprefix('aten.')}`" for n in names)
    op = ops.get(key)
    if op is None:
        return f"| {atens} | — | — | — | — | {'; '.join(notes) or key} |"
    names_k = op["kernels"].split()
    either = [k for k in names_k if not k.endswith(("_s8", "_f32"))]  # one kernel for both dtypes
    int8 = [k for k in names_k if k.endswith("_s8")] + either
    if "int8" not in op["traits"] and "scalar_table" not in op["traits"]:
        int8 = []
    flt = [k for k in names_k if k.endswith("_f32")] + either
    optimized = [k for k in int8 if kernels[k]["optimized"] or kernels[k]["moves_bytes"]]
    if "unary" in op["traits"]:
        notes = notes + ["int8: a 256-entry table"]
    elif "scalar_table" in op["traits"] and "int8" not in op["traits"]:
        notes = notes + ["int8 with a number operand (a table); of two tensors float"]
    fmt = lambda ks: ", ".join(f"`{k}`" for k in ks) or "—"  # noqa: E731
    return f"| {atens} | `{key}` | {fmt(int8)} | {fmt(flt)} | {fmt(optimized)} | {'; '.join(notes)} |"


def markdown() -> str:
    ops = {op["kind"]: op for op in _ember.ops()}
    kernels = {k["name"]: k for k in _ember.kernels()}
    rows = [_row(key, names, notes, ops, kernels) for key, (names, notes) in _groups().items()]
    return HEADER + "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
