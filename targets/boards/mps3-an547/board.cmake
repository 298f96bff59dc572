# mps3-an547: the QEMU machine, its SysTick clock (SYSCLK, for the instruction count) and stack size.
set(EMBER_BOARD_QEMU_MACHINE mps3-an547)
set(EMBER_BOARD_SYSCLK_HZ 32000000)
