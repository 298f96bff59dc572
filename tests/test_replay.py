"""Program files replayed on the emulated cores' optimized kernels (python -m ember.replay): the
fuzzer's seeds (the zoo compiled for the M3, M4, M55 and the host), and its corpus when
tools/fuzz.sh has run (the CI runs it before pytest), must give the host's outputs byte for byte
on the scalar (Cortex-M3), DSP (M4) and Helium (M55) tiers, and never fault.

Needs the Arm toolchain and QEMU (tools/setup.sh); without them these tests fail.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

import pytest

from ember.replay import run_cases, write_cases

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
    # The zoo programs for four targets and the tiny int8 and float models at least.
    assert len(records) >= 28, f"only {len(records)} of {len(_files())} files load and run on the host"
    r = run_cases(target, case_dir, records)
    assert not r.mismatching, [records[c]["file"] for c in r.mismatching[:10]]
    assert not r.fault, r.fault
    assert r.ok, r
    # Every case ran or was refused by a device-only kernel check, by name.
    assert r.ran > 0 and r.ran + sum(r.refused.values()) == r.cases


def test_a_wrong_expected_byte_is_reported(cases, tmp_path):
    """The replay can fail: one expected int8 output byte flipped is one mismatch."""
    case_dir, records = cases
    zoo = next(i for i, c in enumerate(records) if Path(c["file"]).name == "zoo-kws-host.emb")
    data = bytearray((case_dir / f"{zoo:05d}.bin").read_bytes())
    data[-1] ^= 0x01  # the last output's last element (kws: int8 logits)
    (tmp_path / "00000.bin").write_bytes(bytes(data))
    r = run_cases("cortex-m4", tmp_path, [records[zoo]])
    assert r.mismatching == [0] and r.status == "mismatch" and not r.ok
