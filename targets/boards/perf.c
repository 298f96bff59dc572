/*===- perf.c - Deterministic instruction counter from SysTick ------------===*
 *
 * QEMU has no cycle model and its DWT/PMU counters read 0. Under `-icount shift=10,sleep=off`
 * virtual time advances exactly 2^10 ns per guest instruction, and SysTick (CLKSOURCE = CPU)
 * ticks at the board's SYSCLK, so instructions = ticks * 1e9 / (SYSCLK * 2^10), exact after
 * rounding (docs/firmware.md). SysTick is 24 bits; its wrap interrupt extends it to 64 bits and
 * adds about 5 instructions per wrap, deterministically.
 */
#include <stdint.h>

#include "board.h"

#ifndef EMBER_BOARD_SYSCLK_HZ
#error "EMBER_BOARD_SYSCLK_HZ must be defined (targets/boards/<board>/board.cmake)"
#endif

#define SYST_CSR (*(volatile uint32_t*)0xE000E010)
#define SYST_RVR (*(volatile uint32_t*)0xE000E014)
#define SYST_CVR (*(volatile uint32_t*)0xE000E018)
#define SCB_ICSR (*(volatile uint32_t*)0xE000ED04)
#define ICSR_PENDSTSET (1u << 26) /* the SysTick exception is pending */

static volatile uint32_t g_wraps;

void SysTick_Handler(void) { g_wraps = g_wraps + 1; }

void board_timer_start(void) {
  SYST_CSR = 0;
  SYST_RVR = 0x00FFFFFF;
  SYST_CVR = 0;
  g_wraps = 0;
  SYST_CSR = 7; /* ENABLE | TICKINT | CLKSOURCE = CPU */
}

uint64_t board_ticks(void) {
  uint32_t hi, lo, pending;
  do {
    hi = g_wraps;
    lo = SYST_CVR;
    pending = SCB_ICSR & ICSR_PENDSTSET;
  } while (hi != g_wraps);
  /* The counter can wrap after g_wraps is read and before its interrupt has run (QEMU takes
   * interrupts between translation blocks): the wrap is then pending and lo has restarted near
   * the top, so it counts in the next period. Without this a measurement across such a wrap
   * came out 2^24 ticks short (the kernel-test firmware printed wrapped-around counts). */
  if (pending && lo > 0x7FFFFFu) ++hi;
  return ((uint64_t)hi << 24) | (0xFFFFFFu - lo);
}

uint64_t board_ticks_to_instructions(uint64_t ticks) {
  /* ticks * 1e9 / (SYSCLK * 1024), rounded; SYSCLK is a whole number of kHz on every board. */
  const uint64_t khz = EMBER_BOARD_SYSCLK_HZ / 1000u;
  return (ticks * 1000000u + khz * 512u) / (khz * 1024u);
}
