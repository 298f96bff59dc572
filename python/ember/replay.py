"""Replays program files on the emulated cores' optimized kernels against the host's portable run.

The fuzzer (tools/fuzz.sh) runs every program it finds under ASan and UBSan, but on the host: the
portable kernels and the scalar tier's C. The DSP and Helium kernels (ACLE intrinsics, inline
assembly) run only on Arm cores. This takes program files (a fuzz corpus, the seeds), keeps those
the host runtime loads and runs, records the host's outputs for deterministic inputs, and runs
each on the firmware of targets/firmware/replay.cc, built with the target's whole optimized
kernel table, under QEMU. A program whose kernels are all int8 must give the host's outputs byte
for byte (the numeric contract; a float output bit for bit, any NaN equal to any NaN); the
firmware must not fault. A program the device's kernel checks refuse is counted
by status, not as a failure (the MVE depthwise kernel refuses a -128 weight, for one). A program
with a float kernel may differ (newlib's libm is not glibc's) and is counted apart.

    python3 -m ember.replay --corpus build/fuzz/corpus-x86_64 --targets cortex-m3,cortex-m4,cortex-m55
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import shutil
import struct
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .firmware import (FirmwareError, _cache_dir, _locked, _require_tools, firmware_target, qemu_command,
                       source_root)
from .program import Program, ProgramError

# The firmware's buffers (replay.cc): a case file, and all of a program's regions.
MAX_CASE_BYTES = 1 << 20
MAX_ARENA_BYTES = 2 << 20
# The boards whose SRAM holds those 3 MB (targets/boards/*/memory.ld).
REPLAY_TARGETS = ("cortex-m3", "cortex-m4", "cortex-m7", "cortex-m33", "cortex-m55")


@dataclass
class ReplayResult:
    target: str
    cases: int = 0
    ran: int = 0
    mismatching: list = field(default_factory=list)   # cases without a float kernel whose outputs differ
    float_differing: list = field(default_factory=list)  # programs with float kernels (outside the contract)
    refused: collections.Counter = field(default_factory=collections.Counter)  # device status -> count
    fault: str = ""
    status: str = ""   # the QEMU run: pass, mismatch, fault, timeout, crash

    @property
    def ok(self) -> bool:
        # "mismatch": the firmware's exit code when any case differs, float kernels' included.
        return not self.mismatching and not self.fault and self.status in ("pass", "mismatch") \
            and self.ran + sum(self.refused.values()) == self.cases


def _inputs(program: Program, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for io in program.inputs:
        if io["dtype"] == "int8":
            out.append(rng.integers(-128, 128, size=io["shape"], dtype=np.int8))
        else:
            out.append(rng.uniform(-4, 4, size=io["shape"]).astype(np.float32))
    return out


def write_cases(files: list[Path], out_dir: Path, limit: int | None = None) -> list[dict]:
    """Case files 00000.bin, ... in out_dir for the programs among `files` that the host loads
    and runs (and that fit the firmware's buffers). Returns one record per case."""
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    cases = []
    for path in files:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            continue  # a running fuzzer replaced it
        if len(data) + 4096 > MAX_CASE_BYTES:
            continue
        try:
            program = Program(data)
        except ProgramError:
            continue  # the loader rejects it
        if program.arena_bytes > MAX_ARENA_BYTES - 256:
            continue
        seed = int.from_bytes(hashlib.sha256(data).digest()[:4], "little")
        inputs = _inputs(program, seed)
        try:
            outputs = program.run_raw(*inputs)
        except ProgramError:
            continue  # a run-time error on the host: nothing to compare
        body = b"".join(x.tobytes() for x in inputs) + b"".join(y.tobytes() for y in outputs)
        padded = data + bytes(-len(data) % 16)
        case = b"EMRP" + struct.pack("<I", len(data)) + bytes(8) + padded + body
        if len(case) > MAX_CASE_BYTES:
            continue
        (out_dir / f"{len(cases):05d}.bin").write_bytes(case)
        # Float kernels are outside the bit-exact contract (libm differs, docs/numerics.md), and
        # so is an int8 output of a program that has one.
        float_kernels = any(op["kernel"].endswith("_f32") for op in program.inspect()["ops"])
        cases.append({"file": str(path), "float_kernels": float_kernels})
        if limit is not None and len(cases) >= limit:
            break
    return cases


def build_replay_firmware(target: str, jobs: int = 2) -> Path:
    """targets/firmware/replay.cc for `target`, cached in build/firmware/<target>-replay."""
    if target not in REPLAY_TARGETS:
        raise FirmwareError(f"replay runs on {', '.join(REPLAY_TARGETS)} (their boards' SRAM holds its buffers)")
    _require_tools("arm-none-eabi-gcc", "cmake", "ninja", "qemu-system-arm")
    root = source_root()
    build = _cache_dir(target, "-replay")
    with _locked(build.with_suffix(".lock")):
        if not (build / "build.ninja").exists():
            cmd = ["cmake", "-S", str(root / "targets" / "firmware"), "-B", str(build), "-G", "Ninja",
                   f"-DCMAKE_TOOLCHAIN_FILE={root / 'targets' / 'arm-none-eabi.cmake'}",
                   f"-DEMBER_TARGET={target}", "-DCMAKE_BUILD_TYPE=MinSizeRel", "-DEMBER_FW_REPLAY=ON"]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                raise FirmwareError(f"configuring replay firmware for {target} failed:\n{r.stdout[-3000:]}{r.stderr[-3000:]}")
        r = subprocess.run(["cmake", "--build", str(build), "-j", str(jobs)], capture_output=True, text=True)
        if r.returncode != 0:
            raise FirmwareError(f"building replay firmware for {target} failed:\n{(r.stdout + r.stderr)[-6000:]}")
    return build / "firmware.elf"


def run_cases(target: str, case_dir: Path, cases: list[dict], timeout: float = 1200.0) -> ReplayResult:
    """Runs the replay firmware on the case files in case_dir and classifies every case."""
    elf = build_replay_firmware(target)
    result = ReplayResult(target, cases=len(cases))
    cmd = qemu_command(elf.resolve(), firmware_target(target).qemu_machine)
    try:
        r = subprocess.run(cmd, cwd=case_dir, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           errors="backslashreplace", timeout=timeout)  # the files' names are raw bytes
        out, code = r.stdout, r.returncode
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="backslashreplace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        code = None
    result.status = {0: "pass", 1: "mismatch", 2: "error", 3: "fault", None: "timeout"}.get(code, "crash")
    for line in out.splitlines():
        if line.startswith("FAULT: "):
            result.fault = result.fault or line[len("FAULT: "):].strip()
        if not line.startswith("ember-replay: case="):
            continue
        kv = dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)
        c = int(kv["case"])
        if "int8_mismatches" in kv:
            result.ran += 1
            differs = int(kv["int8_mismatches"]) or int(kv["float_mismatches"])
            if differs and cases[c]["float_kernels"]:
                result.float_differing.append(c)
            elif differs:
                result.mismatching.append(c)
        elif "refused" in kv:  # by the device's load (its kernel checks) or its run
            result.refused[("run " if kv["load"] == "0" else "load ") + kv["refused"]] += 1
    if result.status == "fault" and not result.fault:
        result.fault = "fault"
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m ember.replay", description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", action="append", required=True, help="a folder of program files (repeatable)")
    parser.add_argument("--targets", default="cortex-m3,cortex-m4,cortex-m55")
    parser.add_argument("--limit", type=int, default=None, help="at most this many cases")
    parser.add_argument("--work-dir", default=str(source_root() / "build" / "replay"))
    args = parser.parse_args(argv)
    files = sorted(p for d in args.corpus for p in Path(d).iterdir() if p.is_file())
    case_dir = Path(args.work_dir) / "cases"
    cases = write_cases(files, case_dir, args.limit)
    print(f"replay: {len(files)} files, {len(cases)} cases the host loads and runs")
    failed = False
    for target in args.targets.split(","):
        r = run_cases(target, case_dir, cases)
        refused = ", ".join(f"{k} {v}" for k, v in sorted(r.refused.items())) or "none"
        print(f"replay {target}: {r.ran} of {r.cases} ran, {len(r.mismatching)} differing (int8 kernels only), "
              f"{len(r.float_differing)} differing with float kernels; refused by the device: {refused}; "
              f"qemu {r.status}{' (' + r.fault + ')' if r.fault else ''}")
        for c in r.mismatching[:10]:
            print(f"  mismatch: case {c:05d} from {cases[c]['file']}")
        failed = failed or not r.ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
