"""ember.compile and ember.lower (the package docstring shows them); importing this loads torch."""

from __future__ import annotations

import logging

from torch.export import ExportedProgram


def _import_quietly():
    # torchao's import warns that its CUDA-only extensions do not load and that an enum is
    # registered the old way; neither matters on the CPU, and users should not see them.
    loggers = [logging.getLogger(name) for name in ("torchao", "torch.utils._pytree")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    try:
        import torchao  # noqa: F401
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


_import_quietly()

from ember import DEFAULT_TARGET, _ember  # noqa: E402
from ember.frontend import export, to_graph  # noqa: E402
from ember.program import Program, ProgramError  # noqa: E402
from ember.quantizer import quantize  # noqa: E402


class CompileError(ValueError):
    """The compiler rejected the model; the message lists every error with its source line."""


def _memory_spec(memory) -> str:
    if memory is None:
        return ""
    if isinstance(memory, dict):
        return ",".join(f"{name}={int(size)}" for name, size in memory.items())
    return str(memory)


def lower(exported_program: ExportedProgram, target: str = DEFAULT_TARGET, *, float_io: bool = False,
          print_ir_after: tuple[str, ...] = (), memory=None, plan: str = "default",
          ram_budget: int | None = None, npu_reference: bool = True) -> Program:
    """Compiles an exported (usually PT2E-quantized) program for `target` with the C++ compiler.

    int8 model inputs and outputs are the default, as on a device; ``float_io=True`` keeps float
    ones (the program then quantizes and dequantizes at its edges). ``print_ir_after`` names
    passes (or "all") whose resulting IR is printed.

    Memory (docs/memory.md): ``memory`` overrides region capacities, as ``"DTCM=64K,SRAM=256K"``
    or ``{"DTCM": 65536}``; ``plan`` is "simple" (no buffer shares bytes with a live one),
    "default" (elementwise ops in place, op order for the smallest peak) or "smallest" (also
    convolutions and pools over their dying input); ``ram_budget`` (total arena bytes) picks
    "smallest" when the default plan is over it, and fails when that is too.

    With an NPU (``target="cortex-m55+ethos-u55-128"``, docs/npu.md) the program keeps each
    partition's TOSA graph, so that host runs can run it on the TOSA reference model;
    ``npu_reference=False`` leaves them out (a smaller file for the device, whose host runs then
    fail with NpuUnavailable).
    """
    graph = to_graph(exported_program, float_io=float_io)
    npu = None
    if "+" in target:  # an NPU beside the CPU: Vela compiles the partitions first
        from ember.npu import delegate
        from ember.tosa import TosaError
        from ember.vela import VelaError

        try:
            npu = delegate(graph, target, keep_tosa=npu_reference)
        except (TosaError, VelaError) as e:
            raise CompileError(str(e)) from None
    try:
        ok, data, diagnostics, dumps = _ember.compile(graph, target, list(print_ir_after),
                                                      _memory_spec(memory), plan, int(ram_budget or 0))
    except ValueError as e:  # a bad memory spec or plan name
        raise CompileError(str(e)) from None
    if dumps:
        print(dumps)
    if not ok:
        raise CompileError(diagnostics.strip())
    # The runtime's own load checks on what was just compiled: a program the device would reject
    # is a compiler bug, and it is reported here, not on the device.
    try:
        program = Program(data, name="the compiled program")
    except ProgramError as e:
        raise CompileError(f"internal error: {e}") from None
    if npu is not None:
        program.npu = {"accelerator": npu.accelerator, "partitions": npu.estimates}
    return program


def compile(model, example_inputs, calibration=None, target: str = DEFAULT_TARGET, *,
            float_io: bool = False, quantized: bool = True, memory=None, plan: str = "default",
            ram_budget: int | None = None, npu_reference: bool = True) -> Program:
    """The whole pipeline in one call: export, quantize to int8 (calibrating on `calibration`,
    an iterable of input tuples), re-export and lower. ``quantized=False`` compiles the float
    model as it is. ``memory``, ``plan``, ``ram_budget`` and ``npu_reference`` are as for
    :func:`lower`."""
    model.eval()
    if quantized:
        ep = quantize(model, tuple(example_inputs), calibration)
    else:
        from ember.checks import float32_model

        model, example_inputs = float32_model(model, tuple(example_inputs))
        ep = export(model, example_inputs)
    return lower(ep, target, float_io=float_io, memory=memory, plan=plan, ram_budget=ram_budget,
                 npu_reference=npu_reference)
