"""Firmware for Cortex-M boards: export a program as C, build test firmware, run it under QEMU.

    fw = build_firmware(program, "cortex-m4", "fw.elf", inputs=[(x,)])   # embeds host outputs
    result = run_qemu(fw.elf)            # QemuResult: status pass/mismatch/fault/timeout/...
    result.instructions, result.ops, result.stack

The firmware is targets/firmware/ of the Ember sources (ember.sdk: the checkout's or the
wheel's) built with CMake and targets/arm-none-eabi.cmake for the target's row of
targets/targets.def; it needs Debian's gcc-arm-none-eabi, libnewlib-arm-none-eabi and
qemu-system-arm. Builds are cached per target in the user's cache folder (ember.sdk.cache_dir),
so the runtime and kernels compile once per target. See docs/firmware.md.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ember import _ember
from ember.program import _NP_DTYPES, Program
from ember.sdk import SdkError, cache_dir, source_root

EXIT_CODES = {0: "pass", 1: "mismatch", 2: "error", 3: "fault"}


class FirmwareError(SdkError):
    """Building or running firmware failed (missing toolchain, link overflow, no board)."""


# --- the targets and kernel tables ---------------------------------------------------------------

@dataclass
class FirmwareTarget:
    name: str
    tier: str
    board_dir: str          # targets/boards/<board_dir>
    cpu_flags: str
    qemu_machine: str       # "" = compile only
    sysclk_hz: int = 0
    regions: list = field(default_factory=list)  # data regions, fastest first


def firmware_targets() -> dict[str, FirmwareTarget]:
    """The targets with an EMBER_FIRMWARE row in targets/targets.def."""
    root = source_root()
    out = {}
    for t in _ember.targets():
        if not t["board_dir"]:
            continue
        cmake = (root / "targets" / "boards" / t["board_dir"] / "board.cmake").read_text()
        clock = int(re.search(r"EMBER_BOARD_SYSCLK_HZ\s+(\d+)", cmake).group(1))
        out[t["name"]] = FirmwareTarget(t["name"], t["tier"], t["board_dir"], t["cpu_flags"], t["qemu_board"],
                                        clock, [r for r, _ in t["regions"]])
    return out


def firmware_target(name: str) -> FirmwareTarget:
    targets = firmware_targets()
    if name not in targets:
        raise FirmwareError(f"no firmware for target '{name}' (have: {', '.join(targets)})")
    return targets[name]


def _target_tier(name: str) -> str:
    return {t["name"]: t["tier"] for t in _ember.targets()}.get(name, "portable")


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


# --- export-c ------------------------------------------------------------------------------------

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
    h.append(f"/* X(index, region name, bytes) for each region, in program order. */")
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
    h.append(f"/* The kernels the program uses: X(kernel id, name). */")
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
        _write_if_changed(path, "\n".join(lines))
    return paths


def _write_if_changed(path: Path, text: str) -> None:
    # Unchanged files keep their time stamps, so the cached build does not recompile them.
    if path.exists() and path.read_text() == text:
        return
    path.write_text(text)


def parse_memory_spec(spec: str) -> dict[str, int]:
    """"DTCM=64K,SRAM=256K" -> {"DTCM": 65536, "SRAM": 262144} (K = KiB, M = MiB)."""
    out = {}
    for item in filter(None, (x.strip() for x in spec.split(","))):
        m = re.fullmatch(r"(\w+)=(\d+)\s*([KkMm]?)(?:i?[Bb])?", item)
        if not m:
            raise FirmwareError(f"memory spec {item!r}: expected REGION=BYTES, e.g. DTCM=64K")
        out[m.group(1)] = int(m.group(2)) * {"": 1, "k": 1024, "m": 1 << 20}[m.group(3).lower()]
    return out


def check_capacities(program: Program, target: str, spec: str) -> None:
    """Refuses a program whose planned arena exceeds the capacities in `spec` for its regions
    (a board with less memory than the target table says), naming the region, the bytes, the
    capacity and the op at the peak."""
    caps = parse_memory_spec(spec)
    mem = program.inspect()["memory"]
    for r in mem["regions"]:
        if r["name"] in caps and r["bytes"] > caps[r["name"]]:
            raise FirmwareError(f"the activations need {r['bytes']} bytes in region {r['name']} but it holds "
                                f"{caps[r['name']]} bytes (peak at {mem['peak_op']}); compile with "
                                f"--memory {spec} (or --plan smallest) for {target}")


# --- building ------------------------------------------------------------------------------------

@dataclass
class Firmware:
    elf: Path
    map: Path
    target: str
    program: Program
    inputs: list
    expected: list

    @property
    def meta_path(self) -> Path:
        return self.elf.with_suffix(".json")


def device_inputs(program: Program, count: int = 1, seed: int = 0) -> list[tuple[np.ndarray, ...]]:
    """`count` deterministic random input tuples in the device's layout and dtype."""
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(count):
        case = []
        for io in program.inputs:
            if io["dtype"] == "int8":
                case.append(rng.integers(-128, 128, size=io["shape"], dtype=np.int8))
            else:
                case.append(rng.standard_normal(io["shape"]).astype(_NP_DTYPES[io["dtype"]]))
        cases.append(tuple(case))
    return cases


def _firmware_data(program: Program, inputs, expected) -> str:
    regions = program.inspect()["memory"]["regions"]
    out = ["/* firmware_data.c - arenas and test vectors for targets/firmware/main.cc. Generated. */",
           '#include "model.h"', ""]
    for i, r in enumerate(regions):
        # Sized exactly by the plan; the board's linker script places the section in the region.
        out.append(f'__attribute__((section(".ember_arena.{r["name"]}"), aligned(16))) '
                   f"uint8_t ember_arena_{i}[{max(1, r['bytes'])}];")
    out.append(f"uint8_t* const ember_arenas[] = {{{', '.join(f'ember_arena_{i}' for i in range(len(regions))) or '0'}}};")
    out.append(f"const uint32_t ember_arena_bytes[] = {{{', '.join(str(r['bytes']) for r in regions) or '0'}}};")
    out.append(f"const uint32_t ember_test_cases = {len(inputs)};")
    names_in, names_out = [], []
    for c, (case_in, case_out) in enumerate(zip(inputs, expected)):
        for i, x in enumerate(case_in):
            out += [f"static const uint8_t in_{c}_{i}[] = {{", _c_bytes(np.ascontiguousarray(x).tobytes()), "};"]
            names_in.append(f"in_{c}_{i}")
        for o, y in enumerate(case_out):
            out += [f"static const uint8_t out_{c}_{o}[] = {{", _c_bytes(np.ascontiguousarray(y).tobytes()), "};"]
            names_out.append(f"out_{c}_{o}")
    out.append(f"const uint8_t* const ember_test_inputs[] = {{{', '.join(names_in) or '0'}}};")
    out.append(f"const uint8_t* const ember_test_expected[] = {{{', '.join(names_out) or '0'}}};")
    return "\n".join(out) + "\n"


def _require_tools(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        raise FirmwareError(f"missing tools: {', '.join(missing)} (run tools/setup.sh: it installs "
                            "gcc-arm-none-eabi, libnewlib-arm-none-eabi, libstdc++-arm-none-eabi-newlib, "
                            "qemu-system-arm)")


@contextlib.contextmanager
def _locked(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _cache_dir(target: str, variant: str) -> Path:
    return cache_dir("firmware") / f"{target}{variant}"


_OVERFLOW = re.compile(r"region [`']?(\w+)'? overflowed by (\d+) bytes")


def build_firmware(program: Program, target: str, output: str | Path, *, inputs=None, num_inputs: int = 1,
                   seed: int = 0, inject_fault: bool = False, no_log: bool = False,
                   jobs: int = 2) -> Firmware:
    """Builds test firmware for `program` on `target` into `output` (an ELF; the link map goes
    next to it as .map and a description as .json). `inputs` is a list of input tuples in the
    device's layout and dtype (default: `num_inputs` random ones); the host runtime's outputs for
    them are embedded and the firmware compares bit for bit. `no_log` compiles the runtime's
    error messages out (EMBER_NO_LOG: the size build; status codes still print)."""
    if inputs is None:
        inputs = device_inputs(program, num_inputs, seed)
    inputs = [tuple(x) for x in inputs]
    expected = [program.run_raw(*case) for case in inputs]
    variant = ("-fault" if inject_fault else "") + ("-nolog" if no_log else "")
    output = Path(output)
    with cached_build(program, target, variant, inputs, expected, jobs,
                      [f"-DEMBER_FW_INJECT_FAULT={'ON' if inject_fault else 'OFF'}",
                       f"-DEMBER_NO_LOG={'ON' if no_log else 'OFF'}"]) as build:
        output.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(build / "firmware.elf", output)
        shutil.copyfile(build / "firmware.map", output.with_suffix(".map"))
    fw = Firmware(output, output.with_suffix(".map"), target, program, inputs, expected)
    tgt = firmware_target(target)
    info = program.inspect()
    fw.meta_path.write_text(json.dumps({
        "target": target, "board": tgt.board_dir, "qemu_machine": tgt.qemu_machine,
        "kernels": info["kernels"], "ops": [{"op": o["op"], "kernel": o["kernel"], "source": o["source"]} for o in info["ops"]],
        "regions": info["memory"]["regions"], "cases": len(inputs)}, indent=1))
    return fw


@contextlib.contextmanager
def cached_build(program: Program, target: str, variant: str, inputs, expected, jobs: int = 2,
                 defines=()):
    """targets/firmware built for `program` in the cache folder of (target, variant), which is
    yielded while it is locked: the runtime and kernels compile once per target, later builds
    recompile only the generated model files."""
    _require_tools("arm-none-eabi-gcc", "cmake", "ninja")
    tgt = firmware_target(target)
    root = source_root()
    planned = [r["name"] for r in program.inspect()["memory"]["regions"]]
    if any(r not in tgt.regions for r in planned):
        raise FirmwareError(f"the program plans memory in {planned} but {target} has {tgt.regions}: "
                            f"compile it for {target}")
    build = _cache_dir(target, variant)
    with _locked(build.with_suffix(".lock")):
        model_dir = build / "model"
        model_dir.mkdir(parents=True, exist_ok=True)
        export_c(program, model_dir / "model", target)
        _write_if_changed(model_dir / "firmware_data.c", _firmware_data(program, inputs, expected))
        if not (build / "build.ninja").exists():
            cmd = ["cmake", "-S", str(root / "targets" / "firmware"), "-B", str(build), "-G", "Ninja",
                   f"-DCMAKE_TOOLCHAIN_FILE={root / 'targets' / 'arm-none-eabi.cmake'}",
                   f"-DEMBER_TARGET={target}", f"-DEMBER_MODEL_DIR={model_dir}",
                   "-DCMAKE_BUILD_TYPE=MinSizeRel", *defines]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                raise FirmwareError(f"configuring firmware for {target} failed:\n{r.stdout[-3000:]}{r.stderr[-3000:]}")
        r = subprocess.run(["cmake", "--build", str(build), "-j", str(jobs)], capture_output=True, text=True)
        if r.returncode != 0:
            log = r.stdout + r.stderr
            m = _OVERFLOW.search(log)
            if m:
                arena = {x["name"]: x["bytes"] for x in program.inspect()["memory"]["regions"]}
                raise FirmwareError(
                    f"the firmware does not fit {target} ({tgt.board_dir}): region {m.group(1)} overflowed by "
                    f"{m.group(2)} bytes (arena {arena}, plus the stack, runtime state and code; see "
                    "targets/boards/" + tgt.board_dir + "/memory.ld)")
            raise FirmwareError(f"building firmware for {target} failed:\n{log[-6000:]}")
        yield build


# --- load-check firmware (crafted program files) ------------------------------------------------

def _load_cases_c(base: bytes, cases, arena_bytes: int, sweep_step: int) -> str:
    """load_cases.c for targets/firmware/load_check.cc: the base file once, each case as a byte
    patch of it (files up to the base's length; `cases` holds (data, shift) pairs)."""
    lengths, shifts, counts, firsts, offsets, values = [], [], [], [], [], []
    for data, shift in cases:
        if len(data) > len(base) or not 0 <= shift < 16:
            raise FirmwareError("a load-check case must be at most as long as the base file, "
                                "with a shift in [0, 16)")
        diff = [(i, b) for i, b in enumerate(data) if b != base[i]]
        lengths.append(len(data))
        shifts.append(shift)
        counts.append(len(diff))
        firsts.append(len(offsets))
        offsets += [i for i, _ in diff]
        values += [b for _, b in diff]

    def u32s(name, xs):
        return f"const uint32_t {name}[] = {{{', '.join(str(x) for x in xs) or '0'}}};"

    return "\n".join([
        "/* load_cases.c - crafted program files for load_check.cc. Generated. */",
        "#include <stdint.h>",
        f"_Alignas(16) const uint8_t ember_base_file[] = {{", _c_bytes(base), "};",
        f"const uint32_t ember_base_bytes = {len(base)}u;",
        f"const uint32_t ember_num_cases = {len(cases)}u;",
        u32s("ember_case_length", lengths), u32s("ember_case_shift", shifts),
        u32s("ember_case_patches", counts), u32s("ember_case_first", firsts),
        u32s("ember_patch_offset", offsets),
        f"const uint8_t ember_patch_value[] = {{{', '.join(str(v) for v in values) or '0'}}};",
        '__attribute__((section(".ember_arena.SRAM"), aligned(16))) '
        f"uint8_t ember_file_buffer[{len(base) + 16}];",
        '__attribute__((section(".ember_arena.SRAM"), aligned(16))) '
        f"uint8_t ember_arena[{max(16, arena_bytes)}];",
        f"const uint32_t ember_arena_bytes = {max(16, arena_bytes)}u;",
        f"const uint32_t ember_sweep_step = {max(1, sweep_step)}u;", ""])


def build_load_check_firmware(base: bytes, cases, target: str, output: str | Path, *,
                              arena_bytes: int, sweep_step: int, jobs: int = 2) -> Path:
    """Builds targets/firmware/load_check.cc for `target`: it loads each case (a (bytes, shift)
    pair; the bytes at most as long as `base`), prints its status code, runs what loads, then
    sweeps the base program's arena from 0 to its size in `sweep_step` steps. Returns the ELF;
    run it with run_qemu(elf, target) and read the "ember-fw:" lines of its stdout."""
    _require_tools("arm-none-eabi-gcc", "cmake", "ninja")
    tgt = firmware_target(target)
    if "SRAM" not in _board_sections(tgt):
        raise FirmwareError(f"{target}'s board has no SRAM section for the load-check buffers")
    root = source_root()
    build = _cache_dir(target, "-loadcheck")
    output = Path(output)
    with _locked(build.with_suffix(".lock")):
        model_dir = build / "model"
        model_dir.mkdir(parents=True, exist_ok=True)
        _write_if_changed(model_dir / "load_cases.c",
                          _load_cases_c(bytes(base), list(cases), arena_bytes, sweep_step))
        if not (build / "build.ninja").exists():
            cmd = ["cmake", "-S", str(root / "targets" / "firmware"), "-B", str(build), "-G", "Ninja",
                   f"-DCMAKE_TOOLCHAIN_FILE={root / 'targets' / 'arm-none-eabi.cmake'}",
                   f"-DEMBER_TARGET={target}", f"-DEMBER_MODEL_DIR={model_dir}",
                   "-DCMAKE_BUILD_TYPE=MinSizeRel", "-DEMBER_FW_LOAD_CHECK=ON"]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                raise FirmwareError(f"configuring load-check firmware for {target} failed:\n"
                                    f"{r.stdout[-3000:]}{r.stderr[-3000:]}")
        r = subprocess.run(["cmake", "--build", str(build), "-j", str(jobs)], capture_output=True, text=True)
        if r.returncode != 0:
            raise FirmwareError(f"building load-check firmware for {target} failed:\n"
                                f"{(r.stdout + r.stderr)[-6000:]}")
        output.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(build / "firmware.elf", output)
        shutil.copyfile(build / "firmware.map", output.with_suffix(".map"))
    return output


def _board_sections(tgt: FirmwareTarget) -> list[str]:
    text = (source_root() / "targets" / "boards" / tgt.board_dir / "memory.ld").read_text()
    return re.findall(r"\.ember_arena\.(\w+)", text)


# --- running -------------------------------------------------------------------------------------

@dataclass
class QemuResult:
    status: str                 # pass, mismatch, error, fault, timeout, crash
    returncode: int | None
    stdout: str
    stderr: str
    seconds: float = 0.0
    fault: str = ""             # e.g. "UsageFault UNDEFINSTR" when status == "fault"
    ops: list = field(default_factory=list)            # case 0: [{"index", "kernel_id", "instructions"}]
    inferences: list = field(default_factory=list)     # instructions per case
    mismatches: int = 0
    outputs: list = field(default_factory=list)
    ram: dict = field(default_factory=dict)
    load_instructions: int | None = None   # Program::load: the verifier, once per program

    @property
    def instructions(self) -> int | None:
        return self.inferences[0] if self.inferences else None

    def describe(self) -> str:
        if self.status == "pass" and self.instructions is None:  # not Ember's test firmware
            return "pass: the firmware exited with code 0"
        if self.status == "pass":
            return f"pass: {self.instructions:,} instructions per inference, outputs bit-identical"
        if self.status == "mismatch":
            return f"MISMATCH: {self.mismatches} output elements differ from the host run"
        if self.status == "fault":
            return f"FAULT: {self.fault}"
        if self.status == "timeout":
            return f"TIMEOUT after {self.seconds:.0f} s (the firmware never exited)"
        tail = (self.stdout + self.stderr).strip().splitlines()[-5:]
        return f"{self.status.upper()} (exit code {self.returncode}): " + " | ".join(tail)


def qemu_command(elf: str | Path, machine: str) -> list[str]:
    return ["qemu-system-arm", "-machine", machine, "-nographic", "-monitor", "none", "-serial", "null",
            "-semihosting-config", "enable=on,target=native", "-icount", "shift=10,sleep=off",
            "-kernel", str(elf)]


def run_qemu(elf: str | Path, target: str | None = None, timeout: float = 300.0) -> QemuResult:
    """Runs firmware under QEMU with the target's board (from `target` or the .json next to the
    ELF), always under `timeout` seconds, and classifies the outcome."""
    import time

    _require_tools("qemu-system-arm")
    elf = Path(elf)
    if target is None:
        meta = elf.with_suffix(".json")
        if not meta.exists():
            raise FirmwareError(f"which target is {elf}? pass --target (no {meta.name} next to it)")
        target = json.loads(meta.read_text())["target"]
    tgt = firmware_target(target)
    if not tgt.qemu_machine:
        raise FirmwareError(f"{target} has no emulated board: its firmware is compile-only")
    start = time.perf_counter()
    try:
        r = subprocess.run(qemu_command(elf, tgt.qemu_machine), stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, errors="backslashreplace", timeout=timeout)
    except subprocess.TimeoutExpired as e:  # the firmware may print a program file's raw bytes (a name)
        out = e.stdout.decode(errors="backslashreplace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="backslashreplace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        return QemuResult("timeout", None, out, err, time.perf_counter() - start)
    result = QemuResult(EXIT_CODES.get(r.returncode, "crash"), r.returncode, r.stdout, r.stderr,
                        time.perf_counter() - start)
    _parse(result)
    if "Lockup" in r.stderr:
        result.status, result.fault = "fault", "Lockup (a fault while handling a fault)"
    return result


def _parse(result: QemuResult) -> None:
    for line in result.stdout.splitlines():
        if line.startswith("FAULT: ") and not result.fault:
            result.fault = line[len("FAULT: "):].strip()
        if not line.startswith("ember-fw: "):
            continue
        words = line[len("ember-fw: "):].split()
        kv = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        if words[0] == "op" and kv.get("case") == "0":
            result.ops.append({"index": int(kv["index"]), "kernel_id": int(kv["kernel"]),
                               "instructions": int(kv["instructions"])})
        elif words[0] == "load" and "instructions" in kv:
            result.load_instructions = int(kv["instructions"])
        elif words[0] == "inference":
            result.inferences.append(int(kv["instructions"]))
        elif words[0] == "output":
            result.mismatches += int(kv["mismatches"])
            result.outputs.append({k: int(v) for k, v in kv.items()})
        elif words[0] == "ram":
            result.ram = {k: int(v) for k, v in kv.items()}


# --- static stack bound ----------------------------------------------------------------------------

# Bytes of stack Program::load and Executor::run may each use at most, on every target: the
# microbit (cortex-m0) has a 2 KiB stack in all. `ember bench` and tests/test_device_discipline.py
# fail over it.
STACK_BUDGET = 2048

# Flash bytes the verifier (flash_breakdown's "verifier") may take on the Cortex-M55 without
# messages (EMBER_NO_LOG): 4,000 B of code, plus its tables' 3 B per kernels.def row (a packed
# signature and an in-place rule, runtime/op_signatures.h), which grow with every kernel;
# tests/test_device_discipline.py fails above it. The measured figure is on docs/results.md.
VERIFIER_CODE_BUDGET = 4000


def verifier_flash_budget() -> int:
    return VERIFIER_CODE_BUDGET + 3 * len(_ember.kernels())


def static_stack(target: str, variant: str = "") -> dict:
    """The static worst-case stack of Program::load and Executor::run for `target`, from the
    call graphs (-fcallgraph-info) of its cached firmware build (ember.stack_usage; build any
    firmware for the target first). Every kernel in the kernels library counts, linked or not.
    Raises FirmwareError on recursion or an unknown callee."""
    from ember import stack_usage

    try:
        r = stack_usage.bound(_cache_dir(target, variant))
    except stack_usage.StackError as e:
        raise FirmwareError(f"static stack bound for {target}: {e}") from e
    return {"load": r["load"]["bytes"], "run": r["run"]["bytes"], "budget": STACK_BUDGET}


# --- measuring flash -----------------------------------------------------------------------------

_FLASH_SECTIONS = (".text", ".ember_program", ".ARM.extab", ".ARM.exidx", ".init_array", ".data")


def flash_breakdown(map_path: str | Path) -> dict:
    """Flash bytes by origin, from the link map: runtime_core (libember_runtime.a), kernels
    (libember_kernels.a and the kernel table), constants (the program file), other (board
    support, main, test vectors, libc, libgcc, alignment fill) and total (= text + data).
    verifier is the part of runtime_core that Program::load's file checks take: every flash
    section of program_verifier and program_structure (docs/firmware.md says what that holds)."""
    parts = {"runtime_core": 0, "kernels": 0, "constants": 0, "other": 0}
    verifier = 0
    text = Path(map_path).read_text()
    lines = text[text.find("Linker script and memory map"):].splitlines()
    section, pending = None, False

    def add(size: str, origin: str) -> None:
        nonlocal verifier
        if section in _FLASH_SECTIONS:
            parts[_category(origin)] += int(size, 16)
            if _VERIFIER_OBJECTS.search(origin):
                verifier += int(size, 16)

    for line in lines:
        if not line.strip():
            continue
        if not line[0].isspace():                   # an output section (or LOAD, START GROUP)
            section, pending = line.split()[0], False
            continue
        toks = line.split()
        if line[1] != " ":                          # an input section: " .text.foo 0x.. 0x.. file"
            pending = False
            if len(toks) >= 3 and toks[1].startswith("0x") and toks[2].startswith("0x"):
                add(toks[2], " ".join(toks[3:]) or "fill")
            elif len(toks) == 1:
                pending = True                      # long name: numbers on the next line
        elif pending and len(toks) >= 3 and toks[0].startswith("0x") and toks[1].startswith("0x"):
            add(toks[1], " ".join(toks[2:]))
            pending = False
    parts["total"] = sum(parts.values())
    parts["verifier"] = verifier
    return parts


# The runtime's load-time file checks (the kernels' own checks are counted with the kernels).
_VERIFIER_OBJECTS = re.compile(r"libember_runtime\.a\((program_verifier|program_structure)\.cc\.obj?\)")


def _category(origin: str) -> str:
    if "libember_runtime.a" in origin:
        return "runtime_core"
    if "libember_kernels.a" in origin or "model_kernels.cc" in origin:
        return "kernels"
    if re.search(r"(^|/)model\.c\.obj?$", origin):
        return "constants"
    return "other"


def elf_size(elf: str | Path) -> dict:
    """arm-none-eabi-size: text, data, bss."""
    r = subprocess.run(["arm-none-eabi-size", str(elf)], capture_output=True, text=True, check=True)
    text, data, bss = (int(v) for v in r.stdout.splitlines()[1].split()[:3])
    return {"text": text, "data": data, "bss": bss}
