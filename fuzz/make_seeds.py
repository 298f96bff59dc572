"""Writes the fuzzer's seed files: the MLPerf Tiny zoo programs and digits (compiled for one
core of each optimized tier, cortex-m55, cortex-m4 and cortex-m3, whose scratch operands and
folded biases reach that tier's kernels, and for the host target; keyword spotting also planned
smallest over two regions, for in-place convolutions), two tiny models (int8 and float, and int8
with NPU partitions), the crafted malformed files of
tests/test_untrusted.py, one file each, and the lying files of tests/lying_programs.py.

    python3 fuzz/make_seeds.py build/fuzz/seeds

Existing files are kept, so a second run costs nothing, unless the stored zoo seed no longer
loads (written for another schema): then all are written again.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("TQDM_DISABLE", "1")


def _tiny_models() -> dict:
    """Small models that reach every kind of kernel in a millisecond, so the fuzzer's accepted
    inputs run fast (the zoo programs take 0.1-1 s each under the sanitizers)."""
    import torch
    from torch import nn

    class Mixed(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, stride=2, padding=1)
            self.dw = nn.Conv2d(4, 4, 3, padding=1, groups=4)
            self.fc = nn.Linear(8 * 2 * 2, 5)

        def forward(self, x):
            y = torch.relu(self.conv(x))
            y = torch.nn.functional.hardswish(self.dw(y)) + y
            y = torch.nn.functional.max_pool2d(y * torch.sigmoid(y), 2)
            y = torch.nn.functional.avg_pool2d(torch.nn.functional.pad(y, (0, 1, 0, 1)), 2, ceil_mode=True)
            y = torch.cat([y, torch.tanh(y)], dim=1).permute(0, 2, 3, 1).flatten(1)
            return torch.softmax(self.fc(y), dim=-1)

    class Residual(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Conv1d(2, 6, 3, padding=1)
            self.b = nn.Conv1d(6, 6, 1)

        def forward(self, x):
            y = torch.nn.functional.relu6(self.a(x))
            return torch.nn.functional.gelu(self.b(y) - y)

    return {"mixed": (Mixed(), (1, 3, 8, 8)), "residual": (Residual(), (1, 2, 16))}


def main(out: Path) -> None:
    import torch

    import ember
    from ember import _ember
    from ember.models import MLPERF_TINY, ZOO

    out.mkdir(parents=True, exist_ok=True)
    # Seeds kept from before a schema change would all stop at the structure or version check:
    # if a stored zoo seed no longer loads, every seed is written again.
    reference = out / "zoo-digits-host.emb"
    if reference.exists() and _ember.Runtime(reference.read_bytes()).status != "ok":
        for seed in out.glob("*.emb"):
            seed.unlink()
    for name in sorted(set(MLPERF_TINY) | {"digits"}):
        # file stem -> ember.lower's arguments
        variants = {f"zoo-{name}-{t}": {"target": t} for t in ("cortex-m55", "cortex-m4", "cortex-m3", "host")}
        if name == "kws":
            variants["zoo-kws-cortex-m55-smallest-2regions"] = {"target": "cortex-m55", "memory": "DTCM=4K",
                                                                "plan": "smallest"}
        missing = {stem: args for stem, args in variants.items() if not (out / f"{stem}.emb").exists()}
        if not missing:
            continue
        model, example_inputs, calibration = ZOO[name]()
        ep = ember.quantize(model, tuple(example_inputs), calibration)
        for stem, args in missing.items():
            (out / f"{stem}.emb").write_bytes(bytes(ember.lower(ep, **args).data))
    for name, (model, shape) in _tiny_models().items():
        # int8 and float on the host; int8 with its NPU partitions (ethos_u ops) beside a Cortex-M55
        for kind, target in (("s8", "host"), ("f32", "host"), ("s8-npu", "cortex-m55+ethos-u55-128")):
            path = out / f"tiny-{name}-{kind}.emb"
            if path.exists():
                continue
            x = torch.randn(*shape)
            quantized = kind != "f32"
            try:
                program = ember.compile(model.eval(), (x,), calibration=[(x,), (x * 2,)],
                                        target=target, quantized=quantized)
            except ember.CompileError as e:
                print(f"no seed tiny-{name} ({'int8' if quantized else 'float'}): {str(e)[:200]}")
                continue  # an op without a kernel for this dtype: no seed
            path.write_bytes(bytes(program.data))
    for regression in (Path(__file__).parent / "regressions").glob("*"):
        (out / f"regression-{regression.name}").write_bytes(regression.read_bytes())
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    if not any(out.glob("crafted-*.emb")):
        import test_untrusted

        for i, case in enumerate(test_untrusted.crafted_cases(test_untrusted.base_program())):
            (out / f"crafted-{i:02d}-class{case.cls:02d}.emb").write_bytes(case.data)
    # Generated in a fraction of a second, so always: files of an older generator or older bases
    # go (their names hold their hash).
    import lying_programs

    lies = {f"lying-{lie.name}": lie.data for lie in lying_programs.generate(
        {stem: (out / f"{stem}.emb").read_bytes() for stem in lying_programs.BASES})}
    for stale in out.glob("lying-*.emb"):
        if stale.name not in lies:
            stale.unlink()
    for name, data in lies.items():
        if not (out / name).exists():
            (out / name).write_bytes(data)
    print(f"{len(list(out.glob('*.emb')))} seed files in {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
