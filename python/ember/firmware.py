"""Building firmware for Cortex-M boards: the targets with firmware, test firmware that checks a
program against the host bit for bit, and the load-check firmware, all through one CMake call.

    fw = build_firmware(program, "cortex-m4", "fw.elf", inputs=[(x,)])   # embeds host outputs
    ember.qemu.run_qemu(fw.elf)                                          # runs it

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
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ember import _ember
from ember.export import _c_bytes, export_c, write_if_changed
from ember.program import _NP_DTYPES, Program
from ember.sdk import FirmwareError, cache_dir, require_tools, source_root


# --- targets -------------------------------------------------------------------------------------

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
    """The firmware of a target; with an NPU ("cortex-m55+ethos-u55-128"), its CPU's."""
    targets = firmware_targets()
    cpu = name.split("+")[0]
    if cpu not in targets:
        raise FirmwareError(f"no firmware for target '{name}' (have: {', '.join(targets)})")
    return targets[cpu]


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


def _npu_calls_c(calls: list) -> list[str]:
    """The NPU calls the host made (ember_npu_call, targets/firmware/npu_stand_in.h), in order."""
    out = ['#include "npu_stand_in.h"']
    rows = []
    for k, (scratch, in_offsets, out_offsets, ins, outs) in enumerate(calls):
        for kind, values in (("in", ins), ("out", outs)):
            for i, data in enumerate(values):
                out += [f"static const uint8_t npu_{k}_{kind}_{i}[] = {{", _c_bytes(data), "};"]
            out.append(f"static const uint8_t* const npu_{k}_{kind}[] = {{"
                       f"{', '.join(f'npu_{k}_{kind}_{i}' for i in range(len(values)))}}};")
            out.append(f"static const uint32_t npu_{k}_{kind}_bytes[] = {{{', '.join(str(len(d)) for d in values)}}};")
        out.append(f"static const int32_t npu_{k}_in_offsets[] = {{{', '.join(map(str, in_offsets))}}};")
        out.append(f"static const int32_t npu_{k}_out_offsets[] = {{{', '.join(map(str, out_offsets))}}};")
        rows.append(f"{{{scratch}, {len(ins)}, {len(outs)}, npu_{k}_in_offsets, npu_{k}_out_offsets, npu_{k}_in, "
                    f"npu_{k}_in_bytes, npu_{k}_out, npu_{k}_out_bytes}}")
    out.append(f"const ember_npu_call ember_npu_calls[] = {{{', '.join(rows)}}};")
    out.append(f"const uint32_t ember_npu_num_calls = {len(calls)};")
    return out


def host_outputs(program: Program, inputs) -> tuple[list, list]:
    """The host runtime's outputs for each input tuple, and the NPU calls it made on the way
    (scratch bytes, input and output offsets, input bytes in place, the reference model's output
    bytes), for the firmware's NPU stand-in."""
    from ember.npu_reference import reference, run_reference

    calls = []

    def recorded(tosa, scratch, in_offsets, out_offsets):
        outs = run_reference(tosa, scratch, in_offsets, out_offsets)
        ins = [scratch[o:o + n] for o, n in zip(in_offsets, _input_sizes(tosa))]
        calls.append((len(scratch), list(in_offsets), list(out_offsets), ins, outs))
        return outs

    with reference(recorded):
        return [program.run_raw(*case) for case in inputs], calls


def _input_sizes(tosa: bytes) -> list[int]:
    from ember.npu import tosa_io_shapes

    return [int(np.prod(shape)) for shape in tosa_io_shapes(tosa)[0]]


def _firmware_data(program: Program, inputs, expected, npu_calls=()) -> str:
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
    if npu_calls:
        out += _npu_calls_c(npu_calls)
    return "\n".join(out) + "\n"


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


def cmake_build(project: str, build: Path, target: str, defines=(), jobs: int = 2) -> None:
    """The one CMake call for every kind of firmware: configures targets/<project> (firmware,
    kernel_tests) for `target` in `build` the first time, then builds it (only what changed).
    Raises FirmwareError with the log's tail."""
    require_tools("arm-none-eabi-gcc", "cmake", "ninja")
    root = source_root()
    if not (build / "build.ninja").exists():
        r = subprocess.run(["cmake", "-S", str(root / "targets" / project), "-B", str(build), "-G", "Ninja",
                            f"-DCMAKE_TOOLCHAIN_FILE={root / 'targets' / 'arm-none-eabi.cmake'}",
                            f"-DEMBER_TARGET={target}", "-DCMAKE_BUILD_TYPE=MinSizeRel", *defines],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise FirmwareError(f"configuring {project} for {target} failed:\n{r.stdout[-3000:]}{r.stderr[-3000:]}")
    r = subprocess.run(["cmake", "--build", str(build), "-j", str(jobs)], capture_output=True, text=True)
    if r.returncode != 0:
        raise FirmwareError(f"building {project} for {target} failed:\n{(r.stdout + r.stderr)[-6000:]}")


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
    expected, npu_calls = host_outputs(program, inputs)
    variant = ("-fault" if inject_fault else "") + ("-nolog" if no_log else "")
    output = Path(output)
    with cached_build(program, target, variant, inputs, expected, jobs,
                      [f"-DEMBER_FW_INJECT_FAULT={'ON' if inject_fault else 'OFF'}",
                       f"-DEMBER_NO_LOG={'ON' if no_log else 'OFF'}",
                       f"-DEMBER_FW_NPU_STAND_IN={'ON' if npu_calls else 'OFF'}"], npu_calls) as build:
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
                 defines=(), npu_calls=()):
    """targets/firmware built for `program` in the cache folder of (target, variant), which is
    yielded while it is locked: the runtime and kernels compile once per target, later builds
    recompile only the generated model files."""
    tgt = firmware_target(target)
    planned = [r["name"] for r in program.inspect()["memory"]["regions"]]
    if any(r not in tgt.regions for r in planned):
        raise FirmwareError(f"the program plans memory in {planned} but {target} has {tgt.regions}: "
                            f"compile it for {target}")
    build = _cache_dir(target, variant)
    with _locked(build.with_suffix(".lock")):
        model_dir = build / "model"
        model_dir.mkdir(parents=True, exist_ok=True)
        export_c(program, model_dir / "model", target)
        write_if_changed(model_dir / "firmware_data.c", _firmware_data(program, inputs, expected, npu_calls))
        try:
            cmake_build("firmware", build, tgt.name, [f"-DEMBER_MODEL_DIR={model_dir}", *defines], jobs)
        except FirmwareError as e:
            m = _OVERFLOW.search(str(e))
            if not m:
                raise
            arena = {x["name"]: x["bytes"] for x in program.inspect()["memory"]["regions"]}
            raise FirmwareError(
                f"the firmware does not fit {target} ({tgt.board_dir}): region {m.group(1)} overflowed by "
                f"{m.group(2)} bytes (arena {arena}, plus the stack, runtime state and code; see "
                "targets/boards/" + tgt.board_dir + "/memory.ld)") from None
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
        "_Alignas(16) const uint8_t ember_base_file[] = {", _c_bytes(base), "};",
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
    tgt = firmware_target(target)
    if "SRAM" not in _board_sections(tgt):
        raise FirmwareError(f"{target}'s board has no SRAM section for the load-check buffers")
    build = _cache_dir(target, "-loadcheck")
    output = Path(output)
    with _locked(build.with_suffix(".lock")):
        model_dir = build / "model"
        model_dir.mkdir(parents=True, exist_ok=True)
        write_if_changed(model_dir / "load_cases.c",
                          _load_cases_c(bytes(base), list(cases), arena_bytes, sweep_step))
        cmake_build("firmware", build, target, [f"-DEMBER_MODEL_DIR={model_dir}", "-DEMBER_FW_LOAD_CHECK=ON"], jobs)
        output.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(build / "firmware.elf", output)
        shutil.copyfile(build / "firmware.map", output.with_suffix(".map"))
    return output


def _board_sections(tgt: FirmwareTarget) -> list[str]:
    text = (source_root() / "targets" / "boards" / tgt.board_dir / "memory.ld").read_text()
    return re.findall(r"\.ember_arena\.(\w+)", text)
