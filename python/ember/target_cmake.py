"""targets/targets.cmake, generated from the target table (targets/targets.def) as the compiler
reads it: the firmware toolchain file (targets/arm-none-eabi.cmake) includes it, so CMake needs
no parser of its own for targets.def. tests/test_firmware.py requires the committed file to be
current.

    python3 -m ember.target_cmake     # rewrites targets/targets.cmake after a change to targets.def
"""

from __future__ import annotations

import sys
from pathlib import Path

from ember import _ember

PATH = Path("targets") / "targets.cmake"


def cmake_text() -> str:
    lines = ["# targets.cmake - GENERATED from targets/targets.def by `python3 -m ember.target_cmake`;",
             "# do not edit. Per target with firmware: its tier, board support folder and GCC CPU flags.", ""]
    names = []
    for t in _ember.targets():
        if not t["board_dir"]:
            continue  # the host
        names.append(t["name"])
        prefix = f"EMBER_TARGET_{t['name']}"
        lines += [f'set({prefix}_TIER "{t["tier"]}")', f'set({prefix}_BOARD "{t["board_dir"]}")',
                  f'set({prefix}_CPU_FLAGS "{t["cpu_flags"]}")']
    return "\n".join(lines[:3] + [f'set(EMBER_FIRMWARE_TARGETS "{";".join(names)}")'] + lines[3:]) + "\n"


def main(argv: list[str] | None = None) -> int:
    root = Path(__file__).resolve().parents[2]
    (root / PATH).write_text(cmake_text())
    print(root / PATH)
    return 0


if __name__ == "__main__":
    sys.exit(main())
