"""The Ember sources that firmware builds from, and the folder where builds are cached.

The sources are a checkout's own (when this package runs from one) or the copy an installed
wheel carries as ember/sdk: the `cmake --install` tree (runtime, kernels, board support, the
toolchain file, ember-config.cmake; the schema and flatbuffers headers already generated, so no
host flatc). EMBER_ROOT points at another checkout. Builds go to the user's cache folder
(EMBER_CACHE, else $XDG_CACHE_HOME/ember or ~/.cache/ember), one subfolder per source tree.

    python -m ember.sdk            # the sources (its targets/arm-none-eabi.cmake is the toolchain)
    python -m ember.sdk --cmake    # the folder find_package(ember CONFIG) wants as ember_DIR
    python -m ember.sdk --cache    # the build cache of these sources
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path


class FirmwareError(RuntimeError):
    """Building or running firmware failed: no sources, a missing tool, a failed build, no board."""


def require_tools(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        raise FirmwareError(f"missing tools: {', '.join(missing)} (run tools/setup.sh: it installs "
                            "gcc-arm-none-eabi, libnewlib-arm-none-eabi, libstdc++-arm-none-eabi-newlib, "
                            "qemu-system-arm)")


def source_root() -> Path:
    env = os.environ.get("EMBER_ROOT")  # empty: unset
    here = Path(__file__).resolve()
    for root in ([Path(env)] if env else [here.parents[2], here.parent / "sdk"]):
        if (root / "targets" / "targets.def").is_file() and (root / "runtime").is_dir():
            return root.resolve()
    where = f"EMBER_ROOT={env}" if env else f"{here.parent / 'sdk'}"
    raise FirmwareError(f"no Ember sources at {where}: reinstall the ember wheel, or set EMBER_ROOT "
                   "to a checkout")


def cache_dir(kind: str) -> Path:
    """<cache>/<source tree's hash>/<kind>: two checkouts or wheels never share a build."""
    base = os.environ.get("EMBER_CACHE") or Path(
        os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ember"
    tree = hashlib.sha1(str(source_root()).encode()).hexdigest()[:12]
    return Path(base) / tree / kind


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        root = source_root()
        print(root / "cmake" if "--cmake" in args else cache_dir("") if "--cache" in args else root)
    except FirmwareError as e:
        print(f"ember.sdk: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
