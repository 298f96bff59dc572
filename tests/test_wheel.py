"""The wheel is the product: built from the checkout, installed into a fresh virtual environment
outside it, it compiles a model, writes a bundle that builds with arm-none-eabi-gcc alone and runs
on QEMU (`ember qemu`, as one's own firmware) bit for bit with the host, and runs `ember firmware
--run` and `ember demo`, with no checkout anywhere.

The virtual environment takes torch, torchao, numpy and tqdm from this machine's site-packages
through a .pth line (installing torch again would download 1.2 GB); the Ember in it is the
wheel's alone (checked), and EMBER_ROOT is unset."""

from __future__ import annotations

import os
import re
import site
import subprocess
import sys

import numpy as np
import pytest

import ember
from ember.sdk import source_root

pytestmark = pytest.mark.device


def test_wheel_deploys_without_a_checkout(tmp_path):
    root = source_root()
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-build-isolation", "--no-deps",
                    "-w", str(tmp_path / "dist"), str(root)], check=True, capture_output=True)
    wheel, = (tmp_path / "dist").glob("ember-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
    py = venv / "bin" / "python"
    venv_site = subprocess.run([py, "-c", "import site; print(site.getsitepackages()[0])"], check=True,
                               capture_output=True, text=True).stdout.strip()
    (venv / venv_site / "deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    subprocess.run([py, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", str(wheel)],
                   check=True, capture_output=True)

    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("EMBER_ROOT", "PYTHONPATH")}
    env.update(PATH=f"{venv / 'bin'}:{env['PATH']}", EMBER_CACHE=str(tmp_path / "cache"))

    def run(*cmd: str) -> str:
        r = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=900)
        assert r.returncode == 0, f"{' '.join(cmd)}:\n{r.stdout[-3000:]}{r.stderr[-3000:]}"
        return r.stdout

    sources = run("python", "-c", "import ember.sdk; print(ember.sdk.source_root())").strip()
    assert sources.startswith(str(venv)) and sources.endswith("ember/sdk"), sources
    run("ember", "compile", "kws", "-o", "kws.emb", "--target", "cortex-m55")
    run("ember", "export-c", "kws.emb", "--bundle", "bundle")

    # arm-none-eabi-gcc alone: every command make runs is the cross compiler, its ar, or mkdir.
    made = run("make", "-C", "bundle", "-j2", "example")
    commands = [line for line in made.splitlines() if line and not line.startswith("make")]
    assert commands and all(c.split()[0] in ("arm-none-eabi-gcc", "arm-none-eabi-g++", "arm-none-eabi-ar")
                            for c in commands), commands
    shown = run("ember", "qemu", "bundle/build/example.elf", "--target", "cortex-m55")  # one's own firmware
    assert "pass: the firmware exited with code 0" in shown, shown
    device = bytes.fromhex(re.search(r"example: output 0:([0-9a-f ]+)", shown).group(1).replace(" ", ""))

    program = ember.Program.load(work / "kws.emb")
    io = program.inputs[0]
    x = ((np.arange(int(np.prod(io["shape"]))) * 37) % 256 - 128).astype(np.int8).reshape(io["shape"])
    assert device == program.run_raw(x)[0].tobytes()

    out = run("ember", "firmware", "kws.emb", "--run", "-o", "fw.elf")
    assert "outputs bit-identical" in out, out
    out = run("ember", "demo", "-o", "demo/kws.emb")
    assert "the host's bit for bit" in out, out
