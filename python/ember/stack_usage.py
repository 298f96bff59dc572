"""Static worst-case stack of Program::load and Executor::run, from GCC's call graphs.

A firmware build compiles the runtime, the kernels and the board support with
`-fcallgraph-info=su` (CMakeLists.txt, targets/CMakeLists.txt): one .ci file per object, with
every function's frame size (static, or bounded/dynamic when it uses alloca or VLAs) and its
call edges. This script reads them all from a build folder and computes, for each root, the
deepest sum of frames along any call path.

    python3 -m ember.stack_usage <firmware build folder> --budget 2048 [--json]

Rules, so the bound is sound for the code Ember builds:
- A cycle in the call graph (recursion) is an error: the bound would not exist.
- A frame that is not `static` (alloca, VLA) is an error.
- An indirect call from the runtime is a call through the kernel table: it may reach any
  `ember::kernels::check_*` or `ember::kernels::arm::check_*` (from load), or `run_*` (from
  run), function in the graph: portable and optimized kernels alike. Any other indirect call is
  an error.
- A call to a function without a .ci entry (newlib's memcpy/strncmp/expf, libgcc's division
  and soft-float helpers) is charged the bytes EXTERNAL gives it; each such callee is listed.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

# Callees that have no .ci file (newlib and libgcc, prebuilt) and the frame charged for each:
# the string/memory routines and libgcc's helpers are leaves that save a few registers; newlib's
# float math (expf, powf, tanhf, ... for the float kernels) calls a helper or two, so it is
# charged more. Any other callee without a .ci file is an error.
EXTERNAL = [
    (re.compile(r"^(memcpy|memset|memmove|memcmp|memchr|strlen|strcmp|strncmp|abort)$"), 32),
    (re.compile(r"^(__aeabi_\w+|__\w+(df|sf|si|di)\d?|__gnu_\w+|__clz\w*|__ctz\w*)$"), 32),
    (re.compile(r"^(exp|log|pow|sqrt|tanh|erf|erfc|expm1|log1p|floor|ceil|round|rint|nearbyint|"
                r"fabs|fmin|fmax|fmod|lrint|lround|sin|cos|exp2|log2)f?$"), 128),
]
ROOTS = {"load": r"ember::rt::Program::load\(", "run": r"ember::rt::Executor::run\(\)"}
INDIRECT = {"load": r"ember::kernels::(arm::)?check_\w+\(", "run": r"ember::kernels::(arm::)?run_\w+\("}

_NODE = re.compile(r'node: \{ title: "([^"]+)" label: "([^"]*)"')
_EDGE = re.compile(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"')


class StackError(RuntimeError):
    pass


def read_graph(build: Path):
    """(functions {title: (name, bytes, kind)}, edges {title: set(titles)})."""
    funcs, edges = {}, {}
    files = list(build.rglob("*.ci"))
    if not files:
        raise StackError(f"no .ci files under {build}: build with -fcallgraph-info=su")
    for ci in files:
        text = ci.read_text(errors="replace")
        for title, label in _NODE.findall(text):
            parts = label.split("\\n")
            m = re.match(r"(\d+) bytes \((\w+)\)", parts[-1]) if len(parts) >= 3 else None
            if m:
                funcs[title] = (parts[0], int(m.group(1)), m.group(2))
        for src, dst in _EDGE.findall(text):
            edges.setdefault(src, set()).add(dst)
    return funcs, edges


def bound(build: Path) -> dict:
    funcs, edges = read_graph(build)
    externals: set[str] = set()

    def find(pattern: str) -> list[str]:
        return [t for t, (name, _, _) in funcs.items() if re.search(pattern, name)]

    result = {}
    for root_name, pattern in ROOTS.items():
        roots = find(pattern)
        if not roots:
            raise StackError(f"no function matching {pattern} in {build}")
        indirect = find(INDIRECT[root_name])

        memo: dict[str, tuple[int, tuple]] = {}
        visiting: list[str] = []

        def depth(title: str) -> tuple[int, tuple]:
            if title in memo:
                return memo[title]
            if title in visiting:
                cycle = visiting[visiting.index(title):] + [title]
                raise StackError("recursion: " + " -> ".join(funcs.get(t, (t,))[0] for t in cycle))
            visiting.append(title)
            if title == "__indirect_call":
                best = (0, ())
                for t in indirect:
                    best = max(best, depth(t), key=lambda x: x[0])
            elif title not in funcs:
                name = title.split(":")[-1]
                charge = next((b for rx, b in EXTERNAL if rx.match(name)), None)
                if charge is None:
                    raise StackError(f"call to {name}, which has no call graph (.ci) and is not a "
                                     "known C library or compiler runtime routine")
                externals.add(f"{name} ({charge})")
                best = (charge, (name,))
            else:
                name, frame, kind = funcs[title]
                if kind != "static":
                    raise StackError(f"{name}: {kind} stack frame ({frame} bytes)")
                sub = (0, ())
                for callee in edges.get(title, ()):
                    if callee == "__indirect_call" and not indirect:
                        raise StackError(f"{name}: indirect call with no known targets")
                    sub = max(sub, depth(callee), key=lambda x: x[0])
                best = (frame + sub[0], (name,) + sub[1])
            visiting.pop()
            memo[title] = best
            return best

        worst = max((depth(r) for r in roots), key=lambda x: x[0])
        result[root_name] = {"bytes": worst[0], "path": list(worst[1])}
    result["externals"] = sorted(externals)
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build", type=Path, help="a firmware build folder (python -m ember.sdk --cache)")
    ap.add_argument("--budget", type=int, default=0, help="fail when load or run needs more bytes")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    try:
        r = bound(args.build)
    except StackError as e:
        print(f"stack_usage: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(r, indent=1))
    else:
        for k in ROOTS:
            print(f"{k}: {r[k]['bytes']} bytes  ({' -> '.join(p.split('(')[0] for p in r[k]['path'])})")
        print(f"external callees (bytes charged): {', '.join(r['externals']) or 'none'}")
    over = [k for k in ROOTS if args.budget and r[k]["bytes"] > args.budget]
    if over:
        print(f"stack_usage: {', '.join(over)} over the budget of {args.budget} bytes", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
