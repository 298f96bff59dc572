"""Program files replayed on the emulated cores (python -m ember.replay): the fuzzer's seeds (the
zoo compiled for the M3, M4, M55 and the host, the crafted and the lying malformed files), and
its corpus when tools/fuzz.sh has run (the CI runs it before pytest). On the scalar (Cortex-M3),
DSP (M4) and Helium (M55) tiers every file must get the host's verdict for that tier, every
program both accept must give the host's outputs byte for byte, none may change a byte outside
its regions (guard bytes, a checksum of the program), and nothing may fault.

Needs the Arm toolchain and QEMU (tools/setup.sh); without them these tests fail.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ember.replay import (HAS_EXPECTED, HAS_INPUTS, ReplayResult, case_body, parse_output, run_cases, status_name,
                          write_cases)

pytestmark = pytest.mark.device  # QEMU and the Arm toolchain (tools/test.sh --tier device)

ROOT = Path(__file__).resolve().parents[1]
FUZZ = ROOT / "build" / "fuzz"


@functools.lru_cache(maxsize=None)
def _files() -> tuple[Path, ...]:
    seeds = FUZZ / "seeds"
    subprocess.run([sys.executable, str(ROOT / "fuzz" / "make_seeds.py"), str(seeds)], check=True,
                   capture_output=True)
    dirs = [seeds] + sorted(FUZZ.glob("corpus-*"))
    return tuple(sorted(p for d in dirs for p in d.iterdir() if p.is_file()))


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    case_dir = tmp_path_factory.mktemp("replay")
    return case_dir, write_cases(list(_files()), case_dir)


@pytest.mark.parametrize("target", ["cortex-m3", "cortex-m4", "cortex-m55"])
def test_programs_match_the_host_on_the_optimized_kernels(cases, target):
    case_dir, records = cases
    # Every file fits the firmware's buffers (the fuzzer's are at most 64 KiB, the zoo's 300 KB).
    assert len(records) == len(_files())
    # The zoo programs for four targets and the tiny int8 and float models at least.
    assert sum(c["expected"] for c in records) >= 28
    r = run_cases(target, case_dir, records)
    assert not r.fault, r.fault
    assert not r.disagreeing, [(records[c]["file"], f"host {status_name(h)}", f"device {status_name(d)}")
                               for c, h, d in r.disagreeing[:10]]
    assert not r.guard_damaged and not r.program_changed, \
        [records[c]["file"] for c in (r.guard_damaged + r.program_changed)[:10]]
    assert not r.mismatching, [records[c]["file"] for c in r.mismatching[:10]]
    assert not r.missing, [records[c]["file"] for c in r.missing[:10]]
    assert r.ok, r
    # The crafted and lying files give every class's code; the zoo runs.
    assert len(r.rejected) >= 15 and r.ran >= 28


def test_a_wrong_expected_byte_is_reported(cases, tmp_path):
    """The replay can fail: one expected int8 output byte flipped is one mismatch."""
    case_dir, records = cases
    zoo = next(i for i, c in enumerate(records) if Path(c["file"]).name == "zoo-kws-host.emb")
    data = bytearray((case_dir / f"{zoo:05d}.bin").read_bytes())
    data[-1] ^= 0x01  # the last output's last element (kws: int8 logits)
    (tmp_path / "00000.bin").write_bytes(bytes(data))
    r = run_cases("cortex-m4", tmp_path, [records[zoo]])
    assert r.mismatching == [0] and r.status == "mismatch" and not r.ok


def test_a_wrong_host_verdict_is_reported(cases, tmp_path):
    """The verdict comparison can fail: a case whose record says the host rejects a file the
    device loads (and one the other way round) is a disagreement."""
    case_dir, records = cases
    zoo = next(i for i, c in enumerate(records) if Path(c["file"]).name == "zoo-kws-host.emb")
    bad = next(i for i, c in enumerate(records) if Path(c["file"]).name.startswith("crafted-15-"))
    for k, c in enumerate((zoo, bad)):
        (tmp_path / f"{k:05d}.bin").write_bytes((case_dir / f"{c:05d}.bin").read_bytes())
    lying = [dict(records[zoo], verdict=dict(records[zoo]["verdict"], dsp=8)),
             dict(records[bad], verdict=dict(records[bad]["verdict"], dsp=0))]
    r = run_cases("cortex-m4", tmp_path, lying)
    shape = records[bad]["verdict"]["dsp"]
    assert shape == 8  # crafted-15: a dim of -1
    assert r.disagreeing == [(0, 8, 0), (1, 0, shape)] and not r.ok


def _record(**verdict):
    return {"file": "x.emb", "verdict": dict({"scalar": 0, "dsp": 0, "mve": 0}, **verdict), "inputs": True,
            "expected": True, "float_kernels": False}


@pytest.mark.parametrize("line,field", [
    ("case=0 load=0 run=0 int8_mismatches=0 float_mismatches=0 elements=12 guard=3 program=0", "guard_damaged"),
    ("case=0 load=0 run=0 int8_mismatches=0 float_mismatches=0 elements=12 guard=0 program=1", "program_changed"),
    ("case=0 load=0 run=12 guard=16 program=0 (bad op parameter)", "guard_damaged"),
    ("case=0 load=8 guard=0 program=1 (bad tensor shape)", "program_changed"),
    # A firmware that does not check leaves the fields out: that fails too.
    ("case=0 load=0 run=0 int8_mismatches=0 float_mismatches=0 elements=12", "guard_damaged"),
    ("case=0 load=0 run=0 unchecked guard=0", "program_changed"),
])
def test_a_write_outside_the_regions_is_reported(line, field):
    """The firmware's line for a case that changed a guard byte or the program bytes fails the
    replay (a fabricated line: the runtime under test never does it)."""
    record = _record(dsp=int(line.split("load=")[1].split()[0]))  # the verdicts agree
    r = parse_output("cortex-m4", f"ember-replay: {line}\nember-replay: done cases=1 failed=1\n", [record],
                     ReplayResult("cortex-m4", 1, status="mismatch"))
    assert getattr(r, field) == [0] and not r.ok


def test_a_clean_line_passes_and_verdicts_compare_per_tier():
    out = ("ember-replay: case=0 load=0 run=0 int8_mismatches=0 float_mismatches=0 elements=12 guard=0 "
           "program=0\nember-replay: case=1 load=8 guard=0 program=0 (bad tensor shape)\n")
    records = [_record(), _record(scalar=8, dsp=8, mve=8)]

    def parse(target, text=out):
        return parse_output(target, text, records, ReplayResult(target, 2, status="pass"))
    r = parse("cortex-m55")
    assert r.ok and r.ran == r.compared == 1 and r.rejected == {"bad_shape": 1}
    records[1]["verdict"]["mve"] = 0  # the Helium tier's host verdict differs: only the M55 disagrees
    assert parse("cortex-m55").disagreeing == [(1, 0, 8)]
    assert parse("cortex-m3").ok
    assert parse("cortex-m3", out[:out.index("\n") + 1]).missing == [1]  # no line for case 1
    # A status whose words say "malformed" is a verdict; the firmware's own "malformed" is none.
    npu = "ember-replay: case=1 load=17 guard=0 program=0 (malformed NPU command stream)\n"
    records[1]["verdict"] = {"scalar": 17, "dsp": 17, "mve": 17}
    assert parse("cortex-m3", out[:out.index("\n") + 1] + npu).ok
    assert parse("cortex-m3", out[:out.index("\n") + 1] + "ember-replay: case=1 load=0 malformed\n").missing == [1]


def test_a_case_says_what_follows_its_program():
    """The flags tell the firmware which bytes follow the program: a program without inputs
    still carries the host's outputs (a fuzzed file can declare no inputs), and nothing follows
    when there was nothing to run."""
    assert case_body([], [b"\x01\x02"]) == (HAS_INPUTS | HAS_EXPECTED, b"\x01\x02")
    assert case_body([np.zeros(3, np.int8)], None) == (HAS_INPUTS, bytes(3))
    assert case_body(None, None) == (0, b"")
