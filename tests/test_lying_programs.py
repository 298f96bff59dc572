"""Lying program files (tests/lying_programs.py: real programs with fields that lie, in every
class of docs/runtime.md) on the host under AddressSanitizer and UBSan, and a sample of them on
the emulated Cortex-M55, M4 and M3 inside guard bytes.

The contract (SECURITY.md): whatever the loader accepts runs without a sanitizer report and
without writing outside its regions; whatever it rejects, it rejects with a status, the same on
the host and on every device. The host run uses the fuzz target (fuzz/program_fuzzer.cc, built
as tools/fuzz.sh builds it), which loads each file with the portable and the optimized kernel
table and runs what loads. The whole set also joins the fuzzer's seeds (fuzz/make_seeds.py), so
tests/test_replay.py replays every file on the three cores as well.

Needs clang (the fuzz build), the Arm toolchain and QEMU (tools/setup.sh).
"""

from __future__ import annotations

import collections
import functools
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from ember import _ember
from ember.replay import run_cases, status_name, write_cases
import lying_programs

ROOT = Path(__file__).resolve().parents[1]
FUZZ = ROOT / "build" / "fuzz"
PER_CLASS = 40


@functools.lru_cache(maxsize=None)
def _lies() -> tuple[lying_programs.Lie, ...]:
    seeds = FUZZ / "seeds"
    subprocess.run([sys.executable, str(ROOT / "fuzz" / "make_seeds.py"), str(seeds)], check=True,
                   capture_output=True)
    bases = {name: (seeds / f"{name}.emb").read_bytes() for name in lying_programs.BASES}
    return tuple(lying_programs.generate(bases, per_class=PER_CLASS))


@pytest.fixture(scope="module")
def lie_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("lies")
    for lie in _lies():
        (out / lie.name).write_bytes(lie.data)
    return out


def _program_fuzzer() -> Path:
    """build/fuzz/x86_64/program_fuzzer, configured as tools/fuzz.sh does and brought up to date."""
    build = FUZZ / "x86_64"
    if not (build / "build.ninja").exists():
        subprocess.run(["cmake", "-S", str(ROOT / "fuzz"), "-B", str(build), "-G", "Ninja",
                        "-DCMAKE_C_COMPILER=clang", "-DCMAKE_CXX_COMPILER=clang++", "-DEMBER_FUZZ_M32=OFF"],
                       check=True, capture_output=True)
    subprocess.run(["cmake", "--build", str(build)], check=True, capture_output=True)
    return build / "program_fuzzer"


def test_every_class_has_its_lies():
    lies = _lies()
    per_class = collections.Counter(lie.cls for lie in lies)
    assert per_class == {cls: PER_CLASS for cls in lying_programs.CLASSES}
    assert len({lie.data for lie in lies}) == len(lies)
    # Every mutator made files (each names the field it lies about).
    used = {lie.what.split(":")[0] for lie in lies}
    assert used == {m.__name__ for ms in lying_programs.MUTATORS.values() for m in ms}


def test_generator_is_deterministic():
    seeds = FUZZ / "seeds"
    _lies()
    bases = {name: (seeds / f"{name}.emb").read_bytes() for name in lying_programs.BASES}
    again = lying_programs.generate(bases, per_class=PER_CLASS)
    assert [(x.name, x.what) for x in again] == [(x.name, x.what) for x in _lies()]
    other = lying_programs.generate(bases, per_class=PER_CLASS, seed=1)
    assert {x.name for x in other} != {x.name for x in again}


def test_most_lies_are_rejected_with_their_own_class():
    """A sanity check of the generator: a file lying in one class is mostly rejected with that
    class's code (the rest is rejected by another check on the way, or is a harmless lie)."""
    own = {1: "truncated", 2: "bad_identity", 3: "misaligned", 4: "bad_structure", 5: "unknown_kind",
           7: "bad_index", 8: "bad_shape", 9: "size_overflow", 10: "data_out_of_bounds", 11: "bad_plan",
           12: "bad_op_signature", 15: "bad_graph", 17: "oversized_region"}
    verdicts = collections.defaultdict(collections.Counter)
    for lie in _lies():
        verdicts[lie.cls][_ember.Runtime(lie.data, "mve", False).status] += 1
    for cls, status in own.items():
        assert verdicts[cls][status] >= PER_CLASS // 2, (cls, dict(verdicts[cls]))
    accepted = sum(v["ok"] for v in verdicts.values())
    assert 0 < accepted < len(_lies()) // 4, dict(verdicts)  # the harmless lies run below


def test_lies_under_sanitizers(lie_dir):
    """Every file once through the fuzz target with both kernel tables and a 4 MiB arena cap, as
    tools/fuzz.sh runs the seeds: any ASan or UBSan report, crash or hang fails."""
    fuzzer = _program_fuzzer()
    env = dict(os.environ, EMBER_FUZZ_MAX_ARENA="4194304", EMBER_FUZZ_BOTH_TABLES="1",
               ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=0",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    r = subprocess.run([str(fuzzer), "-runs=0", "-timeout=10", "-rss_limit_mb=2048", str(lie_dir)],
                       env=env, capture_output=True, text=True, errors="backslashreplace", timeout=600)
    log = r.stdout + r.stderr
    assert r.returncode == 0, log[-4000:]
    for sign in ("ERROR: AddressSanitizer", "runtime error:", "ERROR: libFuzzer", "SUMMARY:"):
        assert sign not in log, log[-4000:]
    # Every file, and libFuzzer's own empty input first (it skips empty files).
    assert f"Done {sum(1 for lie in _lies() if lie.data) + 1} runs" in log, log[-2000:]


def _sample(size: int = 102) -> list[lying_programs.Lie]:
    """The same files each run: as many of every class, the harmless lies (which run) first."""
    rng = random.Random(0)
    by_class = collections.defaultdict(list)
    for lie in _lies():
        by_class[lie.cls].append(lie)
    out = []
    for cls in sorted(by_class):
        lies = sorted(by_class[cls], key=lambda x: (_ember.Runtime(x.data, "scalar", False).status != "ok",
                                                    rng.random()))
        out += lies[:size // len(by_class)]
    return out


@pytest.fixture(scope="module")
def sample_cases(tmp_path_factory):
    files_dir = tmp_path_factory.mktemp("lie-sample")
    files = []
    for lie in _sample():
        files.append(files_dir / lie.name)
        files[-1].write_bytes(lie.data)
    case_dir = tmp_path_factory.mktemp("lie-cases")
    return case_dir, write_cases(files, case_dir)


@pytest.mark.parametrize("target", ["cortex-m3", "cortex-m4", "cortex-m55"])
@pytest.mark.device
def test_lies_on_cortex_m(sample_cases, target):
    """The sample on the device's optimized kernels: no fault, no guard byte or program byte
    changed, each load verdict the host's for the target's tier, every int8 output the host's."""
    case_dir, records = sample_cases
    assert len(records) >= 100
    r = run_cases(target, case_dir, records)
    assert not r.fault, r.fault
    assert not r.guard_damaged and not r.program_changed, (r.guard_damaged, r.program_changed)
    assert not r.disagreeing, [(records[c]["file"], status_name(h), status_name(d)) for c, h, d in r.disagreeing]
    assert not r.mismatching, [records[c]["file"] for c in r.mismatching]
    assert not r.missing and r.ok, r
    assert r.ran >= 5  # harmless lies load and run
