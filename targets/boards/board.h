/*===- board.h - Board support for Ember firmware on the QEMU boards -----===*
 *
 * What the firmware needs from a board: text output and an exit code over semihosting, a
 * deterministic instruction counter and the stack's high-water mark. One implementation serves
 * every board in targets/boards/; per-board facts (memory map, SysTick clock, stack size) come
 * from the board's memory.ld and board.cmake (EMBER_BOARD_SYSCLK_HZ).
 *
 * Exit codes (`ember qemu` maps them to results): 0 pass, 1 output mismatch, 2 runtime error
 * (the runtime rejected the program or a run failed), 3 fault (reported with its type first).
 */
#ifndef EMBER_TARGETS_BOARDS_BOARD_H_
#define EMBER_TARGETS_BOARDS_BOARD_H_

#include <stdarg.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { kBoardExitPass = 0, kBoardExitMismatch = 1, kBoardExitRuntimeError = 2, kBoardExitFault = 3 };

/** Ends the program: QEMU exits with `code` (semihosting SYS_EXIT_EXTENDED). Never returns. */
void board_exit(int code) __attribute__((noreturn));

/** printf subset to the host's stdout: %d %i %u %x %X %c %s %p %%, flags '-' '0', a width,
 *  and the l / ll / z length modifiers (PRIu32 is "lu" on arm-none-eabi). Buffered per line. */
void board_printf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void board_vprintf(const char* fmt, va_list args);
void board_flush(void);

/** Reads the host file `path` (relative to QEMU's working directory) into buffer: returns its
 *  length, -1 if it cannot be opened or read, -2 if it is longer than `capacity`. */
long board_read_file(const char* path, void* buffer, unsigned long capacity);

/** SysTick ticks since reset (64-bit, cheap and constant-cost: bracket a region with two
 *  reads), and a tick count converted to guest instructions. Exact under QEMU
 *  `-icount shift=10,sleep=off` (2^10 ns of virtual time per instruction); meaningless without
 *  -icount. */
uint64_t board_ticks(void);
uint64_t board_ticks_to_instructions(uint64_t ticks);

/** Bytes of stack ever used (the painted stack scanned from its limit), and its size. */
uint32_t board_stack_used(void);
uint32_t board_stack_size(void);

#ifdef __cplusplus
}
#endif

#endif  /* EMBER_TARGETS_BOARDS_BOARD_H_ */
