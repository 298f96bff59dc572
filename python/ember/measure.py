"""What firmware costs, measured from its build: the static worst-case stack of load and run
(GCC's call graphs, ember.stack_usage) and flash by origin (the link map). See docs/firmware.md."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from ember import _ember
from ember.firmware import _cache_dir
from ember.sdk import FirmwareError


# Bytes of stack Program::load and Executor::run may each use at most, on every target: the
# microbit (cortex-m0) has a 2 KiB stack in all. `ember bench` and tests/test_device_discipline.py
# fail over it.
STACK_BUDGET = 2048

# Flash bytes the verifier (flash_breakdown's "verifier") may take on the Cortex-M55 without
# messages (EMBER_NO_LOG): 4,070 B of code (with the views that are windows and the NPU scratch's
# in-place rule), plus its tables' 3 B per kernels.def row (a packed signature and an in-place
# rule, runtime/op_signatures.h), which grow with every kernel; tests/test_device_discipline.py
# fails above it. The measured figure is on docs/results.md.
VERIFIER_CODE_BUDGET = 4070


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
