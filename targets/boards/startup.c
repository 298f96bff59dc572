/*===- startup.c - Reset, vector table and fault reporting ---------------===*
 *
 * Linked with -nostartfiles: this file is the whole start-up. Reset enables the FPU/MVE
 * coprocessors when the build uses them (else the first FP or MVE instruction is a NOCP
 * UsageFault), paints the stack for the high-water mark, copies .data, zeroes .bss, starts the
 * SysTick instruction counter, runs static constructors and calls main. Every fault vector
 * lands in one handler that prints the fault type and registers and exits with code 3, so a
 * crash is never a hang.
 */
#include <stddef.h>
#include <stdint.h>

#include "board.h"

#define REG32(addr) (*(volatile uint32_t*)(addr))
#define SCB_VTOR REG32(0xE000ED08)
#define SCB_CCR REG32(0xE000ED14)
#define SCB_SHCSR REG32(0xE000ED24)
#define SCB_CFSR REG32(0xE000ED28)
#define SCB_HFSR REG32(0xE000ED2C)
#define SCB_MMFAR REG32(0xE000ED34)
#define SCB_BFAR REG32(0xE000ED38)
#define SCB_CPACR REG32(0xE000ED88)

extern uint32_t __data_start__[], __data_end__[], __data_load__[];
extern uint32_t __bss_start__[], __bss_end__[];
extern uint32_t __StackTop[], __StackLimit[];
extern uint32_t __vectors_start__[];
extern void (*__preinit_array_start[])(void);
extern void (*__preinit_array_end[])(void);
extern void (*__init_array_start[])(void);
extern void (*__init_array_end[])(void);

int main(void);
void board_timer_start(void);
void Reset_Handler(void);
void Fault_Handler(void);
void SysTick_Handler(void);

#define kStackPaint 0xC0DEC0DEu

void __attribute__((noreturn, used)) board_fault_report(const uint32_t* frame, uint32_t exc_return) {
  uint32_t ipsr;
  __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
  const uint32_t exception = ipsr & 0x1FF;
  static const char* const kNames[] = {"?",        "Reset",      "NMI",         "HardFault",
                                       "MemManage", "BusFault",  "UsageFault",  "SecureFault"};
  const char* name = exception < 8 ? kNames[exception] : "UnexpectedInterrupt";
  board_printf("\nFAULT: %s (exception %lu)", name, (unsigned long)exception);
#if __ARM_ARCH >= 7
  const uint32_t cfsr = SCB_CFSR, hfsr = SCB_HFSR;
  static const char* const kCfsrBits[32] = {
      "IACCVIOL", "DACCVIOL", 0, "MUNSTKERR", "MSTKERR", "MLSPERR", 0, "MMARVALID",
      "IBUSERR", "PRECISERR", "IMPRECISERR", "UNSTKERR", "STKERR", "LSPERR", 0, "BFARVALID",
      "UNDEFINSTR", "INVSTATE", "INVPC", "NOCP", "STKOF", 0, 0, 0,
      "UNALIGNED", "DIVBYZERO", 0, 0, 0, 0, 0, 0};
  for (int bit = 0; bit < 32; ++bit)
    if ((cfsr >> bit) & 1u && kCfsrBits[bit]) board_printf(" %s", kCfsrBits[bit]);
  if (hfsr & (1u << 30)) board_printf(" FORCED");
  if (hfsr & (1u << 1)) board_printf(" VECTTBL");
  board_printf("\nFAULT: CFSR=0x%08lx HFSR=0x%08lx", (unsigned long)cfsr, (unsigned long)hfsr);
  if (cfsr & (1u << 7)) board_printf(" MMFAR=0x%08lx", (unsigned long)SCB_MMFAR);
  if (cfsr & (1u << 15)) board_printf(" BFAR=0x%08lx", (unsigned long)SCB_BFAR);
#endif
  board_printf("\nFAULT: pc=0x%08lx lr=0x%08lx sp=0x%08lx exc_return=0x%08lx\n",
               (unsigned long)frame[6], (unsigned long)frame[5], (unsigned long)frame, (unsigned long)exc_return);
  board_exit(kBoardExitFault);
}

/* Finds the stacked frame (MSP or PSP, from EXC_RETURN bit 2) and reports. Naked: no prologue
 * may touch the faulting stack before the frame pointer is taken. */
__attribute__((naked)) void Fault_Handler(void) {
  __asm__ volatile(
      ".syntax unified\n"
      "  mov r1, lr\n"
      "  movs r0, #4\n"
      "  tst r1, r0\n"
      "  bne 1f\n"
      "  mrs r0, msp\n"
      "  b 2f\n"
      "1:\n"
      "  mrs r0, psp\n"
      "2:\n"
      "  ldr r2, =board_fault_report\n"
      "  bx r2\n");
}

void __attribute__((weak)) SysTick_Handler(void) {}

typedef void (*Vector)(void);
__attribute__((section(".vectors"), used)) const Vector g_vectors[16 + 16] = {
    (Vector)(uintptr_t)__StackTop, Reset_Handler,
    Fault_Handler, /* NMI */
    Fault_Handler, /* HardFault */
    Fault_Handler, /* MemManage */
    Fault_Handler, /* BusFault */
    Fault_Handler, /* UsageFault */
    Fault_Handler, /* SecureFault */
    0, 0, 0,
    Fault_Handler, /* SVCall */
    Fault_Handler, /* DebugMonitor */
    0,
    Fault_Handler, /* PendSV */
    SysTick_Handler,
    Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler,
    Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler,
    Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler,
};

/* Runs before .data/.bss exist: touches only registers and the stack below its own frame. */
__attribute__((noreturn, used, optimize("no-tree-loop-distribute-patterns"))) void Reset_Handler(void) {
#if __ARM_ARCH >= 7
  SCB_VTOR = (uint32_t)(uintptr_t)__vectors_start__;
  /* Report MemManage, BusFault and UsageFault as themselves, and trap integer division by 0. */
  SCB_SHCSR |= (1u << 16) | (1u << 17) | (1u << 18);
  SCB_CCR |= 1u << 4;
#endif
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
  SCB_CPACR |= 0xFu << 20;
  __asm__ volatile("dsb\n isb" ::: "memory");
#endif
  uint32_t sp;
  __asm__ volatile("mov %0, sp" : "=r"(sp));
  for (volatile uint32_t* p = __StackLimit; (uintptr_t)p < sp - 64; ++p) *p = kStackPaint;
  for (uint32_t *src = __data_load__, *dst = __data_start__; dst < __data_end__;) *dst++ = *src++;
  for (uint32_t* dst = __bss_start__; dst < __bss_end__;) *dst++ = 0;
  board_timer_start();
  for (void (**f)(void) = __preinit_array_start; f < __preinit_array_end; ++f) (*f)();
  for (void (**f)(void) = __init_array_start; f < __init_array_end; ++f) (*f)();
  board_exit(main());
}

uint32_t board_stack_size(void) { return (uint32_t)((uintptr_t)__StackTop - (uintptr_t)__StackLimit); }

uint32_t board_stack_used(void) {
  const uint32_t* p = __StackLimit;
  while (p < __StackTop && *p == kStackPaint) ++p;
  return (uint32_t)((uintptr_t)__StackTop - (uintptr_t)p);
}

/* C++ objects built without -fno-use-cxa-atexit may reference these; crti/crtbegin are not
 * linked. */
void* __dso_handle = 0;
void _init(void) {}
void _fini(void) {}
