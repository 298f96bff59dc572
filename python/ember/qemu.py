"""Running firmware under QEMU: the command, the run (always bounded by a timeout), and the
outcome read from the firmware's exit code and its "ember-fw:" lines (targets/firmware/main.cc).

    result = run_qemu("fw.elf")      # the board from fw.json beside it, or target=
    result.status, result.instructions, result.ops, result.ram, result.fault
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ember.firmware import firmware_target
from ember.sdk import FirmwareError, require_tools

EXIT_CODES = {0: "pass", 1: "mismatch", 2: "error", 3: "fault"}


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

    require_tools("qemu-system-arm")
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
