"""`ember export-c`: a program as C for one's own firmware (model.h, model.c, model_kernels.cc),
with the kernel table that links only the program's kernels, optimized where the target's tier
has them. See docs/firmware.md."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

from ember import _ember
from ember.program import _NP_DTYPES, Program
from ember.sdk import FirmwareError


def _target_tier(name: str) -> str:
    return {t["name"]: t["tier"] for t in _ember.targets()}.get(name.split("+")[0], "portable")


def kernel_names() -> list[str]:
    """kernels/kernels.def in order: index = kernel id."""
    return [k["name"] for k in _ember.kernels()]


def optimized_kernel_names(tier: str) -> list[str]:
    """The kernels with an optimized implementation on `tier` (kernels.def's `optimized` column;
    the firmware table takes ember::kernels::arm's entries for them). EMBER_FIRMWARE_KERNELS=
    portable returns none: firmware with only the portable kernels (for before/after
    measurements)."""
    if os.environ.get("EMBER_FIRMWARE_KERNELS", "") == "portable":
        return []
    return [k["name"] for k in _ember.kernels() if tier in k["optimized"]]


def _c_bytes(data: bytes, per_line: int = 24) -> str:
    lines = []
    for i in range(0, len(data), per_line):
        lines.append("  " + ",".join(str(b) for b in data[i:i + per_line]) + ",")
    return "\n".join(lines) if lines else "  0,"


def _ident(name: str) -> str:
    ident = re.sub(r"\W", "_", name)
    return ident if ident and not ident[0].isdigit() else "m_" + ident


def export_c(program: Program, output: str | Path, target: str | None = None) -> list[Path]:
    """Writes <output>.h, <output>.c and <output>_kernels.cc: the program as an aligned const
    array, the arena size per region, the I/O sizes, the kernel list, and the selective kernel
    table (only this program's kernels are referenced, so only they are linked; the optimized
    ones where `target`'s tier has them, by default the tier of the program's own target)."""
    output = Path(output)
    name = _ident(output.name)
    upper = name.upper()
    info = program.inspect()
    all_kernels = kernel_names()
    used = info["kernels"]
    unknown = [k for k in used if k not in all_kernels]
    if unknown:
        raise FirmwareError(f"the program uses kernels this checkout does not list: {unknown}")
    regions = info["memory"]["regions"]
    h = [f"/* {output.name}.h - an Ember program as C (`ember export-c`). Generated; do not edit.",
         " *",
         f" * {name}_program is the program file ({len(program.data)} bytes, 16-byte aligned) to pass to",
         " * ember::rt::Program::load together with the kernel table from "
         f"{output.name}_kernels.cc;",
         " * each memory region needs a 16-byte aligned buffer of the listed size for Executor::init.",
         " */",
         f"#ifndef {upper}_H_", f"#define {upper}_H_", "", "#include <stdint.h>", "",
         f"#define {upper}_PROGRAM_BYTES {len(program.data)}u",
         f"#define {upper}_NUM_REGIONS {len(regions)}u"]
    for i, r in enumerate(regions):
        h.append(f'#define {upper}_REGION_{i}_NAME "{r["name"]}"')
        h.append(f"#define {upper}_REGION_{i}_BYTES {r['bytes']}u")
        h.append(f"#define {upper}_ARENA_{_ident(r['name']).upper()}_BYTES {r['bytes']}u")
    h.append("/* X(index, region name, bytes) for each region, in program order. */")
    h.append(f"#define {upper}_REGIONS(X) " + " ".join(f"X({i}, {r['name']}, {r['bytes']}u)"
                                                       for i, r in enumerate(regions)))
    h.append(f"#define {upper}_NUM_INPUTS {len(info['inputs'])}u")
    h.append(f"#define {upper}_NUM_OUTPUTS {len(info['outputs'])}u")
    h.append("/* Per input and output: bytes, the stored shape (its layout word in ember inspect; the")
    h.append(" * model's own shape in the comment) and, for int8, real = SCALE * (q - ZERO_POINT). */")
    for kind in ("inputs", "outputs"):
        for i, io in enumerate(info[kind]):
            nbytes = int(np.prod(io["shape"])) * np.dtype(_NP_DTYPES[io["dtype"]]).itemsize
            prefix = f"{upper}_{kind[:-1].upper()}_{i}"
            h.append(f"#define {prefix}_BYTES {nbytes}u  /* {io['name']}: {io['dtype']}{io['shape']} "
                     f"{io['layout']}, the model's {io['model_shape']} */")
            h.append(f"#define {prefix}_RANK {len(io['shape'])}u")
            h.append(f"#define {prefix}_DIMS {{{', '.join(str(d) for d in io['shape'])}}}")
            if io["scale"] is not None:
                h.append(f"#define {prefix}_SCALE {io['scale']:.9g}f")
                h.append(f"#define {prefix}_ZERO_POINT {io['zero_point']}")
    h.append("/* The kernels the program uses: X(kernel id, name). */")
    h.append(f"#define {upper}_NUM_KERNELS {len(used)}u")
    h.append(f"#define {upper}_KERNELS(X) " + " ".join(f"X({all_kernels.index(k)}, {k})" for k in used))
    h += ["", "#ifdef __cplusplus", 'extern "C" {', "#endif",
          f"extern const uint8_t {name}_program[{upper}_PROGRAM_BYTES];",
          "#ifdef __cplusplus", "}", "namespace ember::rt { struct KernelTable; }",
          f"/* Defined in {output.name}_kernels.cc. */",
          f"extern const ember::rt::KernelTable {name}_kernel_table;", "#else",
          f"/* Defined in {output.name}_kernels.cc; C passes its address to ember_program_load"
          " (ember/runtime/ember.h). */",
          f"extern const struct ember_kernel_table {name}_kernel_table;", "#endif", "",
          f"#endif  /* {upper}_H_ */", ""]
    c = [f"/* {output.name}.c - the program file as a const array. Generated by `ember export-c`. */",
         f'#include "{output.name}.h"', "",
         "/* Built with EMBER_PROGRAM_SECTION defined, the array goes to section .ember_program (the",
         " * boards' linker scripts put it in the target's flash region); otherwise to .rodata. */",
         "#ifdef EMBER_PROGRAM_SECTION",
         '__attribute__((section(".ember_program")))',
         "#endif",
         f"_Alignas(16) const uint8_t {name}_program[{upper}_PROGRAM_BYTES] = {{",
         _c_bytes(program.data), "};", ""]
    entries = []
    optimized = optimized_kernel_names(_target_tier(target or program.target))
    for k in all_kernels:
        if k in used:
            ns = "ember::kernels::arm" if k in optimized else "ember::kernels"
            entries.append(f"    {{&{ns}::check_{k}, &{ns}::run_{k}}},  // {k}")
        else:
            entries.append(f"    {{nullptr, nullptr}},  // {k}: not used")
    cc = [f"// {output.name}_kernels.cc - the kernel table with only this program's kernels linked.",
          "// Generated by `ember export-c`; indexed by kernel id (kernels/kernels.def).",
          f'#include "{output.name}.h"', "",
          '#include "ember/kernels/arm/kernels.h"', '#include "ember/kernels/kernels.h"',
          '#include "ember/runtime/kernel_registry.h"', "",
          "namespace {", "const ember::rt::KernelEntry kEntries[] = {", *entries, "};", "}  // namespace", "",
          f"extern const ember::rt::KernelTable {name}_kernel_table = "
          "{kEntries, sizeof(kEntries) / sizeof(kEntries[0])};", ""]
    output.parent.mkdir(parents=True, exist_ok=True)
    paths = [output.with_name(output.name + ".h"), output.with_name(output.name + ".c"),
             output.with_name(output.name + "_kernels.cc")]
    for path, lines in zip(paths, (h, c, cc)):
        write_if_changed(path, "\n".join(lines))
    return paths


def write_if_changed(path: Path, text: str) -> None:
    # Unchanged files keep their time stamps, so the cached build does not recompile them.
    if path.exists() and path.read_text() == text:
        return
    path.write_text(text)
