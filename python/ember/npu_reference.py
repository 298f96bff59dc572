"""NPU partitions on the TOSA reference model, where no NPU is (the host runtime's
ember_npu_invoke calls `run_reference`, docs/npu.md). The NPU's arithmetic here is the
reference model's.

The reference model runs in a worker process of its own, started on first use and kept: a
program file is untrusted input, and the reference model checks a TOSA graph's flatbuffer but
not everything in it (a damaged graph that passes the check can crash it). A crash then fails
that run (NpuFailed, with this module's message) instead of the Python process, and the next run
starts a new worker.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import struct
import subprocess
import sys
import threading

import numpy as np

_worker: subprocess.Popen | None = None
_lock = threading.Lock()


def run_reference(tosa: bytes, scratch: bytes, input_offsets: list[int], output_offsets: list[int]) -> list[bytes]:
    """One NPU partition: its inputs read from the scratch at their offsets, its outputs returned
    in order (their offsets are the caller's business). Raises RuntimeError naming what failed."""
    global _worker
    with _lock:
        if _worker is None or _worker.poll() is not None:
            _worker = subprocess.Popen([sys.executable, "-m", "ember.npu_reference"], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        request = pickle.dumps((tosa, scratch, list(input_offsets)))
        try:
            _worker.stdin.write(struct.pack("<Q", len(request)) + request)
            _worker.stdin.flush()
            reply = _read_reply(_worker.stdout)
        except (BrokenPipeError, struct.error, UnicodeDecodeError):
            reply = None
        if reply is None:
            _worker.kill()
            _worker = None
            raise RuntimeError("the TOSA reference model crashed on the program's TOSA graph")
    if isinstance(reply, str):
        raise RuntimeError(reply)
    return reply


@contextlib.contextmanager
def reference(fn):
    """Host runs inside the block run NPU partitions with `fn` (run_reference's signature; None:
    not at all, NpuUnavailable), then with run_reference again."""
    from ember import _ember

    _ember.set_npu_reference(fn)
    try:
        yield
    finally:
        _ember.set_npu_reference(run_reference)


# Replies are plain bytes, not pickles: the worker has read an untrusted graph. "E", a message's
# length (u32) and UTF-8; or "O", the count of outputs (u32), then each output's length (u64) and
# bytes.
def _read_reply(stream) -> list[bytes] | str | None:
    kind, count = stream.read(1), struct.unpack("<I", stream.read(4))[0]
    if kind == b"E":
        return stream.read(count).decode()
    if kind != b"O":
        return None
    return [stream.read(struct.unpack("<Q", stream.read(8))[0]) for _ in range(count)]


def _reply(result) -> bytes:
    ok, value = result
    if not ok:
        message = value.encode()
        return b"E" + struct.pack("<I", len(message)) + message
    return b"O" + struct.pack("<I", len(value)) + b"".join(struct.pack("<Q", len(v)) + v for v in value)


def _run(tosa: bytes, scratch: bytes, input_offsets: list[int]):
    try:
        import tosa_reference_model
    except ImportError:
        return False, ("running an NPU partition on the host needs the tosa-tools package "
                       "(pip install tosa-tools==2026.8.0; tools/setup.sh installs it)")
    from ember.npu import tosa_io_shapes

    try:
        shapes = tosa_io_shapes(tosa)[0]
    except Exception as e:  # a damaged graph: the pure-Python reader's own error
        return False, f"the partition's TOSA graph is unreadable ({type(e).__name__})"
    if len(shapes) != len(input_offsets):
        return False, "the partition's TOSA graph has another number of inputs than the op"
    inputs = []
    for shape, offset in zip(shapes, input_offsets):
        size = int(np.prod(shape))
        if offset < 0 or offset + size > len(scratch):
            return False, "a partition input lies outside the scratch"
        inputs.append(np.frombuffer(scratch, np.int8, size, offset).reshape(shape))
    try:
        outputs, status = tosa_reference_model.run(tosa, inputs)
    except ValueError as e:
        return False, f"the TOSA reference model refused the graph: {e}"
    if status != tosa_reference_model.GraphStatus.TOSA_VALID:
        return False, f"the TOSA reference model returned {status}"
    return True, [np.ascontiguousarray(o, np.int8).tobytes() for o in outputs]


def _serve() -> None:
    """The worker: length-prefixed pickled requests on stdin (from the parent, trusted), replies
    (_reply) on what was stdout. The
    reference model prints (a TOSA version warning on every run) to the C stdout, which goes to
    /dev/null here so that it cannot mix with the replies."""
    replies = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    requests = sys.stdin.buffer
    while True:
        head = requests.read(8)
        if len(head) < 8:
            return
        replies.write(_reply(_run(*pickle.loads(requests.read(struct.unpack("<Q", head)[0])))))
        replies.flush()


if __name__ == "__main__":
    _serve()
