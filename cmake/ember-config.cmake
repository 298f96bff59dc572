# find_package(ember CONFIG): Ember for a firmware project, from `cmake --install` or a wheel
# (python -m ember.sdk prints the folder). Configure the project with this package's toolchain
# file and a target of targets/targets.def:
#
#   cmake -S app -B build -DCMAKE_TOOLCHAIN_FILE=<package>/targets/arm-none-eabi.cmake \
#         -DEMBER_TARGET=cortex-m55 -DCMAKE_PREFIX_PATH=<prefix>
#
# Targets, compiled with the project's toolchain (the kernel tier is the target's):
#   ember::runtime  the runtime and the kernels (a kernel table links only what it names)
#   ember::kernels  the kernels alone (portable, and the target's optimized tier)
#   ember::board    start-up, semihosting output and the linker script of the QEMU boards
#   ember::ethos_u  ember_npu_invoke over Arm's Ethos-U driver; link the driver too (docs/npu.md)
include_guard(GLOBAL)
get_filename_component(EMBER_PACKAGE_DIR "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(EMBER_TOOLCHAIN_FILE "${EMBER_PACKAGE_DIR}/targets/arm-none-eabi.cmake")
if(NOT TARGET ember::runtime)
  add_subdirectory("${EMBER_PACKAGE_DIR}" "${CMAKE_BINARY_DIR}/_ember" EXCLUDE_FROM_ALL)
endif()
