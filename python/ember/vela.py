"""Vela, Arm's Ethos-U compiler (the pinned ethos-u-vela package), on one TOSA graph.

    result = compile_tosa(tosa_bytes, "ethos-u55-128")
    result.command_stream      # the driver's payload: a COP1 container, then the NPU commands
    result.weights             # encoded weights and biases (base address region 0)
    result.scratch_size        # the NPU's scratch (region 1), inputs and outputs inside it
    result.inputs, .outputs    # per tensor: offset inside the scratch, shape, element size
    result.estimate            # Vela's estimates: NPU cycles, SRAM and flash bytes (not measured)

Vela compiles a whole graph or fails: an op it cannot take is an error here, naming the
accelerator and Vela's message. Its raw output format is used, so nothing of TFLite is involved.
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ember import _ember

# Every NPU configuration of the target table (targets/targets.def, EMBER_NPU).
ACCELERATORS = tuple(dict.fromkeys(a for t in _ember.targets() for a, _ in t["npus"]))


class VelaError(RuntimeError):
    """Vela is missing or refused the graph."""


@dataclass
class TensorPlace:
    offset: int       # bytes from the scratch's start
    shape: list
    element_size: int


@dataclass
class VelaResult:
    accelerator: str
    command_stream: bytes
    weights: bytes
    scratch_size: int
    fast_scratch_size: int
    inputs: list = field(default_factory=list)   # TensorPlace per graph input, in order
    outputs: list = field(default_factory=list)  # TensorPlace per graph output, in order
    estimate: dict = field(default_factory=dict)  # cycles_npu, sram_bytes, flash_bytes, ...


def vela_command() -> list[str]:
    """The pinned Vela's command; VelaError naming the package to install when it is missing."""
    exe = shutil.which("vela", path=str(Path(sys.executable).parent)) or shutil.which("vela")
    if exe is None:
        raise VelaError("the Ethos-U path needs Vela (pip install ethos-u-vela==5.2.0; tools/setup.sh "
                        "installs it)")
    return [exe]


def compile_tosa(tosa: bytes, accelerator: str) -> VelaResult:
    if accelerator not in ACCELERATORS:
        raise VelaError(f"unknown accelerator {accelerator!r} (Vela knows {', '.join(ACCELERATORS)})")
    with tempfile.TemporaryDirectory(prefix="ember-vela-") as tmp:
        graph = Path(tmp) / "partition.tosa"
        graph.write_bytes(tosa)
        r = subprocess.run([*vela_command(), "--accelerator-config", accelerator, "--output-format", "raw",
                            "--output-dir", tmp, str(graph)], capture_output=True, text=True)
        npz = Path(tmp) / "partition_vela.npz"
        if r.returncode != 0 or not npz.exists():
            lines = (r.stdout + r.stderr).splitlines()
            first = next((i for i, line in enumerate(lines) if "rror" in line), max(len(lines) - 5, 0))
            message = " ".join(line.strip() for line in lines[first:first + 5])
            raise VelaError(f"Vela ({accelerator}) refused the graph: {message}")
        z = np.load(npz, allow_pickle=True)
        (summary,) = Path(tmp).glob("partition_summary_*.csv")
        with open(summary) as f:
            row = next(csv.DictReader(f))

    def places(kind: str) -> list[TensorPlace]:
        return [TensorPlace(int(off), [int(d) for d in shape], int(size))
                for off, shape, size in zip(z[f"{kind}_offset"], z[f"{kind}_shape"], z[f"{kind}_elem_size"])]

    if int(z["weight_region"]) != 0 or int(z["scratch_region"]) != 1:
        raise VelaError(f"Vela placed weights in region {int(z['weight_region'])} and the scratch in "
                        f"{int(z['scratch_region'])}; Ember expects 0 and 1")
    kib = 1024
    return VelaResult(
        accelerator, bytes(z["cmd_data"].item()), bytes(z["weight_data"].item()), int(z["scratch_size"]),
        int(z["scratch_fast_size"]), places("input"), places("output"),
        {"cycles_npu": int(float(row["cycles_npu"])), "inference_time_s": float(row["inference_time"]),
         "sram_bytes": int(float(row["sram_memory_used"]) * kib),
         "flash_bytes": int(float(row["off_chip_flash_memory_used"]) * kib + float(row["on_chip_flash_memory_used"]) * kib),
         "system_config": row["system_config"], "memory_mode": row["memory_mode"]})
