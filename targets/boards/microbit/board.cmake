# microbit: the QEMU machine, its SysTick clock (SYSCLK, for the instruction count) and stack size.
set(EMBER_BOARD_QEMU_MACHINE microbit)
set(EMBER_BOARD_SYSCLK_HZ 16000000)
