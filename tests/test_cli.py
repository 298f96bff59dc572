"""The `ember` command at the door: a model module in the current folder, output folders made
before compiling, one-line errors with a non-zero exit, and `--help`/`--version` without
importing torch (`ember --help` answers in a fraction of a second; not timed here)."""

from __future__ import annotations

import subprocess
import sys

import pytest

MODEL = """
import torch
from torch import nn

def net():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 3), nn.ReLU()).eval(), (torch.randn(1, 4),), [(torch.randn(1, 4),)]
"""


def ember(*args, cwd):
    """The installed console script's entry point in a fresh interpreter, from `cwd`."""
    return subprocess.run([sys.executable, "-c", "import sys; from ember.cli import main; sys.exit(main())", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=600)


def test_module_from_the_current_folder_into_a_new_folder(tmp_path, monkeypatch):
    from ember.cli import main

    (tmp_path / "mymodel.py").write_text(MODEL)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "mymodel", raising=False)
    assert main(["compile", "mymodel:net", "-o", "out/deep/m.emb"]) == 0
    assert (tmp_path / "out" / "deep" / "m.emb").stat().st_size > 0


@pytest.mark.parametrize("args,message", [
    (("compile", "mymodel:nope", "-o", "m.emb"), "ember: module 'mymodel' has no 'nope'"),
    (("compile", "nomodule:net", "-o", "m.emb"), "ember: cannot import 'nomodule'"),
    (("compile", "kwz", "-o", "m.emb"), "ember: 'kwz' is neither a zoo model"),
    (("inspect", "missing.emb"), "ember: [Errno 2] No such file or directory: 'missing.emb'"),
])
def test_errors_are_one_line(tmp_path, monkeypatch, capsys, args, message):
    """In process (the entry point is main): one line on stderr, a non-zero exit."""
    from ember.cli import main

    (tmp_path / "mymodel.py").write_text(MODEL)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "mymodel", raising=False)
    assert main(list(args)) != 0
    err = capsys.readouterr().err.strip()
    assert err.startswith(message) and len(err.splitlines()) == 1, err


def test_help_and_version_do_not_import_torch(tmp_path):
    code = ("import sys; from ember.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "assert 'torch' not in sys.modules, 'torch was imported'")
    for flag in ("--help", "--version"):
        r = subprocess.run([sys.executable, "-c", code, flag], cwd=tmp_path, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    assert "ember 0." in subprocess.run([sys.executable, "-m", "ember.cli", "--version"], capture_output=True,
                                        text=True).stdout


@pytest.mark.device
def test_bench_takes_a_module_of_ones_own(tmp_path):
    (tmp_path / "mymodel.py").write_text(MODEL)
    r = ember("bench", "--models", "mymodel:net", "--targets", "cortex-m55", "--json", "b.json", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "mymodel:net (default plan) on cortex-m55:" in r.stdout


@pytest.mark.device
@pytest.mark.parametrize("name", ["kws", "vww", "sww"])
def test_the_shape_inspect_prints_is_what_run_and_firmware_take(name, tmp_path, capsys):
    """One shape convention: the input shape `ember inspect` prints first (the model's) is what
    `ember run --input` and `ember firmware --input` take; firmware built from it runs on QEMU with
    the host's bytes (device tier)."""
    import numpy as np

    from ember.cli import main

    program = tmp_path / f"{name}.emb"
    assert main(["compile", name, "-o", str(program)]) == 0
    capsys.readouterr()
    assert main(["inspect", str(program)]) == 0
    line = next(s for s in capsys.readouterr().out.splitlines() if s.startswith("input "))
    shape = [int(d) for d in line.split(": [", 1)[1].split("]", 1)[0].split(", ")]
    np.save(tmp_path / "x.npy", np.random.default_rng(0).standard_normal(shape).astype(np.float32))
    assert main(["run", str(program), "--input", str(tmp_path / "x.npy")]) == 0
    assert main(["firmware", str(program), "-o", str(tmp_path / "fw.elf"), "--input", str(tmp_path / "x.npy"),
                 "--run"]) == 0


def test_a_bundle_never_replaces_a_folder_of_ones_own(tmp_path, capsys):
    from ember.cli import main

    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    program = tmp_path / "m.emb"
    assert main(["compile", "ad", "-o", str(program)]) == 0
    assert main(["export-c", str(program), "--bundle", str(tmp_path / "mine")]) == 1
    assert "is not a bundle" in capsys.readouterr().err
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep"
