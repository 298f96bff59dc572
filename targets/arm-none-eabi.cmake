# arm-none-eabi.cmake - CMake toolchain file for Ember firmware (Debian's gcc-arm-none-eabi).
#
#   cmake -S <firmware project> -B build/fw -G Ninja \
#         -DCMAKE_TOOLCHAIN_FILE=<ember>/targets/arm-none-eabi.cmake -DEMBER_TARGET=cortex-m4
#
# EMBER_TARGET (default cortex-m55) picks a target of targets/targets.def, through
# targets/targets.cmake (generated from it): its CPU flags (set here for every language and the
# link) and its board support folder (EMBER_BOARD, used by targets/CMakeLists.txt for the linker
# script and clock).
# Links with -nostartfiles (the board's startup.c is the start-up), newlib-nano for memcpy and
# friends, nosys stubs for syscalls nothing should call, and --gc-sections.

set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)

if(NOT EMBER_TARGET)
  set(EMBER_TARGET cortex-m55)
endif()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES EMBER_TARGET)

include("${CMAKE_CURRENT_LIST_DIR}/targets.cmake")
if(NOT EMBER_TARGET IN_LIST EMBER_FIRMWARE_TARGETS)
  message(FATAL_ERROR "no firmware for EMBER_TARGET='${EMBER_TARGET}' (targets: ${EMBER_FIRMWARE_TARGETS})")
endif()
set(EMBER_BOARD "${EMBER_TARGET_${EMBER_TARGET}_BOARD}" CACHE STRING "board support folder under targets/boards" FORCE)
set(EMBER_CPU_FLAGS "${EMBER_TARGET_${EMBER_TARGET}_CPU_FLAGS}")

set(CMAKE_C_FLAGS_INIT "${EMBER_CPU_FLAGS} -ffunction-sections -fdata-sections")
set(CMAKE_CXX_FLAGS_INIT "${EMBER_CPU_FLAGS} -ffunction-sections -fdata-sections -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit")
set(CMAKE_ASM_FLAGS_INIT "${EMBER_CPU_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${EMBER_CPU_FLAGS} -nostartfiles --specs=nano.specs --specs=nosys.specs -Wl,--gc-sections")
