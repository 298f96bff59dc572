"""Prints how long `ember --help` and `ember --version` take (median of 7 runs each): the
command's start-up, which must stay well under a second (torch is imported only by the commands
that need it). A benchmark that prints figures, not a timed test.

    python3 tools/cli_startup.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time


def median_seconds(args: list[str], runs: int = 7) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "ember.cli", *args], check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


if __name__ == "__main__":
    for args in (["--help"], ["--version"]):
        print(f"ember {' '.join(args)}: median {median_seconds(args):.3f} s of 7 runs")
