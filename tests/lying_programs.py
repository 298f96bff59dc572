"""Structure-aware generator of lying program files: real compiled programs with one field (or
two) rewritten so that the file names a class of malformation of docs/runtime.md.

Most files stay valid flatbuffers (the offsets, vtables and vector bounds still hold) while the
semantics lie: tensor offsets, shapes and ranks, quantization, kernel ids, operand indices,
views and regions, in-place claims (`rows_bottom_up`), region sizes and op parameters (strides,
pads, windows, shifts, multipliers, clamp bounds). Classes 1, 2 and 4 damage the file itself
(truncation, identity, the flatbuffers structure), since that is what those classes are.

    files = generate(bases)            # bases: {name: program bytes}; deterministic for a seed

The mutators, per class, are in tests/lying_programs_mutators.py.

A lie is not always a malformation: a zero point moved inside [-128, 127] or an int8 tensor
moved to a free spot of its region is a file the loader must accept, and the contract
(SECURITY.md) is then that it runs without touching memory outside its regions. The loader's
verdict is therefore not predicted here; tests/test_lying_programs.py runs every file under the
sanitizers and a sample on the emulated cores, and reports the verdicts per class.
"""

from __future__ import annotations

import hashlib
import json
import random
import struct
from dataclasses import dataclass

from ember import _ember

from fbpatch import Patcher
from lying_programs_mutators import MUTATORS, Skip

# docs/runtime.md's 16 classes of malformed files, and the region larger than its plan
# (OversizedRegion, status 16), which the table lists with class 11's plan checks.
CLASSES = {
    1: "truncated file",
    2: "wrong identity",
    3: "misalignment",
    4: "structural damage",
    5: "unknown tag",
    6: "missing required field",
    7: "index out of range",
    8: "bad shape",
    9: "size overflow",
    10: "data shorter than shape",
    11: "bad memory plan (offsets, views, regions, in-place claims)",
    12: "op signature",
    13: "bad op parameter",
    14: "bad quantization",
    15: "bad graph",
    16: "run-time index (the program's input and output lists the executor indexes)",
    17: "oversized region",
}

# The programs the lies start from (fuzz/make_seeds.py writes them): every kind of kernel in
# the tiny models, the zoo's keyword spotter for each tier (folded biases, scratch operands),
# and one planned smallest over two regions (in-place convolutions both ways, a region index).
BASES = ("tiny-residual-f32", "tiny-residual-s8", "tiny-mixed-f32", "tiny-mixed-s8",
         "zoo-digits-cortex-m55", "zoo-digits-host", "zoo-kws-cortex-m55", "zoo-kws-cortex-m4",
         "zoo-kws-cortex-m3", "zoo-kws-host", "zoo-kws-cortex-m55-smallest-2regions")


@dataclass
class Lie:
    cls: int
    base: str
    what: str
    data: bytes

    @property
    def name(self) -> str:
        digest = hashlib.sha256(self.data).hexdigest()[:8]
        return f"class{self.cls:02d}-{self.base}-{digest}.emb"


class Base:
    """A base program and what the mutators need to know about it."""

    def __init__(self, name: str, data: bytes, kernel_names: list[str]):
        self.name, self.data = name, data
        self.info = json.loads(_ember.inspect_json(data))
        p = Patcher(data)
        self.num_tensors, self.num_ops = p.count("tensors"), p.count("ops")
        self.kernel_names = kernel_names
        self.ops = [{"kernel": kernel_names[p.get(p.op(i), "op", "kernel", "<H")],
                     "inputs": p.int_vec(p.op(i), "op", "inputs"), "outputs": p.int_vec(p.op(i), "op", "outputs"),
                     "ints": p.int_vec(p.op(i), "op", "ints") if p.pos(p.op(i), "op", "ints") is not None else [],
                     "floats": p.vec(p.op(i), "op", "floats")[1] if p.pos(p.op(i), "op", "floats") is not None else 0}
                    for i in range(self.num_ops)]
        self.constants = [t for t in range(self.num_tensors) if p.is_constant(t)]
        self.arena = [t for t in range(self.num_tensors) if not p.is_constant(t)]
        self.dtype = [p.get(p.tensor(t), "tensor", "dtype", "<b") for t in range(self.num_tensors)]
        self.regions = p.count("regions")
        self.inputs = p.int_vec(p.root, "program", "inputs")
        self.outputs = p.int_vec(p.root, "program", "outputs")

    def op(self, rng, pred=lambda o: True) -> int:
        ops = [i for i, o in enumerate(self.ops) if pred(o)]
        if not ops:
            raise Skip
        return rng.choice(ops)


def generate(bases: dict[str, bytes], per_class: int = 40, seed: int = 0) -> list[Lie]:
    """`per_class` distinct lying files for each class, from `bases` (name -> program bytes),
    the same ones for the same bases and seed."""
    from ember.export import kernel_names

    names = kernel_names()
    prepared = [Base(n, bases[n], names) for n in sorted(bases)]
    rng = random.Random(seed)
    lies: list[Lie] = []
    seen = {hashlib.sha256(b.data).digest() for b in prepared}
    for cls in sorted(MUTATORS):
        made = 0
        for _ in range(per_class * 20):
            if made == per_class:
                break
            mutator = rng.choice(MUTATORS[cls])
            # The first base it applies to: a mutator for in-place ops or a second region has
            # one or two bases, and gets its share of the class all the same.
            for base in rng.sample(prepared, len(prepared)):
                p = Patcher(base.data)
                try:
                    what = mutator(p, base, rng)
                    break
                except (Skip, KeyError, IndexError, ValueError, struct.error):
                    continue  # this base has no such op, field or tensor
            else:
                continue
            data = bytes(p.buf)
            digest = hashlib.sha256(data).digest()
            if digest in seen:
                continue
            seen.add(digest)
            lies.append(Lie(cls, base.name, f"{mutator.__name__}: {what}", data))
            made += 1
    return lies
