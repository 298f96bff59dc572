"""`ember export-c --bundle DIR`: one self-contained folder with a program, the Ember runtime and
only the kernels the program uses, that builds with arm-none-eabi-gcc alone (no Ember, no flatc).

    DIR/model.h, model.c, model_kernels.cc   the program (`ember export-c`)
    DIR/ember/...                            the runtime and the program's kernels, headers beside
    DIR/ember/schema/, DIR/flatbuffers/      the generated schema reader and the headers it needs
    DIR/Makefile, DIR/CMakeLists.txt         libember_model.a; `example` runs on the QEMU board
    DIR/example/main.c                       a C program over ember/runtime/ember.h
    DIR/ember/targets/boards/                the QEMU board's start-up, output and linker script
    DIR/ember/targets/npu/ethosu_glue.c      with NPU partitions: ember_npu_invoke over Arm's Ethos-U
                                             driver, to compile with the driver (docs/npu.md)

Nothing here is written by hand twice: the file set, the compiler flags of every file and the
link flags are read off the program's own firmware build (ember.firmware.cached_build): ninja's
compile database and dependency log, and the archive members the linker needs, found from the
objects' symbols as the linker finds them.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path

from ember.export import _ident
from ember.firmware import cached_build, device_inputs, firmware_target
from ember.program import Program
from ember.sdk import FirmwareError, source_root

_DROP = {"-o", "-c", "-MT", "-MF", "-isystem"}  # followed by a value
_DROP_ONE = ("-I", "-L", "-T", "-MD", "-Werror", "-fcallgraph-info", "-DEMBER_PROGRAM_SECTION", "-Wl,-Map")


def _ninja(build: Path, *args: str) -> str:
    return subprocess.run(["ninja", "-C", str(build), *args], capture_output=True, text=True,
                          check=True).stdout


def _flags(command: str, cpu: list[str]) -> list[str]:
    """A compile or link command's own flags: not the compiler, paths, outputs or CPU flags."""
    words, out, skip = shlex.split(command)[1:], [], False
    for w in words:
        if skip:
            skip = False
        elif w in _DROP:
            skip = True
        elif not w.startswith("-") or w.startswith(_DROP_ONE) or w in cpu:
            continue
        else:
            out.append(w)
    return out


def _needed_objects(build: Path, roots: list[Path], library: list[Path]) -> list[Path]:
    """The library objects the linker takes for `roots`: those defining a symbol that a root or
    an already taken object leaves undefined."""
    defined, undefined = {}, {}
    lines = subprocess.run(["arm-none-eabi-nm", "-A", "-g", *map(str, roots + library)],
                           capture_output=True, text=True, check=True).stdout.splitlines()
    for line in lines:
        obj, _, rest = line.partition(":")
        parts = rest.split()
        if len(parts) < 2:
            continue
        kind, sym = parts[-2], parts[-1]
        if kind == "U":
            undefined.setdefault(Path(obj), set()).add(sym)
        else:
            defined.setdefault(sym, Path(obj))
    taken, todo = set(), list(roots)
    while todo:
        for sym in undefined.get(todo.pop(), ()):
            obj = defined.get(sym)
            if obj is not None and obj in library and obj not in taken:
                taken.add(obj)
                todo.append(obj)
    return [o for o in library if o in taken]


class _Files:
    """Maps the build's paths to the bundle's: the sources (through the ember/ include link or
    not) to ember/<path>, the generated headers to their include path."""

    def __init__(self, build: Path, root: Path):
        self.root = root
        self.generated = [root / "generated", build / "ember" / "generated"]
        self.files: dict[str, Path] = {}

    def add(self, path: str | Path) -> str | None:
        real = Path(path).resolve()
        for base, prefix in [*((g, "") for g in self.generated), (self.root, "ember/")]:
            if real.is_relative_to(base):
                rel = prefix + real.relative_to(base).as_posix()
                self.files[rel] = real
                return rel
        return None  # the toolchain's own headers


def export_bundle(program: Program, directory: str | Path, target: str | None = None) -> Path:
    """Writes the bundle for `program` on `target` (default: the program's) into `directory`."""
    target = target or program.target
    tgt = firmware_target(target)
    directory = Path(directory)
    _check_bundle_dir(directory)
    cpu = tgt.cpu_flags.split()
    root = source_root()
    inputs = device_inputs(program, 1)
    with cached_build(program, target, "-bundle", inputs, [program.run_raw(*inputs[0])]) as build:
        compdb = {Path(c["directory"], c["output"]).resolve(): c for c in json.loads(_ninja(build, "-t", "compdb"))}
        deps = _deps(_ninja(build, "-t", "deps"), build)

        def objects(sub: str) -> list[Path]:
            return [o for o in compdb if f"/{sub}/" in o.as_posix()]

        model_kernels = next(o for o in compdb if o.name == "model_kernels.cc.obj")
        model_c = next(o for o in compdb if o.name == "model.c.obj")
        runtime = objects("CMakeFiles/ember_runtime.dir")
        kernels = _needed_objects(build, [model_kernels, *runtime], objects("CMakeFiles/ember_kernels.dir"))
        board = objects("CMakeFiles/ember_board.dir")
        link = [line for line in _ninja(build, "-t", "commands", "firmware.elf").splitlines() if "-o firmware.elf" in line][-1]

        files = _Files(build, root)
        groups: dict[tuple, list[str]] = {}  # (flags, in the library?) -> the bundle's sources
        for obj in runtime + kernels + [model_kernels, model_c] + board:
            entry = compdb[obj]
            src = Path(entry["directory"], entry["file"]).resolve()
            rel = src.name if obj in (model_kernels, model_c) else files.add(src)
            files.files[rel] = src
            for header in deps.get(obj, ()):
                files.add(header)
            groups.setdefault((tuple(_flags(entry["command"], cpu)), obj not in board), []).append(rel)
        files.files["model.h"] = build / "model" / "model.h"
        for name in ("common.ld", "stack.ld", f"{tgt.board_dir}/memory.ld"):  # the linker scripts
            files.add(root / "targets" / "boards" / name)
        files.files["example/main.c"] = root / "examples" / "c_app" / "main.c"
        if "ethos_u" in program.inspect()["kernels"]:  # the driver's headers are the firmware's
            files.add(root / "targets" / "npu" / "ethosu_glue.c")
        _replace_bundle(directory)
        for rel, src in sorted(files.files.items()):
            (directory / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, directory / rel)
        link_flags = _flags(link, cpu)
    copyright_file = next((p for p in (root / "generated" / "flatbuffers" / "COPYRIGHT",
                                       Path("/usr/share/doc/libflatbuffers-dev/copyright")) if p.is_file()), None)
    if copyright_file and (directory / "flatbuffers").is_dir():
        shutil.copyfile(copyright_file, directory / "flatbuffers" / "COPYRIGHT")
    main_flags = next(list(f) for (f, lib), srcs in groups.items() if "model.c" in srcs)
    groups.setdefault((tuple(main_flags), False), []).append("example/main.c")
    _write_build_files(directory, program, tgt, groups, link_flags, len(kernels))
    return directory


MARKER = ".ember-bundle"  # a folder written by export_bundle, which the next export may replace


def _check_bundle_dir(directory: Path) -> None:
    """A bundle goes to a new or empty folder, or replaces a previous bundle; never a folder of
    the user's."""
    if directory.exists() and any(directory.iterdir()) and not (directory / MARKER).is_file():
        raise FirmwareError(f"{directory} exists and is not a bundle `ember export-c --bundle` wrote; "
                            "give a new folder")


def _replace_bundle(directory: Path) -> None:
    _check_bundle_dir(directory)
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    (directory / MARKER).write_text("written by ember export-c --bundle; the next export replaces this folder\n")


def _deps(text: str, build: Path) -> dict[Path, list[str]]:
    """ninja -t deps: per object, the headers its compile read."""
    out, current = {}, None
    for line in text.splitlines():
        if line and not line[0].isspace():
            current = (build / line.split(":")[0]).resolve()
            out[current] = []
        elif line.strip() and current is not None:
            out[current].append(line.strip() if Path(line.strip()).is_absolute() else str(build / line.strip()))
    return out


def _write_build_files(directory: Path, program: Program, tgt, groups, link_flags, num_kernels) -> None:
    cpu = tgt.cpu_flags
    qemu = (f"qemu-system-arm -machine {tgt.qemu_machine} -nographic -monitor none -serial null "
            "-semihosting-config enable=on,target=native -kernel build/example.elf")
    head = [f"Generated by `ember export-c --bundle` for {tgt.name}: the program in model.h/.c, the",
            f"Ember runtime and the {num_kernels} kernel files it needs. Builds with arm-none-eabi-gcc alone.",
            "The library: the runtime, the kernels and the program; link it with your firmware and",
            "include model.h and ember/runtime/ember.h (C) or ember/runtime/executor.h (C++).",
            f"The example: example/main.c on the {tgt.qemu_machine} board; run it with",
            f"  {qemu}"]
    if (directory / "ember" / "targets" / "npu" / "ethosu_glue.c").is_file():
        head += ["The program has NPU partitions: compile ember/targets/npu/ethosu_glue.c with your Ethos-U",
                 "driver's headers and link the driver (the example has no NPU: its run stops at the first one)."]
    lib = [(flags, srcs) for (flags, is_lib), srcs in groups.items() if is_lib]
    exe = [(flags, srcs) for (flags, is_lib), srcs in groups.items() if not is_lib]

    def obj(src: str) -> str:
        return f"build/{src}.o"

    mk = [*(f"# {line}" for line in head),
          "#   make            -> build/libember_model.a", "#   make example    -> build/example.elf", "",
          "CROSS ?= arm-none-eabi-", f"CPU_FLAGS ?= {cpu}", ""]
    for i, (flags, srcs) in enumerate(lib + exe):
        mk += [f"FLAGS_{i} = {' '.join(flags)}", f"OBJS_{i} = {' '.join(obj(s) for s in srcs)}",
               f"$(OBJS_{i}): FLAGS = $(FLAGS_{i})", ""]
    lib_objs = " ".join(f"$(OBJS_{i})" for i in range(len(lib)))
    exe_objs = " ".join(f"$(OBJS_{i})" for i in range(len(lib), len(lib) + len(exe)))
    mk += ["all: build/libember_model.a", "example: build/example.elf", ".PHONY: all example", "",
           f"build/libember_model.a: {lib_objs}", "\t$(CROSS)ar rcs $@ $^", "",
           f"build/example.elf: {exe_objs} build/libember_model.a",
           f"\t$(CROSS)g++ $(CPU_FLAGS) {' '.join(link_flags)} -Lember/targets/boards -Tember/targets/boards/{tgt.board_dir}/memory.ld "
           f"{exe_objs} build/libember_model.a -o $@", "",
           "build/%.cc.o: %.cc", "\t@mkdir -p $(@D)", "\t$(CROSS)g++ $(CPU_FLAGS) $(FLAGS) -I. -c $< -o $@", "",
           "build/%.c.o: %.c", "\t@mkdir -p $(@D)", "\t$(CROSS)gcc $(CPU_FLAGS) $(FLAGS) -I. -c $< -o $@", ""]
    (directory / "Makefile").write_text("\n".join(mk))

    def props(flags, srcs) -> list[str]:
        return [f"set_source_files_properties({' '.join(srcs)}", f'  PROPERTIES COMPILE_OPTIONS "{";".join(flags)}")']

    cm = [*(f"# {line}" for line in head),
          "# In your CMake firmware: add_subdirectory(<this folder>), link ember_model; your toolchain",
          f"# gives the CPU flags ({cpu}). Alone (cmake -S . -B build) it builds the example too.",
          "cmake_minimum_required(VERSION 3.16)",
          "if(CMAKE_SOURCE_DIR STREQUAL CMAKE_CURRENT_SOURCE_DIR AND NOT CMAKE_TOOLCHAIN_FILE)",
          "  set(CMAKE_TOOLCHAIN_FILE ${CMAKE_CURRENT_SOURCE_DIR}/example/toolchain.cmake)", "endif()",
          f"project({_ident(program.target)}_ember_model C CXX)", "",
          "add_library(ember_model STATIC", *(f"  {s}" for _, srcs in lib for s in srcs), ")",
          "target_include_directories(ember_model PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})"]
    for flags, srcs in lib:
        cm += props(flags, srcs)
    cm += ["", "if(CMAKE_SOURCE_DIR STREQUAL CMAKE_CURRENT_SOURCE_DIR)",
           "  add_executable(example " + " ".join(s for _, srcs in exe for s in srcs) + ")"]
    for flags, srcs in exe:
        cm += ["  " + line for line in props(flags, srcs)]
    cm += ["  set_target_properties(example PROPERTIES SUFFIX .elf)",
           "  target_link_libraries(example PRIVATE ember_model)",
           f"  target_link_options(example PRIVATE {' '.join(link_flags)}",
           f"    -L${{CMAKE_CURRENT_SOURCE_DIR}}/ember/targets/boards -T${{CMAKE_CURRENT_SOURCE_DIR}}/ember/targets/boards/{tgt.board_dir}/memory.ld)",
           "endif()", ""]
    (directory / "CMakeLists.txt").write_text("\n".join(cm))
    (directory / "example" / "toolchain.cmake").write_text("\n".join([
        "# The cross compiler and CPU flags for the standalone build of this bundle.",
        "set(CMAKE_SYSTEM_NAME Generic)", "set(CMAKE_SYSTEM_PROCESSOR arm)",
        "set(CMAKE_C_COMPILER arm-none-eabi-gcc)", "set(CMAKE_CXX_COMPILER arm-none-eabi-g++)",
        "set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)",
        f'set(CMAKE_C_FLAGS_INIT "{cpu}")', f'set(CMAKE_CXX_FLAGS_INIT "{cpu}")',
        f'set(CMAKE_EXE_LINKER_FLAGS_INIT "{cpu}")', ""]))
