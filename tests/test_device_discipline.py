"""Device discipline, checked on real firmware builds: no heap symbol in any linked firmware, no
recursion, and a static worst-case stack for Program::load and Executor::run under a stated
budget (ember.measure.STACK_BUDGET) on every emulated target, from the call graphs GCC writes
with -fcallgraph-info (ember.stack_usage).

The firmware is the sww test firmware per target plus the load-check firmware of
tests/test_untrusted.py, which links every kernel.
"""

from __future__ import annotations

import functools
import re
import subprocess

import pytest

import ember
from ember.firmware import build_firmware, build_load_check_firmware, firmware_targets
from ember.measure import STACK_BUDGET, flash_breakdown, static_stack, verifier_flash_budget
from ember.models import ZOO

pytestmark = pytest.mark.device  # QEMU and the Arm toolchain (tools/test.sh --tier device)

TARGETS = tuple(name for name, t in firmware_targets().items() if t.qemu_machine)  # every emulated board
# Allocation entry points of newlib and the C++ runtime (operator new/delete, mangled for
# 32-bit size_t), and the reentrant variants newlib's malloc is built on.
HEAP = re.compile(r"^(malloc|free|calloc|realloc|reallocf|memalign|aligned_alloc|posix_memalign|"
                  r"_malloc_r|_free_r|_calloc_r|_realloc_r|_sbrk|_sbrk_r|sbrk|"
                  r"_Znwj|_Znaj|_ZnwjRKSt9nothrow_t|_ZnajRKSt9nothrow_t|_ZdlPv|_ZdaPv|_ZdlPvj|_ZdaPvj|"
                  r"_ZnwjSt11align_val_t|_ZdlPvSt11align_val_t)$")


@functools.lru_cache(maxsize=None)
def _program(plan_target: str):
    model, example_inputs, calibration = ZOO["sww"]()
    ep = ember.quantize(model, tuple(example_inputs), calibration)
    return ember.lower(ep, plan_target)


def _symbols(elf) -> set[str]:
    out = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def _assert_no_heap(elf, map_path):
    heap = sorted(s for s in _symbols(elf) if HEAP.match(s))
    assert not heap, f"{elf.name} links heap functions: {heap}"
    # The link map lists every archive member pulled in and why; none may be newlib's malloc.
    text = map_path.read_text()
    assert not re.search(r"lib_a-(malloc|mallocr|freer|callocr|reallocr|sbrkr)\.o", text)


@pytest.mark.parametrize("target", TARGETS)
def test_firmware_has_no_heap_and_a_bounded_stack(target, tmp_path):
    program = _program("cortex-m55" if target == "cortex-m55" else "cortex-m4")
    fw = build_firmware(program, target, tmp_path / "fw.elf")
    _assert_no_heap(fw.elf, fw.map)
    stack = static_stack(target)  # raises on recursion, alloca/VLAs or an unknown callee
    assert 0 < stack["load"] <= STACK_BUDGET and 0 < stack["run"] <= STACK_BUDGET, stack


def test_load_check_firmware_with_every_kernel_has_no_heap(tmp_path):
    base = bytes(_program("cortex-m55").data)
    elf = build_load_check_firmware(base, [(base, 0)], "cortex-m55", tmp_path / "lc.elf",
                                    arena_bytes=16, sweep_step=1 << 20)
    _assert_no_heap(elf, elf.with_suffix(".map"))
    assert any(s.startswith("_ZN5ember7kernels13run_pow_f32") or "run_pow_f32" in s for s in _symbols(elf))
    stack = static_stack("cortex-m55", "-loadcheck")
    assert stack["load"] <= STACK_BUDGET and stack["run"] <= STACK_BUDGET, stack


def test_verifier_flash_within_budget(tmp_path):
    """The load-time file checks (program_verifier + program_structure, from the link map) stay
    within ember.measure.verifier_flash_budget() on the Cortex-M55 without messages."""
    import torch

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 4)).eval()
    x = (torch.randn(1, 8),)
    program = ember.lower(ember.quantize(model, x, [x]), "cortex-m55")
    fw = build_firmware(program, "cortex-m55", tmp_path / "fw.elf", no_log=True)
    flash = flash_breakdown(fw.map)
    assert 0 < flash["verifier"] <= verifier_flash_budget(), flash
    assert flash["verifier"] < flash["runtime_core"]


def test_stack_script_rejects_recursion(tmp_path):
    """ember.stack_usage on a hand-made call graph: a cycle is an error, not a number."""
    from ember import stack_usage as su

    (tmp_path / "a.ci").write_text(
        'graph: { title: "a"\n'
        'node: { title: "L" label: "ember::rt::Status ember::rt::Program::load(x)\\na.cc:1:1\\n16 bytes (static)" }\n'
        'node: { title: "R" label: "ember::rt::Status ember::rt::Executor::run()\\na.cc:2:1\\n8 bytes (static)" }\n'
        'node: { title: "f" label: "void f()\\na.cc:3:1\\n24 bytes (static)" }\n'
        'edge: { sourcename: "L" targetname: "f" }\n'
        'edge: { sourcename: "R" targetname: "memcpy" }\n}\n')
    r = su.bound(tmp_path)
    assert r["load"]["bytes"] == 40 and r["run"]["bytes"] == 8 + 32
    (tmp_path / "b.ci").write_text('graph: { title: "b"\nedge: { sourcename: "f" targetname: "L" }\n}\n')
    with pytest.raises(su.StackError, match="recursion"):
        su.bound(tmp_path)


def test_stack_script_counts_every_kernel_behind_the_table(tmp_path):
    """An indirect call from the runtime reaches the portable kernels and the optimized ones
    (ember::kernels::arm::); the deepest of them sets the bound."""
    from ember import stack_usage as su

    (tmp_path / "a.ci").write_text(
        'graph: { title: "a"\n'
        'node: { title: "L" label: "ember::rt::Status ember::rt::Program::load(x)\\na.cc:1:1\\n16 bytes (static)" }\n'
        'node: { title: "R" label: "ember::rt::Status ember::rt::Executor::run()\\na.cc:2:1\\n8 bytes (static)" }\n'
        'node: { title: "p" label: "ember::rt::Status ember::kernels::run_add_s8(const '
        'ember::rt::OpContext&)\\na.cc:3:1\\n100 bytes (static)" }\n'
        'node: { title: "o" label: "ember::rt::Status ember::kernels::arm::run_depthwise_conv2d_s8(const '
        'ember::rt::OpContext&)\\na.cc:4:1\\n900 bytes (static)" }\n'
        'node: { title: "c" label: "ember::rt::Status ember::kernels::arm::check_add_s8(const '
        'ember::rt::OpContext&)\\na.cc:5:1\\n300 bytes (static)" }\n'
        'edge: { sourcename: "L" targetname: "__indirect_call" }\n'
        'edge: { sourcename: "R" targetname: "__indirect_call" }\n}\n')
    r = su.bound(tmp_path)
    assert r["run"]["bytes"] == 8 + 900 and r["load"]["bytes"] == 16 + 300
