"""A user's own firmware project (examples/kws_app, copied out of the checkout): `ember export-c`
output plus Ember from `cmake --install` taken with find_package(ember CONFIG), cross-compiled
for the Cortex-M55 and run under QEMU. (add_subdirectory is how every `ember firmware` build
takes Ember, targets/firmware/.)
It quantizes float features with model.h's scale and zero point; its top class must equal the
host runtime's for the same input, and its dequantized score the host's."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest

import ember
from ember.export import export_c
from ember.firmware import firmware_target
from ember.qemu import qemu_command
from ember.sdk import source_root
from ember.models import kws


@pytest.mark.device
def test_user_project_builds_and_agrees_with_host(tmp_path):
    model, example_inputs, calibration = kws()
    program = ember.compile(model, example_inputs, calibration=calibration[:8], target="cortex-m55")
    export_c(program, tmp_path / "model" / "model")

    root, prefix = source_root(), tmp_path / "prefix"
    host = tmp_path / "host"  # the documented install: configure, build, install
    subprocess.run(["cmake", "-S", str(root), "-B", str(host), "-G", "Ninja", "-DEMBER_BUILD_TESTS=OFF",
                    "-DEMBER_BUILD_COMPILER=OFF"], check=True, capture_output=True)
    subprocess.run(["cmake", "--build", str(host), "-j2"], check=True, capture_output=True)
    subprocess.run(["cmake", "--install", str(host), "--prefix", str(prefix)], check=True, capture_output=True)
    assert (prefix / "share" / "ember" / "generated" / "ember" / "schema" / "program_generated.h").is_file()

    app, build = tmp_path / "kws_app", tmp_path / "build"
    shutil.copytree(root / "examples" / "kws_app", app)
    subprocess.run(["cmake", "-S", str(app), "-B", str(build), "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}",
                    f"-DCMAKE_TOOLCHAIN_FILE={prefix / 'share' / 'ember' / 'targets' / 'arm-none-eabi.cmake'}",
                    "-DEMBER_TARGET=cortex-m55", f"-DMODEL_DIR={tmp_path / 'model'}"], check=True, capture_output=True)
    assert "FLATC" not in (build / "CMakeCache.txt").read_text()  # no host flatc when cross-compiling
    subprocess.run(["cmake", "--build", str(build), "-j2"], check=True, capture_output=True)
    run = subprocess.run(qemu_command(build / "app.elf", firmware_target("cortex-m55").qemu_machine),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    device_top = int(re.search(r"app: top class (\d+)", run.stdout).group(1))

    # The same features main.cc quantizes (float32 arithmetic, half to even), through the host runtime.
    io = program.inputs[0]
    features = ((np.arange(490) * 37) % 256 - 128).astype(np.float32) * np.float32(0.05)
    q = np.rint(features * (np.float32(1.0) / np.float32(io["scale"]))) + io["zero_point"]
    x = np.clip(q, -128, 127).astype(np.int8).reshape(io["shape"])
    y = program.run_raw(x)[0].reshape(-1)
    assert device_top == int(np.argmax(y))
    out = program.outputs[0]
    score = int(re.search(r"score (\d+)/1000", run.stdout).group(1))
    assert abs(score - 1000 * out["scale"] * (int(y.max()) - out["zero_point"])) <= 1
