"""Replays program files on the emulated cores: each device's verdict against the host's, and
the optimized kernels' outputs against the host's portable run.

The fuzzer (tools/fuzz.sh) runs every program it finds under ASan and UBSan, but on the host: the
portable kernels and the scalar tier's C. The DSP and Helium kernels (ACLE intrinsics, inline
assembly) and the device's own build of the verifier run only on Arm cores. This takes program
files (a fuzz corpus, the seeds) and writes one case per file that fits the firmware's buffers,
with the host runtime's verdict on it for each kernel tier (the checks that tier's devices run,
without the host-only folded-bias check). For a file some tier accepts, the case also holds
deterministic inputs and, when the host runs it, the host's outputs. The firmware of
targets/firmware/replay.cc, built with the target's whole optimized kernel table, runs every
case under QEMU:

- its load verdict must equal the host's for the target's tier (0 when it loads), so that
  `ember inspect` and `ember.Program` speak for the device;
- a loaded program runs (on zero inputs when the host gave none) inside guard bytes, and no
  guard byte and no program byte may change: the runtime writes only its regions;
- a program whose kernels are all int8 must give the host's outputs byte for byte (the numeric
  contract; a float output bit for bit, any NaN equal to any NaN);
- the firmware must not fault.

A run the device refuses (its bind or a kernel's run returns an error) is counted by status, not
as a failure. A program with a float kernel may differ (newlib's libm is not glibc's) and is
counted apart.

    python3 -m ember.replay --corpus build/fuzz/corpus-x86_64 --targets cortex-m3,cortex-m4,cortex-m55
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import shutil
import struct
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import _ember
from .firmware import _cache_dir, _locked, cmake_build, firmware_target
from .qemu import qemu_command
from .sdk import FirmwareError, cache_dir, require_tools

# The firmware's buffers (replay.cc): a case file, and all of a program's regions with their
# guard bytes.
MAX_CASE_BYTES = 1 << 20
MAX_ARENA_BYTES = 2 << 20
# The boards whose SRAM holds those 3 MB (targets/boards/*/memory.ld).
REPLAY_TARGETS = ("cortex-m3", "cortex-m4", "cortex-m7", "cortex-m33", "cortex-m55")
# The device tiers whose verdicts a case records.
TIERS = ("scalar", "dsp", "mve")
# Case header flags (replay.cc).
HAS_INPUTS, HAS_EXPECTED = 1, 2


def status_name(code: int) -> str:
    names = {value: name for name, (value, _) in _ember.status_codes().items()}
    return names.get(code, f"status {code}")


@dataclass
class ReplayResult:
    target: str
    cases: int = 0
    ran: int = 0            # loaded, bound and run without an error
    compared: int = 0       # of those, outputs compared with the host's
    mismatching: list = field(default_factory=list)   # cases without a float kernel whose outputs differ
    float_differing: list = field(default_factory=list)  # programs with float kernels (outside the contract)
    # (case, host verdict, device verdict) where the device's load disagrees with the host's
    # verdict for this target's tier (status codes, 0 = loads).
    disagreeing: list = field(default_factory=list)
    guard_damaged: list = field(default_factory=list)    # cases that changed a guard byte
    program_changed: list = field(default_factory=list)  # cases that changed the program's bytes
    rejected: collections.Counter = field(default_factory=collections.Counter)  # load status -> count
    refused: collections.Counter = field(default_factory=collections.Counter)   # "run <status>" -> count
    missing: list = field(default_factory=list)  # cases without a line (malformed, or the run stopped)
    fault: str = ""
    status: str = ""   # the QEMU run: pass, mismatch, fault, timeout, crash

    @property
    def ok(self) -> bool:
        # "mismatch": the firmware's exit code when any case differs (float kernels' included) or
        # wrote outside its regions; those are judged here.
        return (not self.mismatching and not self.disagreeing and not self.guard_damaged
                and not self.program_changed and not self.missing and not self.fault
                and self.status in ("pass", "mismatch"))


def _inputs(ios: list[dict], seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for io in ios:
        if io["dtype"] == "int8":
            out.append(rng.integers(-128, 128, size=io["shape"], dtype=np.int8))
        else:
            out.append(rng.uniform(-4, 4, size=io["shape"]).astype(np.float32))
    return out


def host_verdicts(data: bytes) -> dict[str, int]:
    """The host runtime's load verdict for each device tier: the status code a device of that
    tier returns (0 = loads). Without the folded-bias check, which only the host tools run."""
    return {tier: _ember.Runtime(data, tier, False).status_code for tier in TIERS}


def _program_outputs(data: bytes) -> list[int]:
    """Program.outputs (schema/program.fbs, field 5) of a file the runtime has verified."""
    root = struct.unpack_from("<I", data, 0)[0]
    vtable = root - struct.unpack_from("<i", data, root)[0]
    at = root + struct.unpack_from("<H", data, vtable + 4 + 2 * 5)[0]
    vec = at + struct.unpack_from("<I", data, at)[0]
    return list(struct.unpack_from(f"<{struct.unpack_from('<I', data, vec)[0]}i", data, vec + 4))


def _reads_scratch(data: bytes, info: dict) -> bool:
    """Whether an op's scratch (its second output, kernels.def), or a view of it, is read by an
    op or is a program output: the compiler never does that, but the file may, and a scratch
    holds what the tier's kernel left there, so such a program's numbers are the tier's own."""
    scratch = {t for op in info["ops"] for t in op["output_ids"][1:]}
    scratch |= {b["tensor"] for b in info["memory"]["buffers"] if b["view_of"] in scratch}
    read = {t for op in info["ops"] for t in op["input_ids"]} | set(_program_outputs(data))
    return bool(scratch & read)


def _run_data(data: bytes, verdict: dict[str, int]) -> tuple[list | None, list | None, bool]:
    """(inputs, the host's outputs or None, whether a float kernel runs) for a file some tier
    accepts; (None, None, False) when there is nothing to run it on. A program may have no
    inputs at all: [] is its input list."""
    try:
        info = json.loads(_ember.inspect_json(data))
    except ValueError:
        return None, None, False
    if info["memory"]["arena_bytes"] > MAX_ARENA_BYTES - 256:
        return None, None, False  # over the firmware's buffer with guards: the verdict is still compared
    seed = int.from_bytes(hashlib.sha256(data).digest()[:4], "little")
    inputs = _inputs(info["inputs"], seed)
    # Float kernels are outside the bit-exact contract (libm differs, docs/numerics.md), and so
    # is an int8 output of a program that has one.
    float_kernels = any(op["kernel"].endswith("_f32") for op in info["ops"])
    if _reads_scratch(data, info):
        return inputs, None, float_kernels
    # The expected outputs are the portable kernels' (every tier runs them on the host); only a
    # file with the right folded biases has them, since a device computes with the stored ones.
    tier = next(t for t in TIERS if verdict[t] == 0)
    rt = _ember.Runtime(data, tier, True)
    if rt.status != "ok":
        return inputs, None, float_kernels
    status, outputs, _ = rt.run([x.tobytes() for x in inputs])
    return inputs, (list(outputs) if status == "ok" else None), float_kernels


def case_body(inputs: list | None, outputs: list | None) -> tuple[int, bytes]:
    """A case's flags and the bytes after its program (replay.cc): the inputs when there are any
    to give (a program may have none: then only the flag says so), then the host's outputs."""
    if inputs is None:
        return 0, b""
    flags = HAS_INPUTS | (HAS_EXPECTED if outputs is not None else 0)
    return flags, b"".join(x.tobytes() for x in inputs) + b"".join(outputs or [])


def write_cases(files: list[Path], out_dir: Path, limit: int | None = None) -> list[dict]:
    """Case files 00000.bin, ... in out_dir, one for each of `files` that fits the firmware's
    buffers. Returns one record per case: the file, the host's verdict per tier, and whether it
    holds inputs and expected outputs."""
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    # An NPU partition runs nowhere here, as on the replay firmware (NpuUnavailable): the TOSA
    # reference model is not given a fuzzed file's TOSA graph.
    from ember.npu_reference import reference

    with reference(None):
        return _write_cases(files, out_dir, limit)


def _write_cases(files: list[Path], out_dir: Path, limit: int | None) -> list[dict]:
    cases = []
    for path in files:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            continue  # a running fuzzer replaced it
        padded = data + bytes(-len(data) % 16)
        if 16 + len(padded) > MAX_CASE_BYTES:
            continue
        verdict = host_verdicts(data)
        inputs, outputs, float_kernels = (None, None, False)
        if any(v == 0 for v in verdict.values()):
            inputs, outputs, float_kernels = _run_data(data, verdict)
        flags, body = case_body(inputs, outputs)
        if 16 + len(padded) + len(body) > MAX_CASE_BYTES:
            flags, body = 0, b""
        case = b"EMRP" + struct.pack("<II", len(data), flags) + bytes(4) + padded + body
        (out_dir / f"{len(cases):05d}.bin").write_bytes(case)
        cases.append({"file": str(path), "verdict": verdict, "inputs": flags & HAS_INPUTS != 0,
                      "expected": flags & HAS_EXPECTED != 0, "float_kernels": float_kernels})
        if limit is not None and len(cases) >= limit:
            break
    return cases


def build_replay_firmware(target: str, jobs: int = 2) -> Path:
    """targets/firmware/replay.cc for `target`, built in the firmware cache (<target>-replay)."""
    if target not in REPLAY_TARGETS:
        raise FirmwareError(f"replay runs on {', '.join(REPLAY_TARGETS)} (their boards' SRAM holds its buffers)")
    require_tools("qemu-system-arm")
    build = _cache_dir(target, "-replay")
    with _locked(build.with_suffix(".lock")):
        cmake_build("firmware", build, target, ["-DEMBER_FW_REPLAY=ON"], jobs)
    return build / "firmware.elf"


def parse_output(target: str, out: str, cases: list[dict], result: ReplayResult) -> ReplayResult:
    """Classifies every case from the firmware's lines (replay.cc) into `result`."""
    tier = firmware_target(target).tier
    seen = set()
    for line in out.splitlines():
        if line.startswith("FAULT: "):
            result.fault = result.fault or line[len("FAULT: "):].strip()
        if not line.startswith("ember-replay: case="):
            continue
        fields = line.split("(")[0].split()[1:]  # the status's words in parentheses are prose
        kv = dict(w.split("=", 1) for w in fields if "=" in w)
        c = int(kv["case"])
        if "load" not in kv or "malformed" in fields or "too-large" in fields:
            continue  # counted as missing
        seen.add(c)
        load = int(kv["load"])
        host = cases[c]["verdict"][tier]
        if load != host:
            result.disagreeing.append((c, host, load))
        # The fields are on every line: a line without them is a firmware that did not check.
        if kv.get("guard") != "0":
            result.guard_damaged.append(c)
        if kv.get("program") != "0":
            result.program_changed.append(c)
        if load != 0:
            result.rejected[status_name(load)] += 1
            continue
        if kv["run"] != "0":
            result.refused["run " + status_name(int(kv["run"]))] += 1
            continue
        result.ran += 1
        if "int8_mismatches" not in kv:
            continue
        result.compared += 1
        differs = int(kv["int8_mismatches"]) or int(kv["float_mismatches"])
        if differs and cases[c]["float_kernels"]:
            result.float_differing.append(c)
        elif differs:
            result.mismatching.append(c)
    result.missing = [c for c in range(len(cases)) if c not in seen]
    if result.status == "fault" and not result.fault:
        result.fault = "fault"
    return result


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
    return parse_output(target, out, cases, result)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m ember.replay", description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", action="append", required=True, help="a folder of program files (repeatable)")
    parser.add_argument("--targets", default="cortex-m3,cortex-m4,cortex-m55")
    parser.add_argument("--limit", type=int, default=None, help="at most this many cases")
    parser.add_argument("--work-dir", default=str(cache_dir("replay")))
    args = parser.parse_args(argv)
    files = sorted(p for d in args.corpus for p in Path(d).iterdir() if p.is_file())
    case_dir = Path(args.work_dir) / "cases"
    cases = write_cases(files, case_dir, args.limit)
    loading = sum(any(v == 0 for v in c["verdict"].values()) for c in cases)
    print(f"replay: {len(files)} files, {len(cases)} cases: {loading} load on some tier, "
          f"{sum(c['expected'] for c in cases)} with the host's outputs")
    failed = False
    for target in args.targets.split(","):
        r = run_cases(target, case_dir, cases)
        rejected = ", ".join(f"{k} {v}" for k, v in sorted(r.rejected.items())) or "none"
        refused = ", ".join(f"{k} {v}" for k, v in sorted(r.refused.items())) or "none"
        print(f"replay {target}: {r.cases - len(r.disagreeing) - len(r.missing)} of {r.cases} verdicts as the "
              f"host's, {len(r.disagreeing)} disagreeing; {r.ran} ran, {r.compared} compared, "
              f"{len(r.mismatching)} differing (int8 kernels only), {len(r.float_differing)} differing with "
              f"float kernels; guard bytes changed in {len(r.guard_damaged)}, program bytes in "
              f"{len(r.program_changed)}; rejected at load: {rejected}; runs refused: {refused}; "
              f"qemu {r.status}{' (' + r.fault + ')' if r.fault else ''}")
        for c, host, device in r.disagreeing[:10]:
            print(f"  verdict: case {c:05d} from {cases[c]['file']}: host {status_name(host)}, "
                  f"device {status_name(device)}")
        for c in r.mismatching[:10]:
            print(f"  mismatch: case {c:05d} from {cases[c]['file']}")
        for c in sorted(set(r.guard_damaged) | set(r.program_changed))[:10]:
            print(f"  wrote outside its regions: case {c:05d} from {cases[c]['file']}")
        if r.missing:
            print(f"  no verdict for {len(r.missing)} cases, the first {r.missing[0]:05d} "
                  f"from {cases[r.missing[0]]['file']}")
        failed = failed or not r.ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
