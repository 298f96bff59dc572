# mps2-an500: the QEMU machine, its SysTick clock (SYSCLK, for the instruction count) and stack size.
set(EMBER_BOARD_QEMU_MACHINE mps2-an500)
set(EMBER_BOARD_SYSCLK_HZ 25000000)
